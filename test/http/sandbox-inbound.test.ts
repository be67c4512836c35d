import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { EVENT_CATALOGUE } from "../../src/domain/event-catalogue"
import { Envelope } from "../../src/http/models/common"
import { SandboxInboundResult } from "../../src/http/models/sandbox"
import { createEndpoint } from "../../src/domain/webhook-endpoints"
import { createHarness, expectErrorEnvelope, expectSchema, type Harness } from "../helpers/harness"
import { WebhookReceiver } from "../helpers/webhook-receiver"
import { eventsOf, liveTenant, recordEvents } from "../live/live-helpers"

/*
 * POST /v1/sandbox/inbound (docs/api.md § "Sandbox inbound and calls"): what a contact would send
 * to a test key's phone is recorded as a live inbound is, with the same events. Success, errors,
 * security.
 */

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

const CONTACT = "+14155550199"
const simulate = (key: string, body: unknown) => h.request("POST", "/v1/sandbox/inbound", { key, body })
const send = (key: string, body: unknown) => h.request("POST", "/v1/messages/send", { key, body })

/** A test tenant whose test-environment events are written to the outbox (read with eventsOf). */
async function sandboxTenant() {
  const tenant = await h.seedTenant()
  await createEndpoint(h.services.ctx, { accountId: tenant.account.id, env: "test", url: "http://127.0.0.1:9/unused", events: ["*"] })
  return tenant
}

describe("sandbox inbound: success", () => {
  test("a simulated text is an inbound message (201), listed and read by the test key, and emits message.received once", async () => {
    const { key, phone } = await sandboxTenant()
    const res = await simulate(key, { fromPhoneId: phone.phoneNumber, from: CONTACT, content: "Yes, tomorrow at 10 works" })
    expect(res.status).toBe(201)
    expectSchema(Envelope(SandboxInboundResult), res.body)
    const message = res.body.data.message
    expect(res.body.data).toMatchObject({ reaction: null, pollVote: null })
    expect(message).toMatchObject({ from: CONTACT, to: phone.phoneNumber, content: "Yes, tomorrow at 10 works", type: "text", isGroup: false, groupId: null, replyTo: null })
    expect(message.id).toMatch(/^inmsg_/)
    const list = await h.request("GET", "/v1/messages/inbound", { key })
    expect(list.body.data.data.map((m: any) => m.id)).toEqual([message.id])
    expect((await h.request("GET", `/v1/messages/inbound/${message.id}`, { key })).body.data).toEqual(message)
    const received = eventsOf(h, "message.received")
    expect(received.map((e) => e.data.messageId)).toEqual([message.id])
    expectSchema(EVENT_CATALOGUE["message.received"].data, received[0]!.data)
  })

  test("the sandbox's message.received carries exactly the fields a live phone's does", async () => {
    const live = await liveTenant(h)
    await recordEvents(h, live.account.id)
    h.gateway.current(live.phone.id).receive({ waMessageId: "IN-1", from: CONTACT, isGroup: false, groupId: null, type: "text", content: "Hi", receivedAtMs: h.clock.nowMs() })
    await h.settle()
    const { key, phone } = await sandboxTenant()
    await simulate(key, { fromPhoneId: phone.phoneNumber, from: CONTACT, content: "Hi" })
    const [fromLive, fromSandbox] = eventsOf(h, "message.received").map((e) => e.data)
    const shape = (d: any) => ({ ...d, messageId: d.messageId.replace(/_.*/, "_"), to: "", receivedAt: "" })
    expect(shape(fromSandbox)).toEqual(shape(fromLive))
  })

  test("a location and a contact card are recorded as their types, with the content a live one gets", async () => {
    const { key, phone } = await sandboxTenant()
    const location = { latitude: 52.52, longitude: 13.405, name: "Main gate" }
    const contact = { name: "Ada Lovelace", phoneNumbers: ["+14155550123"] }
    const loc = (await simulate(key, { fromPhoneId: phone.id, from: CONTACT, location })).body.data.message
    const card = (await simulate(key, { fromPhoneId: phone.id, from: CONTACT, contact })).body.data.message
    expect(loc).toMatchObject({ type: "location", content: "Main gate", location })
    expect(card).toMatchObject({ type: "contact", content: "Ada Lovelace", contact })
  })

  test("replyTo quotes one of our messages or an earlier inbound one by its id", async () => {
    const { key, phone } = await sandboxTenant()
    const ours = (await send(key, { fromPhoneId: phone.phoneNumber, to: CONTACT, content: "Shall we meet at 10?" })).body.data.id
    const first = (await simulate(key, { fromPhoneId: phone.phoneNumber, from: CONTACT, content: "Yes", replyTo: ours })).body.data.message
    const second = (await simulate(key, { fromPhoneId: phone.phoneNumber, from: CONTACT, content: "See above", replyTo: first.id })).body.data.message
    expect([first.replyTo, second.replyTo]).toEqual([ours, first.id])
  })

  test("a reaction to our message emits message.reaction from the contact; an empty emoji takes it back", async () => {
    const { key, phone } = await sandboxTenant()
    const ours = (await send(key, { fromPhoneId: phone.phoneNumber, to: CONTACT, content: "Your order shipped" })).body.data.id
    const res = await simulate(key, { fromPhoneId: phone.phoneNumber, from: CONTACT, reaction: { messageId: ours, emoji: "🎉" } })
    expect(res.status).toBe(201)
    expect(res.body.data).toMatchObject({ message: null, pollVote: null, reaction: { messageId: ours, from: CONTACT, emoji: "🎉" } })
    await simulate(key, { fromPhoneId: phone.phoneNumber, from: CONTACT, reaction: { messageId: ours, emoji: "" } })
    const reactions = eventsOf(h, "message.reaction").map((e) => e.data)
    expect(reactions.map((d) => [d.messageId, d.from, d.emoji, d.removed])).toEqual([
      [ours, CONTACT, "🎉", false],
      [ours, CONTACT, "", true],
    ])
    expectSchema(EVENT_CATALOGUE["message.reaction"].data, reactions[0])
  })

  test("a vote on our poll is counted by GET /v1/messages/{id}/poll and emits poll.vote; a newer vote replaces it", async () => {
    const { key, phone } = await sandboxTenant()
    const poll = (await send(key, { fromPhoneId: phone.phoneNumber, to: "+12025550107", poll: { question: "Lunch?", options: ["Pizza", "Sushi"] } })).body.data.id
    const first = await simulate(key, { fromPhoneId: phone.phoneNumber, from: CONTACT, pollVote: { messageId: poll, options: ["Sushi"] } })
    expect(first.status).toBe(201)
    await simulate(key, { fromPhoneId: phone.phoneNumber, from: CONTACT, pollVote: { messageId: poll, options: ["Pizza"] } })
    const results = (await h.request("GET", `/v1/messages/${poll}/poll`, { key })).body.data
    expect(results.options).toEqual([{ name: "Pizza", votes: 1 }, { name: "Sushi", votes: 0 }])
    expect(results.voters.map((v: any) => [v.voter, v.options])).toEqual([[CONTACT, ["Pizza"]]])
    expect(eventsOf(h, "poll.vote").map((e) => [e.data.messageId, e.data.voter, e.data.options])).toEqual([
      [poll, CONTACT, ["Sushi"]],
      [poll, CONTACT, ["Pizza"]],
    ])
  })

  test("a simulated message reaches a real webhook receiver as a signed message.received delivery", async () => {
    const receiver = new WebhookReceiver()
    try {
      const { account, key, phone } = await h.seedTenant()
      await createEndpoint(h.services.ctx, { accountId: account.id, env: "test", url: receiver.url(), events: ["message.received"] })
      const id = (await simulate(key, { fromPhoneId: phone.phoneNumber, from: CONTACT, content: "Ping" })).body.data.message.id
      const [hook] = await receiver.waitFor(1)
      expect(hook!.json).toMatchObject({ event: "message.received", data: { messageId: id, from: CONTACT, content: "Ping" } })
      expect(hook!.headers["x-service-signature"]).toBeString()
    } finally {
      await receiver.stop()
    }
  })

  test("a sandbox inbound message can be marked read with the test key, telling no WhatsApp", async () => {
    const { key, phone } = await sandboxTenant()
    const id = (await simulate(key, { fromPhoneId: phone.phoneNumber, from: CONTACT, content: "Hello?" })).body.data.message.id
    const res = await h.request("POST", `/v1/messages/inbound/${id}/read`, { key })
    expect([res.status, res.body.data]).toEqual([200, { messageId: id, markedRead: 1 }])
  })
})

