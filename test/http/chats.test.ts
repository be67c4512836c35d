import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { createEndpoint } from "../../src/domain/webhook-endpoints"
import { Chat, ChatList, ContactList, Timeline } from "../../src/http/models/chats"
import type { Environment } from "../../src/lib/vocabulary"
import type { ChatMessageRow } from "../../src/store/chats"
import type { PhoneRow } from "../../src/store/phones"
import { createHarness, expectErrorEnvelope, expectSchema, type Harness } from "../helpers/harness"
import { eventsOf } from "../live/live-helpers"

/* GET /v1/chats, GET /v1/chats/{chatId}/messages, PATCH /v1/chats/{chatId} and GET /v1/contacts (docs/api.md § "Chats and contacts"). */

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

const ALICE = "+14155550166"
const BOB = "+14155550177"
const enc = encodeURIComponent

async function send(key: string, phone: PhoneRow, to: string, content: string): Promise<string> {
  const res = await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to, content } })
  expect(res.status).toBe(201)
  return res.body.data.id
}

/** Records a message a contact sent, as the receiver (live, or the sandbox's inbound route) records one. */
async function receive(phone: PhoneRow, env: Environment, n: number, from: string, content: string): Promise<string> {
  const now = h.clock.nowMs()
  const id = `inmsg_${String(n).padStart(26, "0")}`
  await h.services.ctx.store.write((q) =>
    q.insertInbound({
      id, accountId: phone.accountId, env, phoneId: phone.id, waMessageId: `WA${n}`, fromAddress: from, fromUsername: null, toNumber: phone.phoneNumber,
      content, type: "text", isGroup: false, groupId: null, receivedAtMs: now, createdAtMs: now, replyToId: null, media: null, mediaGoneAtMs: null,
      location: null, contact: null, editedAtMs: null, revokedAtMs: null,
    }),
  )
  return id
}

function echo(phone: PhoneRow, env: Environment, n: number, chatId: string, atMs: number): ChatMessageRow {
  return {
    id: `wamsg_${String(n).padStart(26, "0")}`, accountId: phone.accountId, env, phoneId: phone.id, waMessageId: `3EB0${n}`, chatId, origin: "phone",
    direction: "out", fromAddress: phone.phoneNumber, type: "text", content: `from the phone ${n}`, media: null, location: null, contact: null, poll: null,
    replyToId: null, status: "sent", editedAtMs: null, revokedAtMs: null, atMs, createdAtMs: atMs,
  }
}

const chatsOf = (key: string, phone: PhoneRow, query = "") => h.request("GET", `/v1/chats?fromPhoneId=${enc(phone.phoneNumber)}${query}`, { key })
const timelineOf = (key: string, phone: PhoneRow, chatId: string, query = "") =>
  h.request("GET", `/v1/chats/${enc(chatId)}/messages?fromPhoneId=${enc(phone.phoneNumber)}${query}`, { key })

