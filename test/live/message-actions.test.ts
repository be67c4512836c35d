import { afterEach, describe, expect, test } from "bun:test"
import { EDIT_WINDOW_MS } from "../../src/domain/message-actions"
import { READ_RECEIPTS_MAX } from "../../src/domain/inbound-reads"
import { waMessageIdFor } from "../../src/domain/wa-ids"
import { listReactions } from "../../src/store/sqlite/inbound"
import type { FetchMedia } from "../../src/domain/outbound-parts"
import type { InboundMessage } from "../../src/whatsapp/gateway"
import { createHarness, expectErrorEnvelope, type Harness } from "../helpers/harness"
import { eventsOf, iso, liveTenant, mediaFixtures, recordEvents, send } from "./live-helpers"

/*
 * Acting on live messages through the WhatsApp port (docs/api.md § "Act on a message"): which
 * WhatsApp message each action names (chat, id, ours or theirs, a group's author), that nothing
 * is recorded when WhatsApp does not take it, and the read marks of a chat. The same actions
 * against real Baileys and the simulator: test/e2e-live/actions-scenario.ts.
 */

let h: Harness
afterEach(() => h.close())

const react = (key: string, id: string, emoji: string) => h.request("POST", `/v1/messages/${id}/reaction`, { key, body: { emoji } })
const edit = (key: string, id: string, content: string) => h.request("PATCH", `/v1/messages/${id}`, { key, body: { content } })
const revoke = (key: string, id: string) => h.request("DELETE", `/v1/messages/${id}`, { key })
const read = (key: string, id: string) => h.request("POST", `/v1/messages/inbound/${id}/read`, { key })

/** A live tenant with one message sent and acknowledged by WhatsApp. */
async function sentMessage(body: Record<string, unknown> = {}, options: { fetchMedia?: FetchMedia } = {}) {
  h = await createHarness({ fetchMedia: options.fetchMedia })
  const tenant = await liveTenant(h)
  await recordEvents(h, tenant.account.id)
  const res = await send(h, tenant.key, { fromPhoneId: tenant.phone.phoneNumber, to: "+14155550199", content: "Hello", ...body })
  expect(res.status).toBe(201)
  const id: string = res.body.data.id
  await h.settle()
  const session = h.gateway.current(tenant.phone.id)
  for (const { part } of h.gateway.sent) session.ack(part.waMessageId, h.clock.nowMs())
  await h.settle()
  return { ...tenant, id, session }
}

/** Inbound messages delivered to the phone, and their inmsg_ ids in arrival order. */
async function receive(session: ReturnType<Harness["gateway"]["current"]>, key: string, messages: Omit<InboundMessage, "receivedAtMs" | "type">[]) {
  for (const m of messages) session.receive({ ...m, type: "text", receivedAtMs: h.clock.nowMs() })
  await h.settle()
  const list = await h.request("GET", "/v1/messages/inbound?limit=100", { key })
  return (list.body.data.data as { id: string }[]).map((m) => m.id).reverse()
}