describe("sandbox inbound: errors", () => {
  test("from that is not E.164, and no carrier, are one readable 400 message each", async () => {
    const { key, phone } = await h.seedTenant()
    const res = await simulate(key, { fromPhoneId: phone.phoneNumber, from: "0170 1234567" })
    expect(expectErrorEnvelope(res, 400, "Bad Request")).toEqual([
      "from must be the contact's E.164 number (+ and 8–15 digits)",
      "send exactly one of content, location, contact, reaction or pollVote (none given)",
    ])
  })

  test("two carriers at once, an empty text and a bad emoji are refused with one message each", async () => {
    const { key, phone } = await h.seedTenant()
    const both = await simulate(key, { fromPhoneId: phone.phoneNumber, from: CONTACT, content: " ", location: { latitude: 1, longitude: 2 } })
    expect(expectErrorEnvelope(both, 400, "Bad Request")).toEqual(["send exactly one of content, location, contact, reaction or pollVote (2 given)", "content must not be empty"])
    const emoji = await simulate(key, { fromPhoneId: phone.phoneNumber, from: CONTACT, reaction: { messageId: "msg_x", emoji: "ok" } })
    expect(expectErrorEnvelope(emoji, 400, "Bad Request")[0]).toStartWith("reaction.emoji must be exactly one emoji")
  })

  test("the phone's own number as from, and an unknown field, are 400", async () => {
    const { key, phone } = await h.seedTenant()
    expect(expectErrorEnvelope(await simulate(key, { fromPhoneId: phone.phoneNumber, from: phone.phoneNumber, content: "me" }), 400, "Bad Request")).toEqual([
      "from must be a contact's number, not the phone's own",
    ])
    expect((await simulate(key, { fromPhoneId: phone.phoneNumber, from: CONTACT, content: "x", groupId: "1@g.us" })).status).toBe(400)
  })

  test("options not in the poll, and a message that is no poll, are 400 naming the field", async () => {
    const { key, phone } = await h.seedTenant()
    const poll = (await send(key, { fromPhoneId: phone.phoneNumber, to: CONTACT, poll: { question: "Lunch?", options: ["Pizza", "Sushi"] } })).body.data.id
    const text = (await send(key, { fromPhoneId: phone.phoneNumber, to: CONTACT, content: "hi" })).body.data.id
    const wrong = await simulate(key, { fromPhoneId: phone.phoneNumber, from: CONTACT, pollVote: { messageId: poll, options: ["Tacos", "Pizza", "Sushi"] } })
    expect(expectErrorEnvelope(wrong, 400, "Bad Request")).toEqual(["pollVote.this poll takes one answer: options must hold at most one option", "pollVote.options[0] is not an option of this poll"])
    const notPoll = await simulate(key, { fromPhoneId: phone.phoneNumber, from: CONTACT, pollVote: { messageId: text, options: [] } })
    expect(expectErrorEnvelope(notPoll, 400, "Bad Request")).toEqual([`pollVote.messageId: message ${text} is not a poll`])
  })

  test("an unknown phone, reply target or reaction target is 404", async () => {
    const { key, phone } = await h.seedTenant()
    expect(expectErrorEnvelope(await simulate(key, { fromPhoneId: "+14155559999", from: CONTACT, content: "x" }), 404, "Not Found")).toEqual(["Phone number +14155559999 not found"])
    expect((await simulate(key, { fromPhoneId: phone.phoneNumber, from: CONTACT, content: "x", replyTo: "msg_nope" })).status).toBe(404)
    expect((await simulate(key, { fromPhoneId: phone.phoneNumber, from: CONTACT, reaction: { messageId: "inmsg_nope", emoji: "👍" } })).status).toBe(404)
  })
})

