import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { optionHash } from "../../src/domain/poll-rules"
import { Envelope } from "../../src/http/models/common"
import { PollResults } from "../../src/http/models/polls"
import { PollSecretMissingError, type InboundMessage } from "../../src/whatsapp/gateway"
import { createHarness, expectErrorEnvelope, expectSchema, type Harness } from "../helpers/harness"
import { liveTenant } from "../live/live-helpers"

/*
 * Polls with live keys through the gateway port (docs/api.md § "Polls"): a contact's poll is
 * recorded as inbound, votes are tallied by option hash, a vote on a poll wagate has not recorded
 * is counted once the poll arrives, and our own vote goes through the phone that received it.
 */

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

const CAROL = "+14155550144"
const OPTIONS = ["Tea", "Coffee", "Water"]

function pollFrom(from: string, waMessageId: string, multipleAnswers = false): InboundMessage {
  return {
    waMessageId,
    from,
    isGroup: false,
    groupId: null,
    type: "poll",
    content: "Tea or coffee?",
    receivedAtMs: h.clock.nowMs(),
    details: { poll: { question: "Tea or coffee?", options: OPTIONS, optionHashes: OPTIONS.map(optionHash), multipleAnswers } },
  }
}

async function inboundPoll(key: string): Promise<string> {
  const list = await h.request("GET", "/v1/messages/inbound", { key })
  return (list.body.data.data as { id: string; type: string }[]).find((m) => m.type === "poll")!.id
}

describe("live polls: success", () => {
  test("a contact's poll is an inbound of type poll; votes on it are tallied, a newer vote replacing the older", async () => {
    const { key, phone } = await liveTenant(h)
    const session = h.gateway.current(phone.id)
    session.receive(pollFrom(CAROL, "POLL1"))
    await h.settle()
    const id = await inboundPoll(key)
    expect((await h.request("GET", `/v1/messages/inbound/${id}`, { key })).body.data).toMatchObject({ type: "poll", content: "Tea or coffee?" })
    const t = h.clock.nowMs()
    session.vote({ pollWaMessageId: "POLL1", voter: CAROL, optionHashes: [optionHash("Tea")], atMs: t })
    session.vote({ pollWaMessageId: "POLL1", voter: CAROL, optionHashes: [optionHash("Water")], atMs: t + 1 })
    session.vote({ pollWaMessageId: "POLL1", voter: "204519374921837@lid", optionHashes: [optionHash("Water"), "00ff"], atMs: t + 2 })
    await h.settle()
    const res = await h.request("GET", `/v1/messages/inbound/${id}/poll`, { key })
    expectSchema(Envelope(PollResults), res.body)
    expect(res.body.data.options).toEqual([{ name: "Tea", votes: 0 }, { name: "Coffee", votes: 0 }, { name: "Water", votes: 2 }])
    expect(res.body.data.voters.map((v: { voter: string }) => v.voter)).toEqual([CAROL, "204519374921837@lid"])
  })

  test("a vote recorded before its poll counts, and emits poll.vote, once the poll is recorded", async () => {
    const { account, key, phone } = await liveTenant(h)
    await h.request("POST", `/admin/v1/accounts/${account.id}/webhooks`, { key: await h.adminToken(), body: { url: "http://127.0.0.1:9/hook", environment: "live", events: ["poll.vote"] } })
    const session = h.gateway.current(phone.id)
    session.vote({ pollWaMessageId: "EARLY", voter: CAROL, optionHashes: [optionHash("Coffee")], atMs: h.clock.nowMs() })
    await h.settle()
    session.receive(pollFrom(CAROL, "EARLY"))
    await h.settle()
    const id = await inboundPoll(key)
    expect((await h.request("GET", `/v1/messages/inbound/${id}/poll`, { key })).body.data.options[1]).toEqual({ name: "Coffee", votes: 1 })
    const events = h.services.sqlite!.query("SELECT body FROM events WHERE type = 'poll.vote'").all() as { body: string }[]
    expect(events.map((e) => JSON.parse(e.body).data)).toEqual([{ messageId: id, voter: CAROL, options: ["Coffee"], at: expect.any(String) }])
  })

  test("our vote goes through the phone that received the poll, by option hash, and counts with the others", async () => {
    const { key, phone } = await liveTenant(h)
    h.gateway.current(phone.id).receive(pollFrom(CAROL, "POLL2", true))
    await h.settle()
    const id = await inboundPoll(key)
    const res = await h.request("POST", `/v1/messages/inbound/${id}/vote`, { key, body: { options: ["Water", "Tea"] } })
    expect(res.status).toBe(200)
    expect(h.gateway.actions.at(-1)).toEqual({ phoneId: phone.id, kind: "vote", target: { chatJid: "14155550144@s.whatsapp.net", waMessageId: "POLL2", fromMe: false }, optionHashes: [optionHash("Water"), optionHash("Tea")] })
    expect(res.body.data.options).toEqual([{ name: "Tea", votes: 1 }, { name: "Coffee", votes: 0 }, { name: "Water", votes: 1 }])
    expect(res.body.data.voters).toEqual([{ voter: phone.phoneNumber, options: ["Tea", "Water"], at: expect.any(String) }])
    expect((await h.request("POST", `/v1/messages/inbound/${id}/vote`, { key, body: { options: [] } })).body.data.voters[0].options).toEqual([])
  })
})

