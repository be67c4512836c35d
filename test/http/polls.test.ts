import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { Envelope } from "../../src/http/models/common"
import { Message } from "../../src/http/models/messages"
import { PollResults } from "../../src/http/models/polls"
import { createHarness, expectErrorEnvelope, expectSchema, type Harness } from "../helpers/harness"

/*
 * Polls with test keys (docs/api.md § "Polls"): a poll is sent and read back, the sandbox votes
 * for the first option when it reads the poll (never from +12025550107), `poll.vote` is emitted,
 * and the results are read from the store. Bad polls get one message per problem.
 */

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

const TO = "+14155550199"
const POLL = { question: "Where shall we meet?", options: ["Office", "Café", "Park"] }
const send = (key: string, body: unknown) => h.request("POST", "/v1/messages/send", { key, body })

async function subscribe(accountId: string) {
  await h.request("POST", `/admin/v1/accounts/${accountId}/webhooks`, { key: await h.adminToken(), body: { url: "http://127.0.0.1:9/hook", environment: "test", events: ["*"] } })
}

function pollVoteEvents(messageId: string): unknown[] {
  return h.services
    .sqlite!.query("SELECT body FROM events WHERE type = 'poll.vote' AND body LIKE ? ORDER BY id")
    .all(`%${messageId}%`)
    .map((e: any) => JSON.parse(e.body).data)
}

describe("polls with test keys: success", () => {
  test("a poll is type poll, reads back as sent with multipleAnswers defaulting to false, and has no votes until read", async () => {
    const { key, phone } = await h.seedTenant()
    const sent = await send(key, { fromPhoneId: phone.phoneNumber, to: TO, poll: POLL })
    expect(sent.status).toBe(201)
    expectSchema(Envelope(Message), sent.body)
    expect(sent.body.data).toMatchObject({ type: "poll", content: "", status: "sent", poll: { ...POLL, multipleAnswers: false }, location: null })
    const id = sent.body.data.id
    expect((await h.request("GET", `/v1/messages/${id}`, { key })).body.data.poll).toEqual({ ...POLL, multipleAnswers: false })
    const results = await h.request("GET", `/v1/messages/${id}/poll`, { key })
    expect(results.status).toBe(200)
    expectSchema(Envelope(PollResults), results.body)
    expect(results.body.data).toEqual({ question: POLL.question, multipleAnswers: false, options: POLL.options.map((name) => ({ name, votes: 0 })), voters: [] })
  })

  test("when the sandbox reads a poll its recipient votes for the first option, and poll.vote is emitted once", async () => {
    const { account, key, phone } = await h.seedTenant()
    await subscribe(account.id)
    const id = (await send(key, { fromPhoneId: phone.phoneNumber, to: TO, poll: { ...POLL, multipleAnswers: true } })).body.data.id
    await h.advance(h.config.sandboxReadMs)
    const results = (await h.request("GET", `/v1/messages/${id}/poll`, { key })).body.data
    expect(results.options).toEqual([{ name: "Office", votes: 1 }, { name: "Café", votes: 0 }, { name: "Park", votes: 0 }])
    expect(results.voters).toEqual([{ voter: TO, options: ["Office"], at: expect.any(String) }])
    expect(pollVoteEvents(id)).toEqual([{ messageId: id, voter: TO, options: ["Office"], at: results.voters[0].at }])
    await h.advance(h.config.sandboxReadMs)
    expect(pollVoteEvents(id)).toHaveLength(1)
  })

  test("a poll to +12025550107 is read but never voted on", async () => {
    const { key, phone } = await h.seedTenant()
    const id = (await send(key, { fromPhoneId: phone.phoneNumber, to: "+12025550107", poll: POLL })).body.data.id
    await h.advance(h.config.sandboxReadMs)
    expect((await h.request("GET", `/v1/messages/${id}`, { key })).body.data.status).toBe("read")
    expect((await h.request("GET", `/v1/messages/${id}/poll`, { key })).body.data.voters).toEqual([])
  })

  test("an idempotent replay of a poll returns the same message; the same key with other options is 400", async () => {
    const { key, phone } = await h.seedTenant()
    const body = { fromPhoneId: phone.phoneNumber, to: TO, poll: POLL, idempotencyKey: "poll-1" }
    const first = await send(key, body)
    const again = await send(key, body)
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect(again.body.data).toEqual(first.body.data)
    const moved = await send(key, { ...body, poll: { ...POLL, options: ["A", "B"] } })
    expect(expectErrorEnvelope(moved, 400, "Bad Request")).toEqual(["idempotencyKey was already used with different parameters"])
  })
})