describe("sandbox inbound: security", () => {
  test("a live key is 403 with a readable message, and nothing is recorded", async () => {
    const { key, phone } = await liveTenant(h, { connect: false })
    const res = await simulate(key, { fromPhoneId: phone.phoneNumber, from: CONTACT, content: "x" })
    expect(expectErrorEnvelope(res, 403, "Forbidden")).toEqual([
      "POST /v1/sandbox/inbound works with test keys only: a live key's phone hears from real contacts through WhatsApp; use a sk_test_ key of this account",
    ])
    expect((await h.request("GET", "/v1/messages/inbound", { key })).body.data.data).toEqual([])
    expect(eventsOf(h)).toEqual([])
  })

  test("another account's phone and messages are 404, and what one account simulated is invisible to the other", async () => {
    const a = await sandboxTenant()
    const b = await h.seedTenant()
    expect((await simulate(b.key, { fromPhoneId: a.phone.phoneNumber, from: CONTACT, content: "x" })).status).toBe(404)
    const ours = (await send(a.key, { fromPhoneId: a.phone.phoneNumber, to: CONTACT, content: "hi" })).body.data.id
    const inbound = (await simulate(a.key, { fromPhoneId: a.phone.phoneNumber, from: CONTACT, content: "secret" })).body.data.message.id
    for (const body of [
      { content: "x", replyTo: inbound },
      { reaction: { messageId: ours, emoji: "👍" } },
    ]) expect((await simulate(b.key, { fromPhoneId: b.phone.phoneNumber, from: CONTACT, ...body })).status).toBe(404)
    expect((await h.request("GET", "/v1/messages/inbound", { key: b.key })).body.data.data).toEqual([])
    expect((await h.request("GET", `/v1/messages/inbound/${inbound}`, { key: b.key })).status).toBe(404)
  })

  test("the sandbox's inbound messages are invisible to a live key of the same account", async () => {
    const { account, key, phone } = await h.seedTenant()
    const live = await h.seedKey(account.id, { env: "live" })
    const id = (await simulate(key, { fromPhoneId: phone.phoneNumber, from: CONTACT, content: "test only" })).body.data.message.id
    expect((await h.request("GET", "/v1/messages/inbound", { key: live })).body.data.data).toEqual([])
    expect((await h.request("GET", `/v1/messages/inbound/${id}`, { key: live })).status).toBe(404)
  })

  test("a message of another phone of the same account cannot be quoted or reacted to", async () => {
    const { account, key, phone } = await h.seedTenant()
    const other = await h.seedPhone(account.id)
    const ours = (await send(key, { fromPhoneId: other.phoneNumber, to: CONTACT, content: "hi" })).body.data.id
    expect((await simulate(key, { fromPhoneId: phone.phoneNumber, from: CONTACT, reaction: { messageId: ours, emoji: "👍" } })).status).toBe(404)
    expect((await simulate(key, { fromPhoneId: phone.phoneNumber, from: CONTACT, content: "x", replyTo: ours })).status).toBe(404)
  })
})
