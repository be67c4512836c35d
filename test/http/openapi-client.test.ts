import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import openapiTS, { astToString } from "openapi-typescript"
import { createHarness, type Harness } from "../helpers/harness"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * A client generated from the served document type-checks: openapi-typescript turns the document
 * into types, and a small program using openapi-fetch against them passes `tsc --strict` with no
 * casts. The program also pins the fields of the spec's Message.
 */

const REPO = join(import.meta.dir, "..", "..")
const TSC = join(REPO, "node_modules", ".bin", "tsc")
const GENERATE_TIMEOUT_MS = 60_000
const TSC_TIMEOUT_MS = 120_000

/** The fields of a message in the spec, in its order. */
const SPEC_MESSAGE_FIELDS = [
  "id", "from", "to", "isGroup", "groupId", "content", "mediaUrls", "environment", "status",
  "createdAt", "sentAt", "deliveredAt", "readAt", "failedAt", "errorCode", "errorMessage",
]
/** Optional fields beyond the seed (docs/api.md § "Act on a message"), after the spec's. */
const BEYOND_SEED_MESSAGE_FIELDS = ["editedAt", "revokedAt", "location", "contact", "mentions", "voiceNote", "poll"]

/** Optional fields added beside the spec's (docs/api.md § "Replies, mentions, locations, contact cards and voice notes"), after them. */
const ADDITIVE_MESSAGE_FIELDS = ["type", "replyTo"]
const MESSAGE_FIELDS = [...SPEC_MESSAGE_FIELDS, ...ADDITIVE_MESSAGE_FIELDS]

