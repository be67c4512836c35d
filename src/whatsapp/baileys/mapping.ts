import type { DisconnectReason, GroupInfo, InboundMessage, InboundSender, PartRejection } from "../gateway"
import { pushNameFromOutside, usernameFromOutside } from "../../lib/wa-username"
import type { PresenceState, ReceiptKind } from "../../lib/vocabulary"
import { mapDetails, type DetailsContentLike } from "./inbound-details"

/*
 * Pure translations from Baileys payloads to wagate's vocabulary: no socket, no clock, no I/O
 * (the one lookup that needs Baileys, LID → phone number, is injected). The input types below
 * are the structural subsets of Baileys' types that the mapping reads, so live Baileys objects and
 * JSON fixtures both fit. Nothing here imports Baileys at run time: the gateway imports this file
 * eagerly, and Baileys must load only when a phone connects.
 */

// ---------------------------------------------------------------------------------------------
// JIDs (the same rules as Baileys' jidDecode / areJidsSameUser, without loading Baileys)

/** A JID split into its parts: `user[_agent][:device]@server`. */
export interface DecodedJid {
  user: string
  server: string
  device: number | null
}

/** Splits a JID; null when it has no `@`. */
export function decodeJid(jid: string | null | undefined): DecodedJid | null {
  if (!jid) return null
  const at = jid.indexOf("@")
  if (at < 0) return null
  const server = jid.slice(at + 1)
  const [userAgent = "", device] = jid.slice(0, at).split(":")
  return { user: userAgent.split("_")[0]!, server, device: device === undefined ? null : Number(device) }
}

/** True when both JIDs name the same user, whatever the device (Baileys' areJidsSameUser). */
export function sameUser(a: string | null | undefined, b: string | null | undefined): boolean {
  const da = decodeJid(a)
  const db = decodeJid(b)
  return !!da && !!db && da.user === db.user
}

/** A phone-number JID of a WhatsApp user (`…@s.whatsapp.net`). */
export function isPnJid(jid: string | null | undefined): jid is string {
  return !!jid && jid.endsWith("@s.whatsapp.net")
}

/** A LID JID, the opaque id WhatsApp uses when it hides the number (`…@lid`). */
export function isLidJid(jid: string | null | undefined): jid is string {
  return !!jid && jid.endsWith("@lid")
}

/** A group JID (`…@g.us`). */
export function isGroupJid(jid: string | null | undefined): jid is string {
  return !!jid && jid.endsWith("@g.us")
}

/** Status updates, broadcast lists and newsletters: never a conversation wagate records. */
export function isIgnoredJid(jid: string | null | undefined): boolean {
  return !!jid && (jid.endsWith("@broadcast") || jid.endsWith("@newsletter"))
}

/** `+<digits>` from a phone-number JID (device and agent dropped). */
export function e164FromPnJid(jid: string): string {
  return `+${decodeJid(jid)!.user}`
}

/** A JID without its device part, as `jidNormalizedUser` would print it. */
export function normalizeUserJid(jid: string): string {
  const d = decodeJid(jid)
  return d ? `${d.user}@${d.server}` : jid
}

// ---------------------------------------------------------------------------------------------
// Timestamps

/** A protobuf Long as it travels (the `long` package) or as JSON fixtures hold it. */
export interface LongLike {
  low: number
  high: number
  unsigned?: boolean
}

/** A WhatsApp timestamp in seconds, in every shape Baileys hands out. */
export type WaSeconds = number | string | LongLike | null | undefined

/** Seconds (number, numeric string or Long) → epoch ms; null when absent, zero or unreadable. */
export function secondsToMs(value: WaSeconds): number | null {
  let seconds: number
  if (typeof value === "number") seconds = value
  else if (typeof value === "string") seconds = Number(value)
  else if (value && typeof value === "object" && typeof value.low === "number" && typeof value.high === "number") {
    seconds = value.high * 4_294_967_296 + (value.low >>> 0)
  } else return null
  return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : null
}

/**
 * The time of a receipt: WhatsApp's own timestamp (exact for receipts that waited offline),
 * never later than now, so a server clock ahead of ours cannot put an event in the future.
 */
export function receiptAtMs(value: WaSeconds, nowMs: number): number {
  const ms = secondsToMs(value)
  return ms === null ? nowMs : Math.min(ms, nowMs)
}

// ---------------------------------------------------------------------------------------------
// Disconnects