describe("live polls: errors", () => {
  test("options not in the poll, repeated, or two on a single-answer poll are 400, one message each; nothing is sent", async () => {
    const { key, phone } = await liveTenant(h)
    h.gateway.current(phone.id).receive(pollFrom(CAROL, "POLL3"))
    await h.settle()
    const id = await inboundPoll(key)
    const vote = (options: string[]) => h.request("POST", `/v1/messages/inbound/${id}/vote`, { key, body: { options } })
    expect(expectErrorEnvelope(await vote(["Juice"]), 400, "Bad Request")).toEqual(["options[0] is not an option of this poll"])
    expect(expectErrorEnvelope(await vote(["Tea", "Coffee"]), 400, "Bad Request")).toEqual(["this poll takes one answer: options must hold at most one option"])
    expect(expectErrorEnvelope(await vote(["Tea", "Tea"]), 400, "Bad Request")).toEqual(["this poll takes one answer: options must hold at most one option", "options[1] repeats an earlier option"])
    expect(h.gateway.actions.filter((a) => a.kind === "vote")).toEqual([])
  })

  test("a poll wagate holds no secret for is 409 with the reason; a message that is not a poll is 404", async () => {
    const { key, phone } = await liveTenant(h)
    const session = h.gateway.current(phone.id)
    session.receive(pollFrom(CAROL, "POLL4"))
    session.receive({ waMessageId: "TXT", from: CAROL, isGroup: false, groupId: null, type: "text", content: "hi", receivedAtMs: h.clock.nowMs() })
    await h.settle()
    const id = await inboundPoll(key)
    h.gateway.actionError = new PollSecretMissingError()
    const refused = await h.request("POST", `/v1/messages/inbound/${id}/vote`, { key, body: { options: ["Tea"] } })
    expect(expectErrorEnvelope(refused, 409, "Conflict")[0]).toContain("holds no secret")
    const list = (await h.request("GET", "/v1/messages/inbound", { key })).body.data.data as { id: string; type: string }[]
    const text = list.find((m) => m.type === "text")!.id
    expect((await h.request("POST", `/v1/messages/inbound/${text}/vote`, { key, body: { options: ["Tea"] } })).status).toBe(404)
  })

  test("a test key finds no inbound poll to vote on (404)", async () => {
    const { key } = await h.seedTenant()
    expect((await h.request("POST", "/v1/messages/inbound/inmsg_x/vote", { key, body: { options: [] } })).status).toBe(404)
  })
})