const PROGRAM = `import createClient from "openapi-fetch"
import type { components, paths } from "./schema"

type Message = components["schemas"]["Message"]

/** Fails to compile when the generated Message lacks a field of the spec, or has one more. */
type SpecField = ${MESSAGE_FIELDS.map((f) => JSON.stringify(f)).join(" | ")}
type BeyondSeedField = ${BEYOND_SEED_MESSAGE_FIELDS.map((f) => JSON.stringify(f)).join(" | ")}
type Missing = Exclude<SpecField, keyof Message>
type Extra = Exclude<keyof Message, SpecField | BeyondSeedField>
const noneMissing: [Missing] extends [never] ? true : false = true
const noneExtra: [Extra] extends [never] ? true : false = true

const client = createClient<paths>({ baseUrl: "http://127.0.0.1:3000", headers: { Authorization: "Bearer sk_test_x" } })

export async function sendThenGet(): Promise<Message | null> {
  const sent = await client.POST("/v1/messages/send", {
    body: { fromPhoneId: "+14155550123", to: "+14155550199", content: "Your order has shipped", idempotencyKey: "order-1" },
  })
  if (sent.error) {
    const problems: string[] = sent.error.message
    const retryAfter: number | undefined = sent.error.retryAfter
    console.log(problems, retryAfter, noneMissing, noneExtra)
    return null
  }
  const replayed: string | null = sent.response.headers.get("Idempotent-Replayed")
  const message: Message = sent.data.data
  const got = await client.GET("/v1/messages/{messageId}", { params: { path: { messageId: message.id } } })
  if (got.error) return null
  const status: "pending" | "sent" | "delivered" | "read" | "failed" = got.data.data.status
  const code: components["schemas"]["ErrorCode"] | null = got.data.data.errorCode
  const environment: "test" | "live" = got.data.data.environment
  console.log(replayed, status, code, environment)
  return got.data.data
}

export async function listFailed(): Promise<number> {
  const { data } = await client.GET("/v1/messages", { params: { query: { status: "failed", page: 1, limit: 100 } } })
  return data ? data.data.pagination.total : 0
}

export async function media(): Promise<void> {
  // Media alone is a valid message: content or media is required, not both.
  await client.POST("/v1/messages/send", { body: { fromPhoneId: "+14155550123", to: "+14155550199", mediaUrls: ["https://example.com/a.pdf"] } })
}

export async function replyWithALocation(quoted: Message): Promise<Message | null> {
  const { data } = await client.POST("/v1/messages/send", {
    body: { fromPhoneId: "+14155550123", to: "+14155550199", replyTo: quoted.id, location: { latitude: 52.52, longitude: 13.4, name: "Our shop" } },
  })
  if (!data) return null
  const type: "text" | "media" | "location" | "contact" | "poll" | undefined = data.data.type
  const replyTo: string | null | undefined = data.data.replyTo
  console.log(type, replyTo)
  return data.data
}

export async function contactMentionAndVoiceNote(): Promise<void> {
  await client.POST("/v1/messages/send", {
    body: { fromPhoneId: "+14155550123", to: "+14155550199", contact: { name: "Acme Support", phoneNumbers: ["+14155550123"], organization: "Acme", email: "help@acme.example" } },
  })
  await client.POST("/v1/messages/send", { body: { fromPhoneId: "+14155550123", to: "120363000000000001@g.us", content: "@14155550199 look", mentions: ["+14155550199"] } })
  await client.POST("/v1/messages/send", { body: { fromPhoneId: "+14155550123", to: "+14155550199", mediaUrls: ["https://example.com/note.ogg"], voiceNote: true } })
}

export async function checkNumbers(): Promise<string[]> {
  const { data, error } = await client.POST("/v1/contacts/check", { body: { fromPhoneId: "+14155550123", numbers: ["+14155550199", "+12025550101"] } })
  if (error) {
    const retryAfter: number | undefined = error.retryAfter
    console.log(retryAfter)
    return []
  }
  const answers: { number: string; onWhatsApp: boolean; jid: string | null }[] = data.data
  return answers.filter((a) => a.onWhatsApp).map((a) => a.number)
}

export async function blocksAndProfiles(): Promise<string | null> {
  const blocked = await client.POST("/v1/contacts/block", { body: { fromPhoneId: "+14155550123", contact: "+14155550199" } })
  const isBlocked: boolean | undefined = blocked.data?.data.blocked
  await client.POST("/v1/contacts/unblock", { body: { fromPhoneId: "+14155550123", contact: "123456789012345@lid" } })
  const list = await client.GET("/v1/contacts/blocked", { params: { query: { fromPhoneId: "+14155550123" } } })
  const contacts: string[] | undefined = list.data?.data.contacts
  const { data, error } = await client.GET("/v1/contacts/{contact}/profile", { params: { path: { contact: "+14155550199" }, query: { fromPhoneId: "+14155550123" } } })
  if (error) {
    const retryAfter: number | undefined = error.retryAfter
    console.log(retryAfter)
    return null
  }
  const business: { category: string | null; websites: string[] } | null = data.data.business
  console.log(isBlocked, contacts, business, data.data.about, data.data.aboutSetAt, data.data.isBusiness)
  return data.data.pictureUrl
}

export async function actOnMessages(messageId: string, inboundId: string): Promise<void> {
  const reacted = await client.POST("/v1/messages/{messageId}/reaction", { params: { path: { messageId } }, body: { emoji: "👍" } })
  const emoji: string | undefined = reacted.data?.data.emoji
  const edited = await client.PATCH("/v1/messages/{messageId}", { params: { path: { messageId } }, body: { content: "Updated" } })
  // Beyond the seed, so optional: a client of the seed's contract sees no change.
  const editedAt: string | null | undefined = edited.data?.data.editedAt
  const revoked = await client.DELETE("/v1/messages/{messageId}", { params: { path: { messageId } } })
  const revokedAt: string | null | undefined = revoked.data?.data.revokedAt
  const read = await client.POST("/v1/messages/inbound/{messageId}/read", { params: { path: { messageId: inboundId } } })
  const markedRead: number | undefined = read.data?.data.markedRead
  console.log(emoji, editedAt, revokedAt, markedRead)
}

export async function pollsAndVotes(messageId: string, inboundId: string): Promise<string[]> {
  const sent = await client.POST("/v1/messages/send", {
    body: { fromPhoneId: "+14155550123", to: "+14155550199", poll: { question: "Lunch?", options: ["Pizza", "Soup"], multipleAnswers: true } },
  })
  const asSent: { question: string; options: string[]; multipleAnswers: boolean } | null | undefined = sent.data?.data.poll
  const ours = await client.GET("/v1/messages/{messageId}/poll", { params: { path: { messageId } } })
  const tally: { name: string; votes: number }[] = ours.data?.data.options ?? []
  const theirs = await client.GET("/v1/messages/inbound/{messageId}/poll", { params: { path: { messageId: inboundId } } })
  const voters: { voter: string; options: string[]; at: string }[] = theirs.data?.data.voters ?? []
  const voted = await client.POST("/v1/messages/inbound/{messageId}/vote", { params: { path: { messageId: inboundId } }, body: { options: ["Soup"] } })
  const multiple: boolean | undefined = voted.data?.data.multipleAnswers
  console.log(asSent, voters, multiple)
  return tally.map((o) => o.name + ": " + String(o.votes))
}

export async function readBackWhatWasSent(messageId: string): Promise<string> {
  const got = await client.GET("/v1/messages/{messageId}", { params: { path: { messageId } } })
  const m = got.data?.data
  const place: { latitude: number; longitude: number; name?: string } | null | undefined = m?.location
  const card: { name: string; phoneNumbers: string[] } | null | undefined = m?.contact
  const mentions: string[] | null | undefined = m?.mentions
  const voiceNote: boolean | null | undefined = m?.voiceNote
  return [place?.name, card?.name, mentions?.join(","), voiceNote].join(" ")
}

export async function inboundRicher(): Promise<Blob | null> {
  const got = await client.GET("/v1/messages/inbound/{messageId}", { params: { path: { messageId: "inmsg_x" } } })
  if (got.error) return null
  const m = got.data.data
  const size: number | undefined = m.media?.size
  const replyTo: string | null | undefined = m.replyTo
  const latitude: number | undefined = m.location?.latitude
  const numbers: string[] | undefined = m.contact?.phoneNumbers
  // A sender known only by LID may come with its WhatsApp username (docs/api.md § "Inbound messages").
  const username: string | null | undefined = m.fromUsername
  console.log(size, replyTo, latitude, numbers, username)
  const file = await client.GET("/v1/messages/inbound/{messageId}/media", { params: { path: { messageId: m.id } }, parseAs: "blob" })
  if (file.error) {
    const problems: string[] = file.error.message
    console.log(problems)
    return null
  }
  return file.data
}

export async function ownProfile(): Promise<string | null> {
  // The phone's own profile and picture, and a group's (docs/api.md § "Pictures and the phone's own profile").
  const set = await client.PUT("/v1/phone-numbers/{id}/picture", { params: { path: { id: "+14155550123" } }, body: { mediaUrl: "https://example.com/logo.png" } })
  const pictureUrl: string | null | undefined = set.data?.data.pictureUrl
  const patched = await client.PATCH("/v1/phone-numbers/{id}/profile", { params: { path: { id: "+14155550123" } }, body: { name: "Acme", about: "Hi" } })
  const about: string | null | undefined = patched.data?.data.about
  const removed = await client.DELETE("/v1/phone-numbers/{id}/picture", { params: { path: { id: "+14155550123" } } })
  const jpeg = await client.GET("/v1/phone-numbers/{id}/picture", { params: { path: { id: "+14155550123" } }, parseAs: "blob" })
  const group = await client.PUT("/v1/groups/{groupId}/picture", { params: { path: { groupId: "120363000000000001@g.us" } }, body: { fromPhoneId: "+14155550123", mediaUrl: "https://example.com/team.jpg" } })
  const groupPicture: string | null | undefined = group.data?.data.pictureUrl
  await client.DELETE("/v1/groups/{groupId}/picture", { params: { path: { groupId: "120363000000000001@g.us" } }, body: { fromPhoneId: "+14155550123" } })
  console.log(pictureUrl, about, removed.data?.data.pictureSetAt, jpeg.data, groupPicture)
  return patched.data?.data.name ?? null
}

export async function nodesWithTheirPhones(): Promise<string[]> {
  const admin = createClient<paths>({ baseUrl: "http://127.0.0.1:3000", headers: { Authorization: "Bearer adm_x" } })
  const { data } = await admin.GET("/admin/v1/nodes", { params: { query: { phones: "true" } } })
  if (!data) return []
  const store: "sqlite" | "postgres" = data.data.store
  const explanation: string | null = data.data.explanation
  const state: "live" | "stopping" | "silent" | undefined = data.data.nodes[0]?.state
  const tokens: number[] = data.data.nodes.flatMap((n) => (n.leases ?? []).map((l) => l.token))
  console.log(store, explanation, state, tokens)
  return data.data.nodes.map((n) => n.nodeId)
}

export async function calls(callId: string): Promise<boolean> {
  const rejected = await client.POST("/v1/calls/{callId}/reject", { params: { path: { callId } }, body: { fromPhoneId: "+14155550123" } })
  if (rejected.error) {
    const problems: string[] = rejected.error.message
    console.log(problems)
  }
  const admin = createClient<paths>({ baseUrl: "http://127.0.0.1:3000", headers: { Authorization: "Bearer adm_x" } })
  const set = await admin.PUT("/admin/v1/phones/{phoneId}/call-policy", { params: { path: { phoneId: "+14155550123" } }, body: { rejectCalls: true, replyText: "Please write to us" } })
  const replyText: string | null | undefined = set.data?.data.replyText
  const got = await admin.GET("/admin/v1/phones/{phoneId}/call-policy", { params: { path: { phoneId: "+14155550123" } } })
  const rejectCalls: boolean | undefined = got.data?.data.rejectCalls
  console.log(replyText)
  return rejectCalls === true && rejected.response.status === 204
}

export function onCallEvents(received: components["schemas"]["CallReceivedEventData"], ended: components["schemas"]["CallEndedEventData"]): string {
  const video: boolean = received.isVideo
  const outcome: "missed" | "rejected" | "answered_elsewhere" = ended.outcome
  return \`\${received.callId} \${video} \${outcome}\`
}

// The sandbox answering back (docs/api.md § "Sandbox inbound and calls"): a contact's message, reaction, vote and call.
export async function sandboxAnswersBack(ourMessageId: string, pollId: string): Promise<string | null> {
  const from = "+14155550199"
  const text = await client.POST("/v1/sandbox/inbound", { body: { fromPhoneId: "+14155550123", from, content: "Yes, at 10", replyTo: ourMessageId } })
  if (text.error) return text.error.message.join("; ")
  const inboundId: string | undefined = text.data.data.message?.id
  const quoted: string | null | undefined = text.data.data.message?.replyTo
  const location = await client.POST("/v1/sandbox/inbound", { body: { fromPhoneId: "+14155550123", from, location: { latitude: 52.5, longitude: 13.4, name: "Gate" } } })
  const reaction = await client.POST("/v1/sandbox/inbound", { body: { fromPhoneId: "+14155550123", from, reaction: { messageId: ourMessageId, emoji: "👍" } } })
  const emoji: string | undefined = reaction.data?.data.reaction?.emoji
  const vote = await client.POST("/v1/sandbox/inbound", { body: { fromPhoneId: "+14155550123", from, pollVote: { messageId: pollId, options: ["Pizza"] } } })
  const votes: number | undefined = vote.data?.data.pollVote?.poll.options[0]?.votes
  const call = await client.POST("/v1/sandbox/calls", { body: { fromPhoneId: "+14155550123", from, isVideo: false } })
  const status: "ringing" | "ended" | undefined = call.data?.data.status
  const replySent: boolean | undefined = call.data?.data.replySent
  if (call.data) await client.POST("/v1/calls/{callId}/reject", { params: { path: { callId: call.data.data.callId } }, body: { fromPhoneId: "+14155550123" } })
  // @ts-expect-error a reaction names the message it reacts to
  await client.POST("/v1/sandbox/inbound", { body: { fromPhoneId: "+14155550123", from, reaction: { emoji: "👍" } } })
  // @ts-expect-error isVideo is true or false
  await client.POST("/v1/sandbox/calls", { body: { fromPhoneId: "+14155550123", from, isVideo: "yes" } })
  console.log(quoted, location.data?.data.message?.location, emoji, votes, status, replySent)
  return inboundId ?? null
}

/** A receiver of the group events (docs/webhooks.md § "Group events"), typed from the document's webhooks. */
type GroupJoined = components["schemas"]["GroupJoinedEventData"]
type GroupParticipants = components["schemas"]["GroupParticipantsEventData"]
type GroupUpdated = components["schemas"]["GroupUpdatedEventData"]
export function onGroupEvent(joined: GroupJoined, members: GroupParticipants, updated: GroupUpdated): string[] {
  const subject: string = joined.subject
  const by: string | null = members.by
  const action: "added" | "removed" | "left" | "promoted" | "demoted" | "requested" = members.action
  const who: string[] = members.participants
  const renamed: string | undefined = updated.changes.subject
  const addMode: "admins" | "all" | undefined = updated.changes.memberAddMode
  const timer: number | undefined = updated.changes.ephemeralSeconds
  const picture: "set" | "removed" | undefined = updated.changes.picture
  // @ts-expect-error changes names only the group's settings
  console.log(updated.changes.owner)
  console.log(subject, by, action, renamed, addMode, timer, picture, joined.phoneId, joined.groupId, joined.at)
  return who
}

// Chats and contacts (docs/api.md § "Chats and contacts"): the list, a timeline, a change, contacts, and chat.updated.
export async function readAnInbox(onUpdated: (e: components["schemas"]["ChatUpdatedEventData"]) => void): Promise<string[]> {
  const fromPhoneId = "+14155550123"
  const list = await client.GET("/v1/chats", { params: { query: { fromPhoneId, unread: "true", limit: 20 } } })
  if (list.error) return list.error.message
  const next: string | null = list.data.data.nextCursor
  const first = list.data.data.chats[0]
  const unread: number | undefined = first?.unreadCount
  const preview: string | undefined = first?.lastMessage?.preview
  const muted: string | null | undefined = first?.mutedUntil
  const page = await client.GET("/v1/chats/{chatId}/messages", { params: { path: { chatId: "+14155550199" }, query: { fromPhoneId, limit: 50, ...(next ? { before: next } : {}) } } })
  const origins: ("api" | "received" | "phone" | "history")[] = page.data?.data.messages.map((m) => m.origin) ?? []
  // A photo the phone sent itself is downloaded from its timeline entry (docs/api.md § "Chats and contacts").
  const withMedia = page.data?.data.messages.find((m) => m.media !== null)
  const photo = withMedia
    ? await client.GET("/v1/chats/{chatId}/messages/{messageId}/media", { params: { path: { chatId: "+14155550199", messageId: withMedia.id }, query: { fromPhoneId } }, parseAs: "blob" })
    : null
  const photoBytes: Blob | undefined = photo?.data
  const directions: ("in" | "out")[] = page.data?.data.messages.map((m) => m.direction) ?? []
  const changed = await client.PATCH("/v1/chats/{chatId}", { params: { path: { chatId: "+14155550199" } }, body: { fromPhoneId, archived: true, mutedUntil: null, unread: false } })
  const archived: boolean | undefined = changed.data?.data.archived
  // @ts-expect-error a chat change names its phone
  await client.PATCH("/v1/chats/{chatId}", { params: { path: { chatId: "+14155550199" } }, body: { archived: true } })
  const contacts = await client.GET("/v1/contacts", { params: { query: { fromPhoneId, search: "Ali" } } })
  const names: (string | null)[] = contacts.data?.data.contacts.map((c) => c.name ?? c.pushName) ?? []
  onUpdated({ phoneId: "ph_1", chatId: "+14155550199", changes: { archived: true, mutedUntil: null }, at: "2026-01-01T00:00:00.000Z" })
  const labels = await client.GET("/v1/labels", { params: { query: { fromPhoneId } } })
  const labelNames: string[] = labels.data?.data.labels.map((l) => l.id + " " + l.name + " " + String(l.color)) ?? []
  const onChat: string[] | undefined = first?.labels
  // Labels made and put on chats (docs/api.md § "Labels").
  const made = await client.POST("/v1/labels", { body: { fromPhoneId, name: "Paid", color: 3 } })
  const madeId: string | undefined = made.data?.data.id
  // @ts-expect-error a label has a colour
  await client.POST("/v1/labels", { body: { fromPhoneId, name: "Paid" } })
  const labelled = await client.PUT("/v1/chats/{chatId}/labels", { params: { path: { chatId: "+14155550199" } }, body: { fromPhoneId, labels: madeId ? [madeId] : [] } })
  const nowOn: string[] | undefined = labelled.data?.data.labels
  // @ts-expect-error labels is a list of ids, not one id
  await client.PUT("/v1/chats/{chatId}/labels", { params: { path: { chatId: "+14155550199" } }, body: { fromPhoneId, labels: "4" } })
  console.log(unread, preview, muted, origins, directions, archived, labelNames, onChat, nowOn, photoBytes?.size)
  return names.filter((n): n is string => n !== null)
}

// Event streams (docs/webhooks.md § "Streams"): the stream's filter and resume id, typed; the body is the stream.
export async function eventStream(): Promise<ReadableStream<Uint8Array> | null> {
  const res = await client.GET("/v1/events", {
    params: { query: { types: "message.received,group.*" }, header: { "Last-Event-ID": "evt_01jd0m3k7v5q9z8y6x4w2t0r1p" } },
    parseAs: "stream",
  })
  // @ts-expect-error the stream has no such parameter
  await client.GET("/v1/events", { params: { query: { since: "evt_01jd0m3k7v5q9z8y6x4w2t0r1p" } }, parseAs: "stream" })
  return res.response.body
}

// The WebSocket stream (docs/webhooks.md § "WebSocket"): its query, typed from the document, makes the URL a WebSocket opens.
export function eventSocketUrl(): string {
  type SocketQuery = NonNullable<paths["/v1/events/ws"]["get"]["parameters"]["query"]>
  const query: SocketQuery = { types: "message.received,group.*", after: "evt_01jd0m3k7v5q9z8y6x4w2t0r1p" }
  // @ts-expect-error the socket has no such parameter
  const wrong: SocketQuery = { since: "evt_01jd0m3k7v5q9z8y6x4w2t0r1p" }
  console.log(wrong)
  return "ws://127.0.0.1:3000/v1/events/ws?types=" + encodeURIComponent(query.types ?? "*") + "&after=" + (query.after ?? "")
}

// History on pairing (docs/admin.md § "History on pairing"): a phone's settings, typed.
export async function historySettings(): Promise<number | undefined> {
  const admin = createClient<paths>({ baseUrl: "http://127.0.0.1:3000", headers: { Authorization: "Bearer adm_x" } })
  const set = await admin.PUT("/admin/v1/phones/{phoneId}/history-settings", { params: { path: { phoneId: "+14155550123" } }, body: { historySync: "full", historyDays: 365 } })
  const mode: "none" | "recent" | "full" | undefined = set.data?.data.historySync
  // @ts-expect-error the mode is a closed set
  await admin.PUT("/admin/v1/phones/{phoneId}/history-settings", { params: { path: { phoneId: "ph_1" } }, body: { historySync: "all" } })
  const got = await admin.GET("/admin/v1/phones/{phoneId}/history-settings", { params: { path: { phoneId: "+14155550123" } } })
  console.log(mode)
  return got.data?.data.historyDays
}

// Messages the phone sent itself (docs/webhooks.md § "Chat events"): message.echo's data, typed.
export function onEcho(e: components["schemas"]["MessageEchoEventData"]): string {
  const type: "text" | "image" | "video" | "audio" | "document" | "sticker" | "location" | "contact" | "poll" | "other" = e.type
  // @ts-expect-error an echo has no sender beside its phone
  console.log(e.from)
  return [e.phoneId, e.chatId, e.id, type, e.content, e.at].join(" ")
}

// History on pairing (docs/webhooks.md § "History events"): history.synced's data, typed.
export function onHistorySynced(e: components["schemas"]["HistorySyncedEventData"]): string {
  const complete: boolean = e.complete
  // @ts-expect-error a history chunk's counts are numbers
  const chats: string = e.chats
  return [e.phoneId, e.messages, chats, complete].join(" ")
}

// Groups (docs/api.md § "Groups"): every operation, and what the types refuse.
export async function runAGroup(): Promise<string[]> {
  const created = await client.POST("/v1/groups", {
    body: { fromPhoneId: "+14155550123", subject: "Customers", participants: ["+14155550199", "123456789012345@lid"], description: "News", idempotencyKey: "club-1" },
  })
  if (created.error) return created.error.message
  const replayed: string | null = created.response.headers.get("Idempotent-Replayed")
  const groupId: string = created.data.data.group.id
  const results: ("added" | "removed" | "promoted" | "demoted" | "approved" | "rejected" | "invited" | "not_on_whatsapp" | "not_in_group" | "failed")[] =
    created.data.data.results.map((r) => r.result)
  const errorCode: string | undefined = created.data.data.results[0]?.errorCode
  const path = { groupId }
  const detail = await client.GET("/v1/groups/{groupId}", { params: { path, query: { fromPhoneId: "+14155550123" } } })
  const settings: { announce: boolean; locked: boolean; memberAddMode: "admins" | "all"; approvalMode: boolean; ephemeralSeconds: number } | undefined = detail.data?.data.settings
  const admins: string[] | undefined = detail.data?.data.participants.filter((p) => p.isAdmin || p.isSuperAdmin).map((p) => p.phoneNumber ?? p.lid ?? p.id)
  const pictureUrl: string | null | undefined = detail.data?.data.pictureUrl
  const updated = await client.PATCH("/v1/groups/{groupId}", {
    params: { path },
    body: { fromPhoneId: "+14155550123", subject: "Customers (EU)", announce: true, locked: false, memberAddMode: "all", approvalMode: true, ephemeralSeconds: 604800 },
  })
  const subject: string | undefined = updated.data?.data.name
  const acted = await client.POST("/v1/groups/{groupId}/participants", { params: { path }, body: { fromPhoneId: "+14155550123", action: "promote", participants: ["+14155550199"] } })
  const promoted: number | undefined = acted.data?.data.results.filter((r) => r.result === "promoted").length
  const invite = await client.GET("/v1/groups/{groupId}/invite", { params: { path, query: { fromPhoneId: "+14155550123" } } })
  const renewed = await client.DELETE("/v1/groups/{groupId}/invite", { params: { path }, body: { fromPhoneId: "+14155550123" } })
  const links: (string | undefined)[] = [invite.data?.data.url, renewed.data?.data.code]
  const joined = await client.POST("/v1/groups/join", { body: { fromPhoneId: "+14155550123", invite: "https://chat.whatsapp.com/AbCdEfGhIjKlMnOpQrStUv" } })
  // 200 with the group, or 202 when the admins approve joins.
  const answer = joined.data?.data
  const joinedAs: string | undefined = answer && "id" in answer ? answer.id : undefined
  const requested: boolean = answer !== undefined && "status" in answer && answer.status === "requested"
  const left = await client.POST("/v1/groups/{groupId}/leave", { params: { path }, body: { fromPhoneId: "+14155550123" } })
  const leftStatus: number = left.response.status
  console.log(replayed, results, errorCode, settings, admins, pictureUrl, subject, promoted, links, joinedAs, requested, leftStatus)
  return []
}

export async function groupsRefusedByTheTypes(): Promise<void> {
  // @ts-expect-error participants are a list
  await client.POST("/v1/groups", { body: { fromPhoneId: "+14155550123", subject: "Club", participants: "+14155550199" } })
  // @ts-expect-error a create needs a subject
  await client.POST("/v1/groups", { body: { fromPhoneId: "+14155550123", participants: ["+14155550199"] } })
  // @ts-expect-error memberAddMode is admins or all
  await client.PATCH("/v1/groups/{groupId}", { params: { path: { groupId: "1@g.us" } }, body: { fromPhoneId: "+14155550123", memberAddMode: "everyone" } })
  // @ts-expect-error the action is a closed set
  await client.POST("/v1/groups/{groupId}/participants", { params: { path: { groupId: "1@g.us" } }, body: { fromPhoneId: "+14155550123", action: "kick", participants: ["+14155550199"] } })
  // @ts-expect-error a join needs the invite
  await client.POST("/v1/groups/join", { body: { fromPhoneId: "+14155550123" } })
}

export async function refusedByTheTypes(): Promise<void> {
  // @ts-expect-error rejectCalls is true or false
  await client.PUT("/admin/v1/phones/{phoneId}/call-policy", { params: { path: { phoneId: "ph_1" } }, body: { rejectCalls: "on" } })
  // @ts-expect-error emoji is a string
  await client.POST("/v1/messages/{messageId}/reaction", { params: { path: { messageId: "msg_1" } }, body: { emoji: 1 } })
  // @ts-expect-error an edit carries content
  await client.PATCH("/v1/messages/{messageId}", { params: { path: { messageId: "msg_1" } }, body: {} })
  // @ts-expect-error numbers is a list of strings
  await client.POST("/v1/contacts/check", { body: { fromPhoneId: "+14155550123", numbers: "+14155550199" } })
  // @ts-expect-error content is a string
  await client.POST("/v1/messages/send", { body: { fromPhoneId: "+14155550123", to: "+14155550199", content: 5 } })
  // @ts-expect-error a message needs content or media
  await client.POST("/v1/messages/send", { body: { fromPhoneId: "+14155550123", to: "+14155550199" } })
  // @ts-expect-error a location needs its coordinates
  await client.POST("/v1/messages/send", { body: { fromPhoneId: "+14155550123", to: "+14155550199", location: { name: "somewhere" } } })
  // @ts-expect-error a contact's numbers are a list
  await client.POST("/v1/messages/send", { body: { fromPhoneId: "+14155550123", to: "+14155550199", contact: { name: "Bo", phoneNumbers: "+14155550123" } } })
  // @ts-expect-error a picture is set from one mediaUrl
  await client.PUT("/v1/phone-numbers/{id}/picture", { params: { path: { id: "+14155550123" } }, body: { mediaUrls: ["https://example.com/a.png"] } })
  // @ts-expect-error phones is "true" or "false"
  await client.GET("/admin/v1/nodes", { params: { query: { phones: 1 } } })
  const inbound = await client.GET("/v1/messages/inbound/{messageId}", { params: { path: { messageId: "inmsg_x" } } })
  // @ts-expect-error a username is text or null
  const username: number | undefined = inbound.data?.data.fromUsername
  console.log(username)
  // @ts-expect-error the status filter is a closed set
  await client.GET("/v1/messages", { params: { query: { status: "lost" } } })
}
`