/** How a session should react to a close, decided from WhatsApp's status code. */
export interface DisconnectDecision {
  reason: DisconnectReason
  /** Reconnecting cannot help (and for 440 would ping-pong with the other instance). */
  terminal: boolean
  /** Open a new socket at once, without backoff (515 after pairing). */
  restartNow: boolean
}

/** The Boom status code of a close error (`lastDisconnect.error.output.statusCode`), or null. */
export function closeStatusCode(error: unknown): number | null {
  const code = (error as { output?: { statusCode?: unknown } } | null | undefined)?.output?.statusCode
  return typeof code === "number" ? code : null
}

/** The close status codes that never loop (docs/decisions.md § "Phones, groups, account and usage"), with their reason. */
export const TERMINAL_CLOSE_CODES: ReadonlyMap<number, DisconnectReason> = new Map<number, DisconnectReason>([
  [401, "logged_out"],
  [403, "forbidden"],
  [405, "outdated_version"],
  [411, "multidevice_mismatch"],
  [419, "logged_out"],
  [440, "replaced"],
])

/** The message of a close error, or "" (Baileys' Boom messages tell apart closes that share a code). */
export function closeMessage(error: unknown): string {
  const message = (error as { message?: unknown } | null | undefined)?.message
  return typeof message === "string" ? message : ""
}

/** Baileys ends an unpaired socket with this (code 408) once the server's pairing refs are used up. */
const PAIRING_REFS_ENDED = /QR refs attempts ended/i

/**
 * Maps a close to a reason. A 408 is ambiguous: the network (a keepalive miss, a refused
 * connection) or, on a socket that shows a QR or a pairing code, the pairing refs running out,
 * which is final until someone asks to pair again; Baileys' message tells them apart.
 * `closedByUs` wins over any code, because close() and logout() end the socket with codes of
 * their own.
 */
export function decideDisconnect(input: { statusCode: number | null; message?: string; pairing: boolean; closedByUs: boolean }): DisconnectDecision {
  const { statusCode, pairing, closedByUs } = input
  if (closedByUs) return { reason: "closed_by_us", terminal: true, restartNow: false }
  if (statusCode === 515) return { reason: "restart_required", terminal: false, restartNow: true }
  const terminal = statusCode === null ? undefined : TERMINAL_CLOSE_CODES.get(statusCode)
  if (terminal) return { reason: terminal, terminal: true, restartNow: false }
  if (statusCode === 408 && pairing && PAIRING_REFS_ENDED.test(input.message ?? "")) {
    return { reason: "pairing_expired", terminal: true, restartNow: false }
  }
  if (statusCode === 500) return { reason: "bad_session", terminal: false, restartNow: false }
  // 408 (keepalive, refused connection), 428 (socket closed), 503 (server), unknown codes and none at all: the network.
  return { reason: "connection_lost", terminal: false, restartNow: false }
}

// ---------------------------------------------------------------------------------------------
// Outbound status: server acks, receipts, rejections

/** What WhatsApp said about one of our parts. */
export type OutboundSignal =
  | { kind: "acked"; waMessageId: string; atMs: number }
  | { kind: "rejected"; waMessageId: string; rejection: PartRejection; atMs: number }
  | { kind: "receipt"; waMessageId: string; receipt: ReceiptKind; atMs: number }

/** WhatsApp's error codes that mean more than "rejected": 463 is its restriction on messaging new contacts. */
const REJECTION_CODES: ReadonlyMap<string, PartRejection["code"]> = new Map([["463", "account_restricted"]])

/** WhatsApp's error code of a refused part ("463", "479", …) in wagate's vocabulary. */
export function partRejectionOf(waErrorCode: string): PartRejection {
  return { code: REJECTION_CODES.get(waErrorCode) ?? "whatsapp_rejected", detail: waErrorCode }
}

/** A raw stanza as `sock.ws.on('CB:ack,class:message')` delivers it. */
export interface AckNode {
  tag: string
  attrs: Record<string, string | undefined>
}

/**
 * Maps the server's `<ack class="message">`: without `error` it is the "sent" signal (Baileys
 * emits no event for it); with `error` ("463", "479", …) WhatsApp refused the message. The time
 * is ours (`nowMs`): the ack's `t` has whole seconds and would date the send before the request.
 */
