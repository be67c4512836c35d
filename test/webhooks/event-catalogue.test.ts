import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { optionHash } from "../../src/domain/poll-rules"
import { Value } from "@sinclair/typebox/value"
import { EVENT_CATALOGUE, EVENT_NAMES } from "../../src/domain/event-catalogue"
import { waMessageIdFor } from "../../src/domain/wa-ids"
import { createEndpoint } from "../../src/domain/webhook-endpoints"
import { EVENT_TYPES } from "../../src/lib/vocabulary"
import { createHarness, type Harness } from "../helpers/harness"
import { eventsOf, liveTenant, recordEvents, send } from "../live/live-helpers"

/*
 * The event catalogue is the one description of every webhook payload: each event emitted by
 * the sandbox, the live sender, the inbound path and the session manager matches its schema.
 */

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

/** Every recorded event, checked against the catalogue; returns the events seen. */
function expectEveryEventMatchesTheCatalogue(): string[] {
  const seen: string[] = []
  for (const body of eventsOf(h)) {
    expect(Object.keys(body)).toEqual(["event", "timestamp", "data"])
    const entry = EVENT_CATALOGUE[body.event as keyof typeof EVENT_CATALOGUE]
    expect(entry).toBeDefined()
    const problems = [...Value.Errors(entry.data, body.data)].map((e) => `${body.event} ${e.path}: ${e.message}`)
    expect(problems).toEqual([])
    expect(Value.Check(entry.data, body.data)).toBe(true)
    expect(Number.isNaN(Date.parse(body.timestamp))).toBe(false)
    seen.push(body.event)
  }
  return seen
}