describe("success", () => {
  test("a customer's message simulated with POST /v1/sandbox/inbound opens its chat for the test key, unread, with the message last", async () => {
    const { key, phone } = await h.seedTenant()
    await send(key, phone, ALICE, "your order shipped")
    await h.advance(1000)
    const sim = await h.request("POST", "/v1/sandbox/inbound", { key, body: { fromPhoneId: phone.phoneNumber, from: ALICE, content: "thanks!" } })
    expect(sim.status).toBe(201)
    const chat = (await chatsOf(key, phone)).body.data.chats.find((c: { id: string }) => c.id === ALICE)
    expect(chat).toMatchObject({ unreadCount: 1, lastMessage: { direction: "in", preview: "thanks!" } })
    const timeline = (await timelineOf(key, phone, ALICE)).body.data.messages
    expect(timeline.map((m: { direction: string; content: string }) => [m.direction, m.content])).toEqual([["in", "thanks!"], ["out", "your order shipped"]])
  })

  test("sandbox sends and what the sandbox received show as chats, newest activity first, with unread counts and the last message", async () => {
    const { key, phone } = await h.seedTenant()
    await send(key, phone, ALICE, "hello Alice")
    await h.advance(1000)
    await send(key, phone, BOB, "hello Bob")
    await h.advance(1000)
    await receive(phone, "test", 1, ALICE, "hi back")
    const res = await chatsOf(key, phone)
    expect(res.status).toBe(200)
    expectSchema(ChatList, res.body.data)
    expect(res.body.data.chats.map((c: any) => [c.id, c.unreadCount, c.lastMessage.direction, c.lastMessage.preview])).toEqual([
      [ALICE, 1, "in", "hi back"],
      [BOB, 0, "out", "hello Bob"],
    ])
    expect(res.body.data.nextCursor).toBeNull()
    const page1 = await chatsOf(key, phone, "&limit=1")
    const page2 = await chatsOf(key, phone, `&limit=1&cursor=${enc(page1.body.data.nextCursor)}`)
    expect([...page1.body.data.chats, ...page2.body.data.chats].map((c: any) => c.id)).toEqual([ALICE, BOB])
    expect(page2.body.data.nextCursor).toBeNull()
    expect((await chatsOf(key, phone, "&unread=true")).body.data.chats.map((c: any) => c.id)).toEqual([ALICE])
  })

  test("a chat's timeline merges API sends, received messages and the phone's own messages newest first, with reactions, and pages by before", async () => {
    const { key, phone } = await h.seedTenant()
    const sent = await send(key, phone, ALICE, "one")
    await h.advance(1000)
    const received = await receive(phone, "test", 2, ALICE, "two")
    await h.advance(1000)
    await h.services.ctx.store.write((q) => q.recordEchoMessage(echo(phone, "test", 3, ALICE, h.clock.nowMs())))
    await h.request("POST", `/v1/messages/${sent}/reaction`, { key, body: { emoji: "👍" } })
    const res = await timelineOf(key, phone, ALICE)
    expect(res.status).toBe(200)
    expectSchema(Timeline, res.body.data)
    const messages = res.body.data.messages
    expect(messages.map((m: any) => [m.id, m.direction, m.origin, m.content])).toEqual([
      [`wamsg_${"3".padStart(26, "0")}`, "out", "phone", "from the phone 3"],
      [received, "in", "received", "two"],
      [sent, "out", "api", "one"],
    ])
    expect(messages[2]).toMatchObject({ from: phone.phoneNumber, type: "text", status: expect.any(String), reactions: [{ from: phone.phoneNumber, emoji: "👍" }] })
    expect(messages[1]).toMatchObject({ from: ALICE, status: null, reactions: [] })
    const first = await timelineOf(key, phone, ALICE, "&limit=2")
    const rest = await timelineOf(key, phone, ALICE, `&limit=2&before=${enc(first.body.data.nextCursor)}`)
    expect([...first.body.data.messages, ...rest.body.data.messages].map((m: any) => m.id)).toEqual(messages.map((m: any) => m.id))
    expect(rest.body.data.nextCursor).toBeNull()
  })

  test("PATCH with a test key changes the sandbox chat and emits chat.updated naming only what changed", async () => {
    const { account, key, phone } = await h.seedTenant()
    await createEndpoint(h.services.ctx, { accountId: account.id, env: "test", url: "http://127.0.0.1:9/unused", events: ["*"] })
    await receive(phone, "test", 1, ALICE, "hi")
    const res = await h.request("PATCH", `/v1/chats/${enc(ALICE)}`, { key, body: { fromPhoneId: phone.phoneNumber, archived: true, mutedUntil: "2027-01-01T00:00:00.000Z", unread: false } })
    expect(res.status).toBe(200)
    expectSchema(Chat, res.body.data)
    expect(res.body.data).toMatchObject({ id: ALICE, archived: true, pinned: false, unreadCount: 0, mutedUntil: "2027-01-01T00:00:00.000Z" })
    expect((await chatsOf(key, phone, "&archived=false")).body.data.chats).toEqual([])
    expect((await chatsOf(key, phone, "&archived=true")).body.data.chats.map((c: any) => c.id)).toEqual([ALICE])
    const events = eventsOf(h, "chat.updated")
    expect(events.map((e) => e.data)).toEqual([
      { phoneId: phone.id, chatId: ALICE, changes: { archived: true, mutedUntil: "2027-01-01T00:00:00.000Z", unread: false }, at: new Date(h.clock.nowMs()).toISOString() },
    ])
  })

  test("contacts list the senders the sandbox recorded, searchable, with the sandbox phone's blocks", async () => {
    const { key, phone } = await h.seedTenant()
    await receive(phone, "test", 1, ALICE, "hi")
    await receive(phone, "test", 2, BOB, "yo")
    await h.request("POST", "/v1/contacts/block", { key, body: { fromPhoneId: phone.phoneNumber, contact: BOB } })
    const res = await h.request("GET", `/v1/contacts?fromPhoneId=${enc(phone.phoneNumber)}`, { key })
    expect(res.status).toBe(200)
    expectSchema(ContactList, res.body.data)
    expect(res.body.data.contacts).toEqual([
      { id: ALICE, phoneNumber: ALICE, lid: null, name: null, pushName: null, isBusiness: false, blocked: false },
      { id: BOB, phoneNumber: BOB, lid: null, name: null, pushName: null, isBusiness: false, blocked: true },
    ])
    const found = await h.request("GET", `/v1/contacts?fromPhoneId=${enc(phone.phoneNumber)}&search=${enc("555 0177".replace(" ", ""))}`, { key })
    expect(found.body.data.contacts.map((c: any) => c.id)).toEqual([BOB])
  })
})