export function mapServerAck(node: AckNode, nowMs: number): OutboundSignal | null {
  if (node.tag !== "ack" || node.attrs.class !== "message") return null
  const waMessageId = node.attrs.id
  if (!waMessageId) return null
  const error = node.attrs.error
  if (error) return { kind: "rejected", waMessageId, rejection: partRejectionOf(error), atMs: nowMs }
  return { kind: "acked", waMessageId, atMs: nowMs }
}

/** The key fields the mapping reads (Baileys' WAMessageKey). */
export interface KeyLike {
  remoteJid?: string | null
  remoteJidAlt?: string | null
  fromMe?: boolean | null
  id?: string | null
  participant?: string | null
  participantAlt?: string | null
  /** The 1:1 peer's username (`peer_recipient_username`/`recipient_username`, WhiskeySockets/Baileys#2480). */
  remoteJidUsername?: string | null
  /** A group author's username (`participant_username`, WhiskeySockets/Baileys#2480). */
  participantUsername?: string | null
}

/** `proto.WebMessageInfo.Status`. */
export const WA_STATUS = { ERROR: 0, PENDING: 1, SERVER_ACK: 2, DELIVERY_ACK: 3, READ: 4, PLAYED: 5 } as const

/** One item of `messages.update`. */
export interface MessageUpdateLike {
  key: KeyLike
  update: { status?: number | null; messageTimestamp?: WaSeconds; messageStubParameters?: (string | null)[] | null }
}

/** A status (and its error parameters) as a signal; PENDING and SERVER_ACK say nothing new. */
function statusSignal(
  waMessageId: string,
  status: number | null | undefined,
  stubParameters: (string | null)[] | null | undefined,
  atMs: number,
): OutboundSignal | null {
  switch (status) {
    case WA_STATUS.ERROR:
      return { kind: "rejected", waMessageId, rejection: partRejectionOf(stubParameters?.[0] || "unknown"), atMs }
    case WA_STATUS.DELIVERY_ACK:
      return { kind: "receipt", waMessageId, receipt: "delivered", atMs }
    // Played (voice notes) implies read.
    case WA_STATUS.READ:
    case WA_STATUS.PLAYED:
      return { kind: "receipt", waMessageId, receipt: "read", atMs }
    default:
      // PENDING is our own send; SERVER_ACK comes from our other devices ("sender" receipts) and
      // the raw ack already says "sent".
      return null
  }
}

/**
 * Maps `messages.update` (1:1 receipts and error acks). Only our own messages count; a delivery
 * and a read consolidated into one update arrive as status 4 alone, which is a read (the status
 * machine allows sent → read). Matched by id only: `remoteJid` may come back as a LID.
 */
export function mapMessageUpdates(updates: readonly MessageUpdateLike[], nowMs: number): OutboundSignal[] {
  const out: OutboundSignal[] = []
  for (const { key, update } of updates) {
    if (!key.fromMe || !key.id) continue
    const signal = statusSignal(key.id, update.status, update.messageStubParameters, receiptAtMs(update.messageTimestamp, nowMs))
    if (signal) out.push(signal)
  }
  return out
}

/** Baileys' MessageUserReceipt (`proto.IUserReceipt`). */
export interface UserReceiptLike {
  userJid?: string | null
  receiptTimestamp?: WaSeconds
  readTimestamp?: WaSeconds
  playedTimestamp?: WaSeconds
}

/** Signals of one participant's receipt: delivered and read may both be set once consolidated. */
function userReceiptSignals(waMessageId: string, receipt: UserReceiptLike, nowMs: number): OutboundSignal[] {
  const out: OutboundSignal[] = []
  if (secondsToMs(receipt.receiptTimestamp) !== null) {
    out.push({ kind: "receipt", waMessageId, receipt: "delivered", atMs: receiptAtMs(receipt.receiptTimestamp, nowMs) })
  }
  const read = secondsToMs(receipt.readTimestamp) !== null ? receipt.readTimestamp : receipt.playedTimestamp
  if (secondsToMs(read) !== null) out.push({ kind: "receipt", waMessageId, receipt: "read", atMs: receiptAtMs(read, nowMs) })
  return out
}

/** One item of `message-receipt.update` (group receipts, one per participant). */
export interface ReceiptUpdateLike {
  key: KeyLike
  receipt: UserReceiptLike
}

/**
 * Maps group receipts: `receiptTimestamp` → delivered, `readTimestamp` (or played) → read. The
 * status machine keeps the first of each, which is the rule for groups (docs/decisions.md § "Outbound messages").
 */