describe("polls: errors", () => {
  const cases = [
    { name: "an empty question", poll: { ...POLL, question: " " }, messages: ["poll.question must not be empty"] },
    { name: "a question over 255 characters", poll: { ...POLL, question: "q".repeat(256) }, messages: ["poll.question must be at most 255 characters"] },
    { name: "one option", poll: { ...POLL, options: ["Only"] }, messages: ["poll.options must hold 2 to 12 options"] },
    { name: "13 options", poll: { ...POLL, options: Array.from({ length: 13 }, (_, i) => `o${i}`) }, messages: ["poll.options must hold 2 to 12 options"] },
    { name: "a duplicated option", poll: { ...POLL, options: ["A", "B", "A"] }, messages: ["poll.options[2] repeats an earlier option: options must be distinct"] },
    { name: "an option over 100 characters", poll: { ...POLL, options: ["A", "b".repeat(101)] }, messages: ["poll.options[1] must be at most 100 characters"] },
    { name: "a blank option", poll: { ...POLL, options: ["A", ""] }, messages: ["poll.options[1] must not be empty"] },
  ]
  for (const c of cases) {
    test(`${c.name} is 400 with one readable message`, async () => {
      const { key, phone } = await h.seedTenant()
      expect(expectErrorEnvelope(await send(key, { fromPhoneId: phone.phoneNumber, to: TO, poll: c.poll }), 400, "Bad Request")).toEqual(c.messages)
    })
  }

  test("a poll with content is 400: exactly one thing carries a message", async () => {
    const { key, phone } = await h.seedTenant()
    const res = await send(key, { fromPhoneId: phone.phoneNumber, to: TO, content: "vote!", poll: POLL })
    expect(expectErrorEnvelope(res, 400, "Bad Request")).toEqual(["send exactly one of content/mediaUrls, location, contact or poll"])
  })

  test("the results of a message that is not a poll, of an unknown id, or through the other direction's route are 404", async () => {
    const { key, phone } = await h.seedTenant()
    const text = (await send(key, { fromPhoneId: phone.phoneNumber, to: TO, content: "hi" })).body.data.id
    const poll = (await send(key, { fromPhoneId: phone.phoneNumber, to: TO, poll: POLL })).body.data.id
    expect(expectErrorEnvelope(await h.request("GET", `/v1/messages/${text}/poll`, { key }), 404, "Not Found")).toEqual([`Message ${text} is not a poll`])
    expect((await h.request("GET", "/v1/messages/msg_nope/poll", { key })).status).toBe(404)
    expect((await h.request("GET", `/v1/messages/inbound/${poll}/poll`, { key })).status).toBe(404)
  })
})

describe("polls: security", () => {
  test("another account's poll, or the live environment's key for a test poll, is 404", async () => {
    const { key, phone } = await h.seedTenant()
    const id = (await send(key, { fromPhoneId: phone.phoneNumber, to: TO, poll: POLL })).body.data.id
    const other = await h.seedTenant({ phoneNumber: "+14155550777" })
    expect((await h.request("GET", `/v1/messages/${id}/poll`, { key: other.key })).status).toBe(404)
    const live = await h.seedKey((await h.services.ctx.store.findMessage(id))!.accountId, { env: "live" })
    expect((await h.request("GET", `/v1/messages/${id}/poll`, { key: live })).status).toBe(404)
  })
})