describe("order and search", () => {
  test("order=unread lists chats with unread messages first and its cursor walks them; search finds a chat by its contact's push name or spaced number", async () => {
    const { key, phone } = await h.seedTenant()
    await receive(phone, "test", 1, ALICE, "unread, older")
    await h.advance(1000)
    await send(key, phone, BOB, "read, newer")
    await h.advance(1000)
    await send(key, phone, "+14155550188", "read, newest")
    const byActivity = (await chatsOf(key, phone)).body.data.chats.map((c: any) => c.id)
    expect(byActivity).toEqual(["+14155550188", BOB, ALICE])
    const res = await chatsOf(key, phone, "&order=unread")
    expect(res.status).toBe(200)
    expectSchema(ChatList, res.body.data)
    expect(res.body.data.chats.map((c: any) => c.id)).toEqual([ALICE, "+14155550188", BOB])
    const page1 = await chatsOf(key, phone, "&order=unread&limit=2")
    const page2 = await chatsOf(key, phone, `&order=unread&limit=2&cursor=${enc(page1.body.data.nextCursor)}`)
    expect([...page1.body.data.chats, ...page2.body.data.chats].map((c: any) => c.id)).toEqual([ALICE, "+14155550188", BOB])
    await h.services.ctx.store.write((q) => q.upsertContacts([{ phoneId: phone.id, env: "test", contactId: BOB, name: "Bob Builder", pushName: "bobby_b", updatedAtMs: h.clock.nowMs() }]))
    expect((await chatsOf(key, phone, "&search=bobby_b")).body.data.chats.map((c: any) => c.id)).toEqual([BOB])
    expect((await chatsOf(key, phone, `&search=${enc("+1 415 555 0166")}`)).body.data.chats.map((c: any) => c.id)).toEqual([ALICE])
    expect((await chatsOf(key, phone, "&search=%25")).body.data.chats).toEqual([])
  })

  test("a search over 100 characters, an unknown order, and a cursor of the other order are 400", async () => {
    const { key, phone } = await h.seedTenant()
    await send(key, phone, ALICE, "a")
    await h.advance(1000)
    await send(key, phone, BOB, "b")
    expectErrorEnvelope(await chatsOf(key, phone, `&search=${"x".repeat(101)}`), 400, "Bad Request")
    expectErrorEnvelope(await chatsOf(key, phone, "&order=name"), 400, "Bad Request")
    const byActivity = (await chatsOf(key, phone, "&limit=1")).body.data.nextCursor as string
    expectErrorEnvelope(await chatsOf(key, phone, `&order=unread&cursor=${enc(byActivity)}`), 400, "Bad Request")
    const unreadFirst = (await chatsOf(key, phone, "&order=unread&limit=1")).body.data.nextCursor as string
    expectErrorEnvelope(await chatsOf(key, phone, `&cursor=${enc(unreadFirst)}`), 400, "Bad Request")
  })
})

describe("errors", () => {
  test("a tampered or foreign cursor is 400 on every paged route", async () => {
    const { key, phone } = await h.seedTenant()
    await send(key, phone, ALICE, "a")
    await h.advance(1000)
    await send(key, phone, BOB, "b")
    const next = (await chatsOf(key, phone, "&limit=1")).body.data.nextCursor as string
    const tampered = `${next.slice(0, 3)}${next[3] === "A" ? "B" : "A"}${next.slice(4)}`
    expectErrorEnvelope(await chatsOf(key, phone, `&cursor=${enc(tampered)}`), 400, "Bad Request")
    expectErrorEnvelope(await chatsOf(key, phone, "&cursor=bm90LWEtY3Vyc29y"), 400, "Bad Request")
    // Well-formed JSON of the right shape, but not a cursor this API made: its digest does not match.
    const forged = `${Buffer.from(JSON.stringify({ a: 1, c: BOB })).toString("base64url")}.AAAAAAAAAAAA`
    expectErrorEnvelope(await chatsOf(key, phone, `&cursor=${enc(forged)}`), 400, "Bad Request")
    expectErrorEnvelope(await timelineOf(key, phone, ALICE, `&before=${enc(next)}`), 400, "Bad Request")
    expectErrorEnvelope(await h.request("GET", `/v1/contacts?fromPhoneId=${enc(phone.phoneNumber)}&cursor=${enc(tampered)}`, { key }), 400, "Bad Request")
  })

  test("an unknown chat is 404, a malformed chat id, an empty PATCH and a bad mutedUntil are 400", async () => {
    const { key, phone } = await h.seedTenant()
    expectErrorEnvelope(await timelineOf(key, phone, ALICE), 404, "Not Found")
    expectErrorEnvelope(await h.request("PATCH", `/v1/chats/${enc(ALICE)}`, { key, body: { fromPhoneId: phone.phoneNumber, pinned: true } }), 404, "Not Found")
    expectErrorEnvelope(await timelineOf(key, phone, "not-a-chat"), 400, "Bad Request")
    await send(key, phone, ALICE, "a")
    expectErrorEnvelope(await h.request("PATCH", `/v1/chats/${enc(ALICE)}`, { key, body: { fromPhoneId: phone.phoneNumber } }), 400, "Bad Request")
    expectErrorEnvelope(await h.request("PATCH", `/v1/chats/${enc(ALICE)}`, { key, body: { fromPhoneId: phone.phoneNumber, mutedUntil: "soon" } }), 400, "Bad Request")
    expectErrorEnvelope(await chatsOf(key, phone, "&archived=yes"), 400, "Bad Request")
  })
})