describe("live reactions", () => {
  test("to our message: WhatsApp gets our text part's key in the recipient's chat; message.reaction from our phone", async () => {
    const { key, phone, id } = await sentMessage()
    expect((await react(key, id, "🙏")).body).toEqual({ success: true, data: { messageId: id, emoji: "🙏" } })
    expect(h.gateway.actions).toEqual([
      { phoneId: phone.id, kind: "react", target: { chatJid: "14155550199@s.whatsapp.net", waMessageId: waMessageIdFor(id, 0), fromMe: true }, emoji: "🙏" },
    ])
    expect(eventsOf(h, "message.reaction").map((e) => e.data)).toEqual([{ messageId: id, from: phone.phoneNumber, emoji: "🙏", removed: false, at: iso(h.clock.nowMs()) }])
  })

  test("to a received group message: the key names the group and the author; to a 1:1 one, the sender's chat", async () => {
    const { key, phone, session } = await sentMessage()
    const [inGroup, oneToOne] = await receive(session, key, [
      { waMessageId: "GRP1", from: "+14155550166", isGroup: true, groupId: "120363111111111111@g.us", content: "hi all" },
      { waMessageId: "DM1", from: "+14155550177", isGroup: false, groupId: null, content: "hi" },
    ])
    expect((await react(key, inGroup!, "❤️")).status).toBe(200)
    expect((await react(key, oneToOne!, "")).status).toBe(200)
    expect(h.gateway.actions.map((a) => (a.kind === "react" ? [a.target, a.emoji] : a))).toEqual([
      [{ chatJid: "120363111111111111@g.us", waMessageId: "GRP1", fromMe: false, authorJid: "14155550166@s.whatsapp.net" }, "❤️"],
      [{ chatJid: "14155550177@s.whatsapp.net", waMessageId: "DM1", fromMe: false }, ""],
    ])
    expect(eventsOf(h, "message.reaction").map((e) => [e.data.messageId, e.data.from, e.data.removed])).toEqual([
      [inGroup, phone.phoneNumber, false],
      [oneToOne, phone.phoneNumber, true],
    ])
  })

  test("our reactions are kept with the message beside the contacts' (the dashboard's timeline reads them); \"\" takes ours back", async () => {
    const { key, phone, id } = await sentMessage()
    expect((await react(key, id, "🙏")).status).toBe(200)
    expect(listReactions(h.services.sqlite!, id)).toEqual([{ fromAddress: phone.phoneNumber, emoji: "🙏", atMs: h.clock.nowMs() }])
    expect((await react(key, id, "")).status).toBe(200)
    expect(listReactions(h.services.sqlite!, id)).toEqual([])
  })

  test("a received message its sender deleted for everyone: 409, nothing sent", async () => {
    const { key, session } = await sentMessage()
    const [inbound] = await receive(session, key, [{ waMessageId: "DEL1", from: "+14155550177", isGroup: false, groupId: null, content: "oops" }])
    session.act({ kind: "revoke", targetWaMessageId: "DEL1", from: "+14155550177", atMs: h.clock.nowMs() })
    await h.settle()
    const res = await react(key, inbound!, "👍")
    expect(expectErrorEnvelope(res, 409, "Conflict", `/v1/messages/${inbound}/reaction`)).toEqual([`Message ${inbound} was deleted by its sender`])
    expect(h.gateway.actions).toEqual([])
  })

  test("a message WhatsApp has not acknowledged is still pending: 409, nothing sent", async () => {
    h = await createHarness()
    const { key, phone } = await liveTenant(h)
    const res = await send(h, key, { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "Hello" })
    await h.settle()
    expect(expectErrorEnvelope(await react(key, res.body.data.id, "👍"), 409, "Conflict")).toEqual([
      `Message ${res.body.data.id} is still pending; it can be reacted to once it is sent`,
    ])
    expect(h.gateway.actions).toEqual([])
  })

  test("WhatsApp refuses it: 502, and no event is recorded", async () => {
    const { key, id } = await sentMessage()
    h.gateway.actionError = new Error("socket closed")
    expect(expectErrorEnvelope(await react(key, id, "👍"), 502, "Bad Gateway")).toEqual(["Sending the reaction to WhatsApp failed; retry after a moment"])
    expect(eventsOf(h, "message.reaction")).toEqual([])
  })

  test("the phone is not connected: 400 naming its status", async () => {
    const { key, id, session } = await sentMessage()
    session.drop("connection_lost")
    await h.settle()
    expect(expectErrorEnvelope(await react(key, id, "👍"), 400, "Bad Request")[0]).toMatch(/^Phone \+\d+ is not connected \(status: \w+\)$/)
  })
})

describe("live edits and revokes", () => {
  test("an edit goes to the text part within 15 minutes and is recorded; after them, 409 and nothing sent", async () => {
    const { key, phone, id } = await sentMessage()
    const res = await edit(key, id, "Hello again")
    expect(res.body.data).toMatchObject({ content: "Hello again", editedAt: iso(h.clock.nowMs()) })
    expect(h.gateway.actions).toEqual([
      { phoneId: phone.id, kind: "edit", target: { chatJid: "14155550199@s.whatsapp.net", waMessageId: waMessageIdFor(id, 0), fromMe: true }, text: "Hello again" },
    ])
    await h.advance(EDIT_WINDOW_MS + 1)
    expectErrorEnvelope(await edit(key, id, "too late"), 409, "Conflict")
    expect(h.gateway.actions).toHaveLength(1)
  })

  test("media with a caption: the edit names the captioned part, the revoke every part", async () => {
    const fixtures = mediaFixtures({
      "https://example.com/a.jpg": { kind: "image", mimetype: "image/jpeg", fileName: "a.jpg" },
      "https://example.com/b.pdf": { kind: "document", mimetype: "application/pdf", fileName: "b.pdf" },
    })
    const { key, id } = await sentMessage({ content: "Your invoice", mediaUrls: ["https://example.com/a.jpg", "https://example.com/b.pdf"] }, { fetchMedia: fixtures.fetchMedia })
    expect((await edit(key, id, "Your invoice (corrected)")).status).toBe(200)
    expect((await revoke(key, id)).status).toBe(200)
    expect(h.gateway.actions.map((a) => [a.kind, a.kind === "read" ? null : a.target.waMessageId])).toEqual([
      ["edit", waMessageIdFor(id, 0)],
      ["revoke", waMessageIdFor(id, 0)],
      ["revoke", waMessageIdFor(id, 1)],
    ])
  })

  test("a revoke WhatsApp refuses leaves the message unrevoked (502); a later one succeeds", async () => {
    const { key, id } = await sentMessage()
    h.gateway.actionError = new Error("socket closed")
    expect(expectErrorEnvelope(await revoke(key, id), 502, "Bad Gateway")).toEqual(["Sending the revoke to WhatsApp failed; retry after a moment"])
    expect((await h.request("GET", `/v1/messages/${id}`, { key })).body.data.revokedAt).toBeNull()
    h.gateway.actionError = null
    expect((await revoke(key, id)).body.data.revokedAt).toBe(iso(h.clock.nowMs()))
  })
})

