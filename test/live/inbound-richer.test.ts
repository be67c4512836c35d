import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { Value } from "@sinclair/typebox/value"
import { EVENT_CATALOGUE } from "../../src/domain/event-catalogue"
import { waMessageIdFor } from "../../src/domain/wa-ids"
import { InboundMessage as InboundModel } from "../../src/http/models/inbound"
import { listReactions } from "../../src/store/sqlite/inbound"
import type { InboundMessage } from "../../src/whatsapp/gateway"
import { createHarness, expectSchema, type Harness } from "../helpers/harness"
import { eventsOf, iso, liveTenant, recordEvents, send } from "./live-helpers"

/*
 * The richer inbound side (API-DECISIONS § 14 "Inbound, richer" and "New events"): quoted
 * replies resolve to wagate ids, locations and contact cards and attachments are shown, and a
 * contact's reactions, edits and deletions are recorded against their target and emitted.
 */

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

const ALICE = "+14155550177"

function inbound(overrides: Partial<InboundMessage> = {}): InboundMessage {
  return { waMessageId: "IN-1", from: ALICE, isGroup: false, groupId: null, type: "text", content: "Hi", receivedAtMs: h.clock.nowMs() - 1_000, ...overrides }
}

async function inboundList(key: string) {
  const res = await h.request("GET", "/v1/messages/inbound", { key })
  expect(res.status).toBe(200)
  return res.body.data.data as any[]
}

describe("richer inbound messages", () => {
  test("a reply names the quoted message by its wagate id, inbound or ours; an unknown quote is null", async () => {
    const { key, phone } = await liveTenant(h)
    const session = h.gateway.current(phone.id)
    const sent = await send(h, key, { fromPhoneId: phone.phoneNumber, to: ALICE, content: "Your order shipped" })
    await h.settle()
    session.receive(inbound({ waMessageId: "IN-1" }))
    session.receive(inbound({ waMessageId: "IN-2", details: { quotedWaMessageId: "IN-1" } }))
    session.receive(inbound({ waMessageId: "IN-3", details: { quotedWaMessageId: waMessageIdFor(sent.body.data.id, 0) } }))
    session.receive(inbound({ waMessageId: "IN-4", details: { quotedWaMessageId: "NEVER-SEEN" } }))
    await h.settle()
    const [unknown, toOurs, toInbound, first] = await inboundList(key)
    expect(toInbound.replyTo).toBe(first.id)
    expect(toOurs.replyTo).toBe(sent.body.data.id)
    expect(unknown.replyTo).toBeNull()
  })

  test("a location, a contact card and an attachment are shown in the shapes sends use; the descriptor stays inside", async () => {
    const { key, phone } = await liveTenant(h)
    const session = h.gateway.current(phone.id)
    session.receive(inbound({ waMessageId: "L", type: "location", content: "Gate", details: { location: { latitude: 52.5, longitude: 13.4, name: "Gate" } } }))
    session.receive(inbound({ waMessageId: "C", type: "contact", content: "Ada", details: { contact: { name: "Ada", phoneNumbers: ["+14155550199"], email: "ada@example.com" } } }))
    session.receive(
      inbound({
        waMessageId: "D",
        type: "document",
        content: "the invoice",
        details: { media: { mimetype: "application/pdf", sizeBytes: 1234, fileName: "invoice.pdf", capKind: "document", descriptor: '{"secret":"key"}' } },
      }),
    )
    await h.settle()
    const [doc, contact, location] = await inboundList(key)
    for (const m of [doc, contact, location]) expectSchema(InboundModel, m)
    expect(location).toMatchObject({ type: "location", location: { latitude: 52.5, longitude: 13.4, name: "Gate" }, contact: null, media: null })
    expect(contact.contact).toEqual({ name: "Ada", phoneNumbers: ["+14155550199"], email: "ada@example.com" })
    expect(doc.media).toEqual({ mimetype: "application/pdf", size: 1234, fileName: "invoice.pdf" })
    expect(JSON.stringify(doc)).not.toContain("secret")
  })
})