describe("security", () => {
  test("another account's phone is 404 on every route, and its chats never show", async () => {
    const mine = await h.seedTenant()
    const other = await h.seedTenant()
    await send(other.key, other.phone, ALICE, "theirs")
    expectErrorEnvelope(await chatsOf(mine.key, other.phone), 404, "Not Found")
    expectErrorEnvelope(await timelineOf(mine.key, other.phone, ALICE), 404, "Not Found")
    expectErrorEnvelope(await h.request("PATCH", `/v1/chats/${enc(ALICE)}`, { key: mine.key, body: { fromPhoneId: other.phone.phoneNumber, archived: true } }), 404, "Not Found")
    expectErrorEnvelope(await h.request("GET", `/v1/contacts?fromPhoneId=${enc(other.phone.phoneNumber)}`, { key: mine.key }), 404, "Not Found")
    expect((await chatsOf(mine.key, mine.phone)).body.data.chats).toEqual([])
  })

  test("a live key sees none of the sandbox's chats on the same phone", async () => {
    const { account, key, phone } = await h.seedTenant()
    await send(key, phone, ALICE, "sandbox")
    const live = await h.seedKey(account.id, { env: "live" })
    expect((await chatsOf(live, phone)).body.data.chats).toEqual([])
    expectErrorEnvelope(await timelineOf(live, phone, ALICE), 404, "Not Found")
  })
})

describe("live keys", () => {
  test("PATCH writes the change to WhatsApp's app state with the chat's newest message, then stores it and emits chat.updated", async () => {
    const { account, phone } = await h.seedTenant()
    const live = await h.seedKey(account.id, { env: "live" })
    await createEndpoint(h.services.ctx, { accountId: account.id, env: "live", url: "http://127.0.0.1:9/unused", events: ["*"] })
    await h.connectPhone(phone)
    await receive(phone, "live", 7, ALICE, "hi")
    const res = await h.request("PATCH", `/v1/chats/${enc(ALICE)}`, { key: live, body: { fromPhoneId: phone.phoneNumber, archived: true, pinned: false } })
    expect(res.status).toBe(200)
    expect(res.body.data).toMatchObject({ id: ALICE, archived: true })
    expect(h.gateway.current(phone.id).chatModifications).toEqual([
      { chatJid: "14155550166@s.whatsapp.net", change: { archived: true, pinned: false }, last: { ref: { chatJid: "14155550166@s.whatsapp.net", waMessageId: "WA7", fromMe: false }, atMs: h.clock.nowMs() } },
    ])
    expect(eventsOf(h, "chat.updated").map((e) => e.data.changes)).toEqual([{ archived: true, pinned: false }])
  })

  test("when WhatsApp does not take the change, PATCH is 502 and the chat and events stay as they were", async () => {
    const { account, phone } = await h.seedTenant()
    const live = await h.seedKey(account.id, { env: "live" })
    await createEndpoint(h.services.ctx, { accountId: account.id, env: "live", url: "http://127.0.0.1:9/unused", events: ["*"] })
    await h.connectPhone(phone)
    await receive(phone, "live", 7, ALICE, "hi")
    h.gateway.current(phone.id).modifyChatError = new Error("App state key not present!")
    const res = await h.request("PATCH", `/v1/chats/${enc(ALICE)}`, { key: live, body: { fromPhoneId: phone.phoneNumber, archived: true } })
    expect(expectErrorEnvelope(res, 502, "Bad Gateway")[0]).toContain("could not be written to WhatsApp's app state")
    expect((await chatsOf(live, phone)).body.data.chats[0].archived).toBe(false)
    expect(eventsOf(h, "chat.updated")).toEqual([])
  })
})