let h: Harness
let dir: string
let generated: string
beforeAll(async () => {
  h = await createHarness()
  const doc = (await h.request("GET", "/openapi.json")).body
  generated = astToString(await openapiTS(doc))
  dir = mkdtempSync(join(tmpdir(), "wagate-client-"))
  writeFileSync(join(dir, "schema.d.ts"), generated)
  writeFileSync(join(dir, "program.ts"), PROGRAM)
  writeFileSync(
    join(dir, "tsconfig.json"),
    JSON.stringify({
      compilerOptions: {
        strict: true,
        noEmit: true,
        target: "ES2022",
        module: "Preserve",
        moduleResolution: "bundler",
        lib: ["ES2022", "DOM"],
        types: [],
        // The temporary directory has no node_modules: the client library comes from ours.
        paths: { "openapi-fetch": [join(REPO, "node_modules", "openapi-fetch")] },
      },
      files: ["program.ts", "schema.d.ts"],
    }),
  )
}, GENERATE_TIMEOUT_MS)
afterAll(async () => {
  await h.close()
  rmSync(dir, { recursive: true, force: true })
})

describe("a typed client generated from the document", () => {
  test(
    "a program using openapi-fetch type-checks under --strict with no casts",
    async () => {
      expect(PROGRAM).not.toMatch(/\bas\s+[A-Za-z{[]|<[A-Z]\w*>\s*\w/)
      const proc = Bun.spawn([TSC, "-p", join(dir, "tsconfig.json"), "--strict", "--noEmit"], { stdout: "pipe", stderr: "pipe" })
      const [out, err] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()])
      expect({ exitCode: await proc.exited, out, err }).toEqual({ exitCode: 0, out: "", err: "" })
    },
    TSC_TIMEOUT_MS,
  )

  test("the generated Message has every field of the spec, then the optional ones beyond it", () => {
    const message = /^ {8}Message: \{\n([\s\S]*?)^ {8}\};/m.exec(generated)?.[1] ?? ""
    const fields = [...message.matchAll(/^ {12}(\w+)\??:/gm)].map((m) => m[1])
    expect(fields).toEqual([...MESSAGE_FIELDS, ...BEYOND_SEED_MESSAGE_FIELDS])
  })
})