describe("reactions, edits and deletions from contacts", () => {
  test("a reaction to one of ours and to an inbound message is recorded and emitted; an empty one removes it", async () => {
    const { account, key, phone } = await liveTenant(h)
    await recordEvents(h, account.id)
    const session = h.gateway.current(phone.id)
    const sent = await send(h, key, { fromPhoneId: phone.phoneNumber, to: ALICE, content: "Hello" })
    session.receive(inbound({ waMessageId: "IN-1" }))
    await h.settle()
    const [received] = await inboundList(key)
    const atMs = h.clock.nowMs() - 500
    session.act({ kind: "reaction", targetWaMessageId: waMessageIdFor(sent.body.data.id, 0), targetFromMe: true, from: ALICE, emoji: "👍", atMs })
    session.act({ kind: "reaction", targetWaMessageId: "IN-1", targetFromMe: false, from: ALICE, emoji: "❤️", atMs })
    await h.settle()
    expect(listReactions(h.services.sqlite!, sent.body.data.id)).toEqual([{ fromAddress: ALICE, emoji: "👍", atMs }])
    session.act({ kind: "reaction", targetWaMessageId: waMessageIdFor(sent.body.data.id, 0), targetFromMe: true, from: ALICE, emoji: "", atMs: atMs + 1 })
    await h.settle()
    expect(listReactions(h.services.sqlite!, sent.body.data.id)).toEqual([])
    expect(eventsOf(h, "message.reaction").map((e) => e.data)).toEqual([
      { messageId: sent.body.data.id, from: ALICE, emoji: "👍", removed: false, at: iso(atMs) },
      { messageId: received.id, from: ALICE, emoji: "❤️", removed: false, at: iso(atMs) },
      { messageId: sent.body.data.id, from: ALICE, emoji: "", removed: true, at: iso(atMs + 1) },
    ])
    for (const e of eventsOf(h, "message.reaction")) expect(Value.Check(EVENT_CATALOGUE["message.reaction"].data, e.data)).toBe(true)
  })

  test("an edit by the sender changes the text and emits message.edited; an edit by someone else changes nothing", async () => {
    const { account, key, phone } = await liveTenant(h)
    await recordEvents(h, account.id)
    const session = h.gateway.current(phone.id)
    session.receive(inbound({ waMessageId: "IN-1", content: "teh order" }))
    await h.settle()
    const atMs = h.clock.nowMs()
    session.act({ kind: "edit", targetWaMessageId: "IN-1", from: "+14155550100", content: "hijacked", atMs })
    session.act({ kind: "edit", targetWaMessageId: "IN-1", from: ALICE, content: "the order", atMs })
    await h.settle()
    const [m] = await inboundList(key)
    expect(m.content).toBe("the order")
    expect(eventsOf(h, "message.edited").map((e) => e.data)).toEqual([{ messageId: m.id, from: ALICE, content: "the order", editedAt: iso(atMs) }])
  })

  test("a deletion for everyone is recorded once and emitted once; the message is kept; unknown targets are dropped", async () => {
    const { account, key, phone } = await liveTenant(h)
    await recordEvents(h, account.id)
    const session = h.gateway.current(phone.id)
    session.receive(inbound({ waMessageId: "IN-1" }))
    await h.settle()
    const atMs = h.clock.nowMs()
    session.act({ kind: "revoke", targetWaMessageId: "IN-1", from: ALICE, atMs })
    session.act({ kind: "revoke", targetWaMessageId: "IN-1", from: ALICE, atMs })
    session.act({ kind: "revoke", targetWaMessageId: "UNKNOWN", from: ALICE, atMs })
    session.act({ kind: "reaction", targetWaMessageId: "UNKNOWN", targetFromMe: false, from: ALICE, emoji: "👍", atMs })
    await h.settle()
    const [m] = await inboundList(key)
    expect(eventsOf(h, "message.revoked").map((e) => e.data)).toEqual([{ messageId: m.id, from: ALICE, revokedAt: iso(atMs) }])
    expect(eventsOf(h, "message.reaction")).toEqual([])
    const row = h.services.sqlite!.query("SELECT revoked_at_ms AS r FROM inbound_messages WHERE id = ?").get(m.id) as { r: number }
    expect(row.r).toBe(atMs)
  })
})