export function mapReceiptUpdates(updates: readonly ReceiptUpdateLike[], nowMs: number): OutboundSignal[] {
  const out: OutboundSignal[] = []
  for (const { key, receipt } of updates) {
    if (!key.fromMe || !key.id) continue
    out.push(...userReceiptSignals(key.id, receipt, nowMs))
  }
  return out
}

/** A message of `messages.upsert` (Baileys' WAMessage), the fields the mapping reads. */
export interface WaMessageLike {
  key?: KeyLike | null
  message?: MessageContentLike | null
  messageTimestamp?: WaSeconds
  /** The name the sender gave itself (the stanza's `notify`). */
  pushName?: string | null
  status?: number | null
  messageStubType?: number | null
  messageStubParameters?: (string | null)[] | null
  userReceipt?: readonly UserReceiptLike[] | null
}

/** A `messages.upsert` payload. */
export interface UpsertLike {
  type: string
  messages: readonly WaMessageLike[]
}

/**
 * Maps our own messages in an upsert: Baileys folds receipts (and error acks) that arrive while
 * its echo of our send is still buffered into that `append` upsert, as `status` (1:1) and
 * `userReceipt` (groups), instead of emitting them separately.
 */
export function mapOwnUpserts(upsert: UpsertLike, nowMs: number): OutboundSignal[] {
  const out: OutboundSignal[] = []
  for (const msg of upsert.messages) {
    const id = msg.key?.id
    if (!msg.key?.fromMe || !id) continue
    // The folded status has no time of its own (messageTimestamp is the send's): it is now.
    const signal = statusSignal(id, msg.status, msg.messageStubParameters, nowMs)
    if (signal) out.push(signal)
    for (const receipt of msg.userReceipt ?? []) out.push(...userReceiptSignals(id, receipt, nowMs))
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// Inbound messages

/** A media sub-message; only the caption matters here. */
interface CaptionedLike {
  caption?: string | null
}

/** A wrapper holding another message (ephemeral, view-once, document with caption, edited, …). */
interface FutureProofLike {
  message?: MessageContentLike | null
}

/** The fields of `proto.IMessage` the mapping reads. */
export interface MessageContentLike {
  conversation?: string | null
  extendedTextMessage?: { text?: string | null } | null
  imageMessage?: CaptionedLike | null
  videoMessage?: CaptionedLike | null
  ptvMessage?: CaptionedLike | null
  audioMessage?: object | null
  documentMessage?: CaptionedLike | null
  stickerMessage?: object | null
  locationMessage?: { name?: string | null; address?: string | null } | null
  liveLocationMessage?: { caption?: string | null } | null
  contactMessage?: { displayName?: string | null } | null
  contactsArrayMessage?: { displayName?: string | null } | null
  pollCreationMessage?: { name?: string | null } | null
  pollCreationMessageV2?: { name?: string | null } | null
  pollCreationMessageV3?: { name?: string | null } | null
  protocolMessage?: object | null
  secretEncryptedMessage?: object | null
  reactionMessage?: object | null
  encReactionMessage?: object | null
  pollUpdateMessage?: object | null
  keepInChatMessage?: object | null
  pinInChatMessage?: object | null
  senderKeyDistributionMessage?: object | null
  messageContextInfo?: object | null
  ephemeralMessage?: FutureProofLike | null
  viewOnceMessage?: FutureProofLike | null
  viewOnceMessageV2?: FutureProofLike | null
  viewOnceMessageV2Extension?: FutureProofLike | null
  documentWithCaptionMessage?: FutureProofLike | null
  editedMessage?: FutureProofLike | null
  associatedChildMessage?: FutureProofLike | null
  groupStatusMessage?: FutureProofLike | null
  groupStatusMessageV2?: FutureProofLike | null
}

const WRAPPERS = [
  "ephemeralMessage",
  "viewOnceMessage",
  "documentWithCaptionMessage",
  "viewOnceMessageV2",
  "viewOnceMessageV2Extension",
  "editedMessage",
  "associatedChildMessage",
  "groupStatusMessage",
  "groupStatusMessageV2",
] as const

/** Unwraps ephemeral, view-once, document-with-caption and edited wrappers (Baileys' normalizeMessageContent). */
export function unwrapContent(content: MessageContentLike | null | undefined): MessageContentLike | null {
  let current = content ?? null
  // Bounded like Baileys: a malicious nesting cannot spin.
  for (let i = 0; i < 5 && current; i++) {
    const wrapper = WRAPPERS.map((k) => current![k]).find((w) => w)
    if (!wrapper) break
    current = wrapper.message ?? null
  }
  return current
}

/** Content that is not a message to the user: edits and deletes, reactions, poll votes, pins. */
const NOT_USER_CONTENT = [
  "protocolMessage",
  // An encrypted edit (message-secrets.ts): never a message of its own, decrypted or not.
  "secretEncryptedMessage",
  "reactionMessage",
  "encReactionMessage",
  "pollUpdateMessage",
  "keepInChatMessage",
  "pinInChatMessage",
] as const

/** Fields present on messages that carry no content of their own. */
const CARRIER_ONLY = new Set(["senderKeyDistributionMessage", "messageContextInfo"])

/** The spec's type and content of a message, or null when it is not user content. */
export function mapContent(raw: MessageContentLike | null | undefined): { type: InboundMessage["type"]; content: string } | null {
  const c = unwrapContent(raw)
  if (!c) return null
  if (NOT_USER_CONTENT.some((k) => c[k])) return null
  if (typeof c.conversation === "string") return { type: "text", content: c.conversation }
  if (c.extendedTextMessage) return { type: "text", content: c.extendedTextMessage.text ?? "" }
  if (c.imageMessage) return { type: "image", content: c.imageMessage.caption ?? "" }
  const video = c.videoMessage ?? c.ptvMessage
  if (video) return { type: "video", content: video.caption ?? "" }
  // Voice notes (ptt) are audio too; audio has no caption.
  if (c.audioMessage) return { type: "audio", content: "" }
  if (c.documentMessage) return { type: "document", content: c.documentMessage.caption ?? "" }
  if (c.stickerMessage) return { type: "sticker", content: "" }
  if (c.locationMessage) return { type: "location", content: c.locationMessage.name ?? c.locationMessage.address ?? "" }
  if (c.liveLocationMessage) return { type: "location", content: c.liveLocationMessage.caption ?? "" }
  if (c.contactMessage) return { type: "contact", content: c.contactMessage.displayName ?? "" }
  if (c.contactsArrayMessage) return { type: "contact", content: c.contactsArrayMessage.displayName ?? "" }
  const poll = c.pollCreationMessage ?? c.pollCreationMessageV2 ?? c.pollCreationMessageV3
  if (poll) return { type: "poll", content: poll.name ?? "" }
  // A group's first message carries the sender key beside its content; alone it is no message.
  const present = Object.entries(c).filter(([, v]) => v !== null && v !== undefined).map(([k]) => k)
  if (present.every((k) => CARRIER_ONLY.has(k))) return null
  return { type: "other", content: "" }
}

/** `messageStubType` of a message Baileys could not decrypt (it asks the sender to retry by itself). */
export const STUB_CIPHERTEXT = 2

/** Resolves a LID JID to a phone-number JID through Baileys' LID mapping store; null when unknown. */
export type PnForLid = (lidJid: string) => Promise<string | null>

/**
 * The sender as E.164. A phone-number JID among the author and its alternate (`remoteJidAlt`,
 * `participantAlt`) wins; else the LID is looked up; else the raw LID JID is the answer, because
 * WhatsApp hides the number (docs/decisions.md § "Inbound messages").
 */
export async function senderAddress(key: KeyLike, pnForLid: PnForLid): Promise<string | null> {
  const group = isGroupJid(key.remoteJid)
  const author = group ? key.participant : key.remoteJid
  const alt = group ? key.participantAlt : key.remoteJidAlt
  for (const jid of [author, alt]) if (isPnJid(jid)) return e164FromPnJid(jid)
  const lid = [author, alt].find(isLidJid)
  if (!lid) return author ? normalizeUserJid(author) : null
  const pn = await pnForLid(normalizeUserJid(lid)).catch(() => null)
  return isPnJid(pn) ? e164FromPnJid(pn) : normalizeUserJid(lid)
}

/**
 * What a received message tells about its sender beside `from`: its LID, its number (named by
 * the stanza, or `from` itself), its username and its push name, made safe. A sender WhatsApp
 * names only by LID, with no number anywhere (WhiskeySockets/Baileys#2742), has `phoneNumber`
 * null and `from` its `…@lid`.
 */
function senderOf(key: KeyLike, from: string, pushName: string | null | undefined): InboundSender {
  const group = isGroupJid(key.remoteJid)
  const ids = group ? [key.participant, key.participantAlt] : [key.remoteJid, key.remoteJidAlt]
  const lid = ids.find(isLidJid)
  const pn = ids.find(isPnJid)
  return {
    lid: lid ? normalizeUserJid(lid) : null,
    phoneNumber: from.startsWith("+") ? from : pn ? e164FromPnJid(pn) : null,
    username: usernameFromOutside(group ? key.participantUsername : key.remoteJidUsername),
    pushName: pushNameFromOutside(pushName),
  }
}

/**
 * Maps a `messages.upsert` to inbound messages. Both `notify` (live) and `append` (received
 * while offline) count; our own messages, decryption failures (CIPHERTEXT stubs, retried by
 * Baileys and delivered again), status broadcasts, newsletters and non-content (reactions,
 * edits, poll votes) are skipped. `receivedAtMs` is the message's own timestamp.
 */
export async function mapInboundUpsert(upsert: UpsertLike, ctx: { pnForLid: PnForLid; nowMs: number }): Promise<InboundMessage[]> {
  if (upsert.type !== "notify" && upsert.type !== "append") return []
  const out: InboundMessage[] = []
  for (const msg of upsert.messages) {
    const key = msg.key
    if (!key?.id || key.fromMe || !key.remoteJid || isIgnoredJid(key.remoteJid)) continue
    if (msg.messageStubType === STUB_CIPHERTEXT || !msg.message) continue
    const mapped = mapContent(msg.message)
    if (!mapped) continue
    const from = await senderAddress(key, ctx.pnForLid)
    if (!from) continue
    const isGroup = isGroupJid(key.remoteJid)
    const details = mapDetails(unwrapContent(msg.message) as DetailsContentLike, { remoteJid: key.remoteJid, id: key.id, participant: key.participant })
    out.push({
      waMessageId: key.id,
      from,
      isGroup,
      groupId: isGroup ? key.remoteJid : null,
      type: mapped.type,
      content: mapped.content,
      receivedAtMs: secondsToMs(msg.messageTimestamp) ?? ctx.nowMs,
      details,
      sender: senderOf(key, from, msg.pushName),
    })
  }
  return out
}

// ---------------------------------------------------------------------------------------------
// Groups

/** The fields of Baileys' GroupMetadata the mapping reads. */
export interface GroupMetadataLike {
  id: string
  subject?: string | null
  announce?: boolean | null
  isCommunityAnnounce?: boolean | null
  participants?: readonly { id: string; phoneNumber?: string | null; lid?: string | null; admin?: string | null }[] | null
}

/** The connected account (`sock.user`): its phone-number JID and, in v7, its LID. */
export interface SelfLike {
  id: string
  lid?: string | null
}

/**
 * Maps group metadata as seen by the connected phone. Announcement-only is `announce ||
 * isCommunityAnnounce` (a community's announcement group is admin-only too). Self is found by
 * comparing each participant's id, phone number and LID with our id and LID, because LID-
 * addressed groups list us by LID.
 */
/**
 * WhatsApp's chat state for a presence wagate shows: `composing` is its word for typing. Sent as
 * `<chatstate>`; WhatsApp's apps show it for about 25 s unless it is renewed, or until `paused`
 * or a message ends it.
 */
export function chatStateOf(state: PresenceState): "composing" | "recording" | "paused" {
  return state === "typing" ? "composing" : state
}

export function mapGroup(group: GroupMetadataLike, self: SelfLike): GroupInfo {
  const mine = (jid: string | null | undefined) => !!jid && (sameUser(jid, self.id) || (!!self.lid && sameUser(jid, self.lid)))
  const me = (group.participants ?? []).find((p) => mine(p.id) || mine(p.phoneNumber) || mine(p.lid))
  return {
    id: group.id,
    name: group.subject ?? "",
    announcementOnly: !!group.announce || !!group.isCommunityAnnounce,
    selfIsMember: !!me,
    selfIsAdmin: !!me?.admin,
  }
}

/** Maps `groupFetchAllParticipating()`'s answer (keyed by JID), sorted by id for a stable list. */
export function mapGroups(groups: Readonly<Record<string, GroupMetadataLike>>, self: SelfLike): GroupInfo[] {
  return Object.values(groups)
    .map((g) => mapGroup(g, self))
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
}