describe("live read receipts", () => {
  test("cover the message and the earlier unread ones of its chat, newest first; the next call only what came since", async () => {
    const { key, phone, session } = await sentMessage()
    const ids = await receive(session, key, [
      { waMessageId: "A1", from: "+14155550166", isGroup: false, groupId: null, content: "one" },
      { waMessageId: "B1", from: "+14155550177", isGroup: false, groupId: null, content: "other chat" },
      { waMessageId: "A2", from: "+14155550166", isGroup: false, groupId: null, content: "two" },
      { waMessageId: "A3", from: "+14155550166", isGroup: false, groupId: null, content: "three" },
    ])
    const chat = "14155550166@s.whatsapp.net"
    expect((await read(key, ids[2]!)).body).toEqual({ success: true, data: { messageId: ids[2], markedRead: 2 } })
    expect((await read(key, ids[2]!)).body.data.markedRead).toBe(0)
    expect((await read(key, ids[3]!)).body.data.markedRead).toBe(1)
    expect(h.gateway.actions).toEqual([
      {
        phoneId: phone.id,
        kind: "read",
        targets: [
          { chatJid: chat, waMessageId: "A2", fromMe: false },
          { chatJid: chat, waMessageId: "A1", fromMe: false },
        ],
      },
      { phoneId: phone.id, kind: "read", targets: [{ chatJid: chat, waMessageId: "A3", fromMe: false }] },
    ])
  })

  test("in a group, each receipt names the message's author", async () => {
    const { key, session } = await sentMessage()
    const group = "120363111111111111@g.us"
    const ids = await receive(session, key, [
      { waMessageId: "G1", from: "+14155550166", isGroup: true, groupId: group, content: "one" },
      { waMessageId: "G2", from: "+14155550177", isGroup: true, groupId: group, content: "two" },
    ])
    expect((await read(key, ids[1]!)).body.data.markedRead).toBe(2)
    expect(h.gateway.actions.flatMap((a) => (a.kind === "read" ? a.targets : []))).toEqual([
      { chatJid: group, waMessageId: "G2", fromMe: false, authorJid: "14155550177@s.whatsapp.net" },
      { chatJid: group, waMessageId: "G1", fromMe: false, authorJid: "14155550166@s.whatsapp.net" },
    ])
  })

  test(`at most ${READ_RECEIPTS_MAX} receipts go out; the older unread ones are recorded read all the same`, async () => {
    const { key, session } = await sentMessage()
    const messages = Array.from({ length: READ_RECEIPTS_MAX + 5 }, (_, i) => ({ waMessageId: `M${i}`, from: "+14155550166", isGroup: false, groupId: null, content: `m${i}` }))
    const ids = await receive(session, key, messages)
    expect((await read(key, ids.at(-1)!)).body.data.markedRead).toBe(READ_RECEIPTS_MAX + 5)
    const [action] = h.gateway.actions
    expect(action?.kind === "read" ? action.targets.map((t) => t.waMessageId) : []).toEqual(messages.slice(5).map((m) => m.waMessageId).reverse())
  })

  test("WhatsApp refuses the receipt: 502, and the messages stay unread", async () => {
    const { key, session } = await sentMessage()
    const [first] = await receive(session, key, [{ waMessageId: "A1", from: "+14155550166", isGroup: false, groupId: null, content: "one" }])
    h.gateway.actionError = new Error("socket closed")
    expectErrorEnvelope(await read(key, first!), 502, "Bad Gateway")
    h.gateway.actionError = null
    expect((await read(key, first!)).body.data.markedRead).toBe(1)
  })

  test("another account's inbound message: 404, nothing sent", async () => {
    const { key, session } = await sentMessage()
    const [first] = await receive(session, key, [{ waMessageId: "A1", from: "+14155550166", isGroup: false, groupId: null, content: "one" }])
    const other = await liveTenant(h)
    expectErrorEnvelope(await read(other.key, first!), 404, "Not Found")
    expect(h.gateway.actions).toEqual([])
  })
})
