import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { setCallPolicy } from "../../src/domain/call-actions"
import { CALL_REPLY_WINDOW_MS } from "../../src/domain/calls"
import { EVENT_CATALOGUE } from "../../src/domain/event-catalogue"
import { createEndpoint } from "../../src/domain/webhook-endpoints"
import { Envelope } from "../../src/http/models/common"
import { SandboxCall } from "../../src/http/models/sandbox"
import { createHarness, expectErrorEnvelope, expectSchema, type Harness } from "../helpers/harness"
import { eventsOf, liveTenant } from "../live/live-helpers"

/*
 * POST /v1/sandbox/calls (docs/api.md § "Sandbox inbound and calls"): a simulated incoming call
 * emits what a live one does, follows the phone's call policy, and is rejected with the test key.
 * Success, errors, security.
 */

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

const CALLER = "+14155550166"
const ring = (key: string, body: unknown) => h.request("POST", "/v1/sandbox/calls", { key, body })
const reject = (key: string, callId: string, fromPhoneId: string) => h.request("POST", `/v1/calls/${callId}/reject`, { key, body: { fromPhoneId } })

async function sandboxTenant() {
  const tenant = await h.seedTenant()
  await createEndpoint(h.services.ctx, { accountId: tenant.account.id, env: "test", url: "http://127.0.0.1:9/unused", events: ["*"] })
  return tenant
}

describe("sandbox calls: success", () => {
  test("a simulated call rings (201) and emits call.received; the test key rejects it: 204, then call.ended rejected, then 409", async () => {
    const { key, phone } = await sandboxTenant()
    const res = await ring(key, { fromPhoneId: phone.phoneNumber, from: CALLER, isVideo: true })
    expect(res.status).toBe(201)
    expectSchema(Envelope(SandboxCall), res.body)
    const call = res.body.data
    expect(call).toMatchObject({ phoneId: phone.id, from: CALLER, isVideo: true, status: "ringing", outcome: null, replySent: false })
    expect(call.callId).toMatch(/^[0-9A-F]{32}$/)
    const received = eventsOf(h, "call.received").map((e) => e.data)
    expect(received).toEqual([{ callId: call.callId, phoneId: phone.id, from: CALLER, isVideo: true, isGroup: false, at: call.at }])
    expectSchema(EVENT_CATALOGUE["call.received"].data, received[0])
    expect((await reject(key, call.callId, phone.phoneNumber)).status).toBe(204)
    expect(eventsOf(h, "call.ended").map((e) => [e.data.callId, e.data.outcome])).toEqual([[call.callId, "rejected"]])
    expect(expectErrorEnvelope(await reject(key, call.callId, phone.phoneNumber), 409, "Conflict")[0]).toContain("has ended (rejected)")
    expect(h.gateway.callRejects).toEqual([])
  })

  test("under a rejecting call policy the call ends at once, and the reply text goes to a caller at most once an hour", async () => {
    const { key, phone } = await sandboxTenant()
    await setCallPolicy(h.services.ctx, phone.id, { rejectCalls: true, replyText: "Please write to us" })
    const first = (await ring(key, { fromPhoneId: phone.phoneNumber, from: CALLER })).body.data
    expect(first).toMatchObject({ status: "ended", outcome: "rejected", replySent: true, isVideo: false })
    const again = (await ring(key, { fromPhoneId: phone.phoneNumber, from: CALLER })).body.data
    const other = (await ring(key, { fromPhoneId: phone.phoneNumber, from: "+14155550177" })).body.data
    expect([again.replySent, other.replySent]).toEqual([false, true])
    await h.advance(CALL_REPLY_WINDOW_MS)
    expect((await ring(key, { fromPhoneId: phone.phoneNumber, from: CALLER })).body.data.replySent).toBe(true)
    expect(eventsOf(h, "call.ended").map((e) => e.data.outcome)).toEqual(["rejected", "rejected", "rejected", "rejected"])
  })

  test("a policy without rejectCalls lets the simulated call ring", async () => {
    const { key, phone } = await sandboxTenant()
    await setCallPolicy(h.services.ctx, phone.id, { rejectCalls: false, replyText: "unused" })
    expect((await ring(key, { fromPhoneId: phone.id, from: CALLER })).body.data).toMatchObject({ status: "ringing", replySent: false })
    expect(eventsOf(h, "call.ended")).toEqual([])
  })
})

describe("sandbox calls: errors", () => {
  test("from that is not E.164 and a wrong isVideo are 400 with one message each; an unknown phone is 404", async () => {
    const { key, phone } = await h.seedTenant()
    expect(expectErrorEnvelope(await ring(key, { fromPhoneId: phone.phoneNumber, from: "12345" }), 400, "Bad Request")).toEqual([
      "from must be the caller's E.164 number (+ and 8–15 digits)",
    ])
    expect(expectErrorEnvelope(await ring(key, { fromPhoneId: phone.phoneNumber, from: CALLER, isVideo: "yes" }), 400, "Bad Request")).toEqual(["isVideo must be true or false"])
    expect(expectErrorEnvelope(await ring(key, { fromPhoneId: "+14155559999", from: CALLER }), 404, "Not Found")).toEqual(["Phone number +14155559999 not found"])
  })
})

describe("sandbox calls: security", () => {
  test("a live key is 403 with a readable message, and no call is recorded", async () => {
    const { key, phone } = await liveTenant(h, { connect: false })
    const res = await ring(key, { fromPhoneId: phone.phoneNumber, from: CALLER })
    expect(expectErrorEnvelope(res, 403, "Forbidden")[0]).toStartWith("POST /v1/sandbox/calls works with test keys only")
    expect(eventsOf(h)).toEqual([])
  })

  test("a simulated call cannot be rejected by a live key of the same account, nor by another account's test key", async () => {
    const { account, key, phone } = await sandboxTenant()
    const live = await h.seedKey(account.id, { env: "live" })
    const other = await h.seedTenant()
    const { callId } = (await ring(key, { fromPhoneId: phone.phoneNumber, from: CALLER })).body.data
    expect(expectErrorEnvelope(await reject(live, callId, phone.phoneNumber), 404, "Not Found")).toEqual([`Call ${callId} not found`])
    expect((await reject(other.key, callId, phone.phoneNumber)).status).toBe(404)
    expect((await reject(other.key, callId, other.phone.phoneNumber)).status).toBe(404)
    expect((await ring(other.key, { fromPhoneId: phone.phoneNumber, from: CALLER })).status).toBe(404)
    expect(eventsOf(h, "call.ended")).toEqual([])
  })
})