describe("the event catalogue", () => {
  test("names exactly the events the outbox knows, one data schema each", () => {
    expect([...EVENT_NAMES].sort()).toEqual([...EVENT_TYPES].sort())
    for (const name of EVENT_NAMES) expect(EVENT_CATALOGUE[name].data.type).toBe("object")
  })

  test("sandbox sends: sent, delivered, read and failed payloads (one-to-one and group) match their schemas", async () => {
    const { account, key, phone } = await h.seedTenant()
    await createEndpoint(h.services.ctx, { accountId: account.id, env: "test", url: "http://127.0.0.1:9/unused", events: ["*"] })
    for (const to of ["+14155550199", "120363000000000001@g.us", "+12025550101", "+12025550103", "120363000000000009@g.us"]) {
      const res = await send(h, key, { fromPhoneId: phone.phoneNumber, to, content: "hello" })
      expect(res.status).toBe(201)
    }
    await h.advance(h.config.sandboxReadMs + 1)
    await h.settle()
    const seen = expectEveryEventMatchesTheCatalogue()
    expect(new Set(seen)).toEqual(new Set(["message.sent", "message.delivered", "message.read", "message.failed"]))
    const failed = eventsOf(h, "message.failed").map((e) => e.data.errorCode)
    expect(failed.sort()).toEqual(["group_not_allowed", "recipient_not_on_whatsapp"])
  })

  test("live traffic: connect, sends with acks, receipts and an error ack, inbound messages, a reaction, a missed call and a dropped connection match their schemas", async () => {
    const { account, key, phone } = await liveTenant(h, { connect: false })
    await recordEvents(h, account.id)
    await h.connectPhone(phone)
    const session = h.gateway.current(phone.id)

    const ids: string[] = []
    for (const to of ["+14155550199", "+14155550188", "+14155550177"]) {
      const res = await send(h, key, { fromPhoneId: phone.phoneNumber, to, content: "hello live" })
      expect(res.status).toBe(201)
      ids.push(res.body.data.id)
    }
    await h.settle()
    const [delivered, readFirst, rejected] = ids.map((id) => waMessageIdFor(id, 0))
    const nowMs = h.clock.nowMs()
    session.ack(delivered!, nowMs + 10)
    session.receipt(delivered!, "delivered", nowMs + 20)
    session.receipt(delivered!, "read", nowMs + 30)
    // A read receipt before the server ack implies the ack: message.sent, then message.read with no delivery.
    session.receipt(readFirst!, "read", nowMs + 40)
    session.reject(rejected!, { code: "whatsapp_rejected", detail: "479" }, nowMs + 50)
    session.receive({ waMessageId: "IN1", from: "+14155550166", isGroup: false, groupId: null, type: "text", content: "Hi", receivedAtMs: nowMs })
    session.receive({
      waMessageId: "IN2",
      from: "+14155550166",
      isGroup: true,
      groupId: "120363111111111111@g.us",
      type: "image",
      content: "Look",
      receivedAtMs: nowMs,
    })
    // A message typed on the phone itself (docs/webhooks.md § "Chat events").
    session.echo({ waMessageId: "ECHO1", chatId: "+14155550166", isGroup: false, type: "text", content: "On my way", atMs: nowMs })
    // A chunk of the phone's history (docs/webhooks.md § "History events").
    await session.history({ kind: "recent", progress: 100, messages: [{ waMessageId: "HIST1", chatId: "+14155550166", isGroup: false, fromMe: false, from: "+14155550166", type: "text", content: "Last week", atMs: nowMs - 86_400_000 }], contacts: [], failed: false })
    await h.settle()
    // Our own reaction through the API (docs/api.md § "Act on a message") emits message.reaction.
    expect((await h.request("POST", `/v1/messages/${ids[0]}/reaction`, { key, body: { emoji: "👍" } })).status).toBe(200)
    session.act({ kind: "reaction", targetWaMessageId: delivered!, targetFromMe: true, from: "+14155550166", emoji: "👍", atMs: nowMs })
    session.act({ kind: "edit", targetWaMessageId: "IN1", from: "+14155550166", content: "Hi!", atMs: nowMs })
    session.act({ kind: "revoke", targetWaMessageId: "IN2", from: "+14155550166", atMs: nowMs })
    // A contact's poll and a vote on it (docs/api.md § "Polls").
    const options = ["Yes", "No"]
    session.receive({
      waMessageId: "POLL1",
      from: "+14155550166",
      isGroup: false,
      groupId: null,
      type: "poll",
      content: "Lunch?",
      receivedAtMs: nowMs,
      details: { poll: { question: "Lunch?", options, optionHashes: options.map(optionHash), multipleAnswers: false } },
    })
    await h.settle()
    session.vote({ pollWaMessageId: "POLL1", voter: "+14155550166", optionHashes: [optionHash("No")], atMs: nowMs })
    await h.settle()
    // An incoming call that rings and is missed (docs/api.md § "Calls").
    session.callStep({ callId: "CALL1", stage: "offered", from: "+14155550166", callerJid: "14155550166@s.whatsapp.net", isVideo: true, isGroup: false, atMs: nowMs })
    session.callStep({ callId: "CALL1", stage: "timed_out", from: "+14155550166", callerJid: "14155550166@s.whatsapp.net", isVideo: true, isGroup: false, atMs: nowMs + 30_000 })
    session.groupChanged({
      groupId: "120363111111111111@g.us",
      by: "+14155550166",
      atMs: nowMs,
      changes: [
        { kind: "joined", subject: "Weekend football" },
        { kind: "participants", action: "promoted", participants: [phone.phoneNumber] },
        { kind: "updated", changes: { subject: "Sunday football", description: "", approvalMode: true, picture: "set" } },
      ],
    })
    await h.settle()
    // A chat change written to WhatsApp's app state (docs/api.md § "Chats and contacts").
    expect((await h.request("PATCH", "/v1/chats/%2B14155550166", { key, body: { fromPhoneId: phone.phoneNumber, pinned: true, mutedUntil: null } })).status).toBe(200)
    session.drop("connection_lost")
    await h.settle()

    const seen = expectEveryEventMatchesTheCatalogue()
    expect(new Set(seen)).toEqual(new Set(EVENT_NAMES))
    expect(eventsOf(h, "message.read").map((e) => e.data.deliveredAt === null).sort()).toEqual([false, true])
    expect(eventsOf(h, "phone.disconnected").at(-1)!.data).toMatchObject({ connectionStatus: "disconnected", reason: "connection_lost", willReconnect: true })
  })

  test("a payload that strays from its schema is refused (the check is not blind)", async () => {
    const { account, key, phone } = await h.seedTenant()
    await createEndpoint(h.services.ctx, { accountId: account.id, env: "test", url: "http://127.0.0.1:9/unused", events: ["*"] })
    await send(h, key, { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "hello" })
    await h.settle()
    const [sent] = eventsOf(h, "message.sent")
    expect(Value.Check(EVENT_CATALOGUE["message.sent"].data, sent!.data)).toBe(true)
    expect(Value.Check(EVENT_CATALOGUE["message.sent"].data, { ...sent!.data, status: "delivered" })).toBe(false)
    expect(Value.Check(EVENT_CATALOGUE["message.sent"].data, { ...sent!.data, sentAt: null })).toBe(false)
  })
})
