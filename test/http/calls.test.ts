import { afterEach, describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { EVENT_CATALOGUE } from "../../src/domain/event-catalogue"
import type { CallSignal } from "../../src/whatsapp/gateway"
import { createHarness, expectErrorEnvelope, expectSchema, type Harness } from "../helpers/harness"
import { TestClock } from "../helpers/test-clock"
import { eventsOf, liveTenant, recordEvents } from "../live/live-helpers"

/*
 * Calls (docs/api.md § "Calls"): call.received and call.ended from the adapter's call steps,
 * POST /v1/calls/{callId}/reject, and the per-phone call policy with its reply at most once per
 * caller per hour. Success, errors, security.
 */

let h: Harness
afterEach(() => h.close())

const CALLER = "+14155550166"
const step = (callId: string, stage: CallSignal["stage"], atMs: number, from = CALLER): CallSignal => ({
  callId,
  stage,
  from,
  callerJid: from.startsWith("+") ? `${from.slice(1)}@s.whatsapp.net` : from,
  isVideo: false,
  isGroup: false,
  atMs,
})
const reject = (key: string, callId: string, fromPhoneId: string) => h.request("POST", `/v1/calls/${callId}/reject`, { key, body: { fromPhoneId } })

/** Lets the call chain (record, policy, reply) run to its end. */
async function settleCalls(): Promise<void> {
  for (let i = 0; i < 8; i++) await h.settle()
}

async function ringing(callId = "CALL1") {
  const tenant = await liveTenant(h)
  await recordEvents(h, tenant.account.id)
  h.gateway.current(tenant.phone.id).callStep(step(callId, "offered", h.clock.nowMs()))
  await settleCalls()
  return tenant
}

describe("calls: success", () => {
  test("a call emits call.received once, even when WhatsApp repeats the offer, and call.ended once", async () => {
    h = await createHarness()
    const { phone } = await ringing()
    const session = h.gateway.current(phone.id)
    session.callStep(step("CALL1", "offered", h.clock.nowMs()))
    session.callStep(step("CALL1", "terminated", h.clock.nowMs() + 5_000))
    session.callStep(step("CALL1", "timed_out", h.clock.nowMs() + 6_000))
    await settleCalls()
    const received = eventsOf(h, "call.received")
    expect(received.map((e) => e.data)).toEqual([
      { callId: "CALL1", phoneId: phone.id, from: CALLER, isVideo: false, isGroup: false, at: new Date(h.clock.nowMs()).toISOString() },
    ])
    expectSchema(EVENT_CATALOGUE["call.received"].data, received[0]!.data)
    const ended = eventsOf(h, "call.ended")
    expect(ended.map((e) => [e.data.callId, e.data.outcome, e.data.at])).toEqual([["CALL1", "missed", new Date(h.clock.nowMs() + 5_000).toISOString()]])
    expectSchema(EVENT_CATALOGUE["call.ended"].data, ended[0]!.data)
  })

  test("a call answered on another device ends answered_elsewhere, and the terminate after it ends nothing", async () => {
    h = await createHarness()
    const { phone } = await ringing()
    h.gateway.current(phone.id).callStep(step("CALL1", "accepted_elsewhere", h.clock.nowMs() + 2_000))
    h.gateway.current(phone.id).callStep(step("CALL1", "terminated", h.clock.nowMs() + 60_000))
    await settleCalls()
    expect(eventsOf(h, "call.ended").map((e) => e.data.outcome)).toEqual(["answered_elsewhere"])
  })

  test("a live key rejects a ringing call: 204, WhatsApp gets the reject for the caller, call.ended says rejected", async () => {
    h = await createHarness()
    const { key, phone } = await ringing()
    const res = await reject(key, "CALL1", phone.phoneNumber)
    expect(res.status).toBe(204)
    expect(h.gateway.callRejects).toEqual([{ phoneId: phone.id, callId: "CALL1", callerJid: "14155550166@s.whatsapp.net" }])
    expect(eventsOf(h, "call.ended").map((e) => e.data.outcome)).toEqual(["rejected"])
  })

  test("the call policy rejects every call and answers a caller once per hour, by the injected clock", async () => {
    h = await createHarness()
    const { phone } = await liveTenant(h)
    await recordEvents(h, phone.accountId)
    const admin = await h.adminToken()
    const put = await h.request("PUT", `/admin/v1/phones/${phone.id}/call-policy`, { key: admin, body: { rejectCalls: true, replyText: "We cannot take calls; please write." } })
    expect(put.status).toBe(200)
    const session = h.gateway.current(phone.id)
    const replies = () => h.gateway.sent.filter((s) => s.part.text === "We cannot take calls; please write.").map((s) => s.part.toJid)

    session.callStep(step("C1", "offered", h.clock.nowMs()))
    await settleCalls()
    await h.advance(59 * 60_000)
    session.callStep(step("C2", "offered", h.clock.nowMs()))
    session.callStep(step("C3", "offered", h.clock.nowMs(), "+14155550177"))
    await settleCalls()
    await h.advance(60_000)
    session.callStep(step("C4", "offered", h.clock.nowMs()))
    await settleCalls()

    expect(h.gateway.callRejects.map((r) => r.callId)).toEqual(["C1", "C2", "C3", "C4"])
    expect(eventsOf(h, "call.ended").map((e) => [e.data.callId, e.data.outcome])).toEqual([
      ["C1", "rejected"],
      ["C2", "rejected"],
      ["C3", "rejected"],
      ["C4", "rejected"],
    ])
    // C1 answered; C2 within the hour not; the other caller's C3 answered; C4 an hour after C1 answered again.
    expect(replies()).toEqual(["14155550166@s.whatsapp.net", "14155550177@s.whatsapp.net", "14155550166@s.whatsapp.net"])
  })

  test("a group call is rejected under the policy, with no reply to the group's caller", async () => {
    h = await createHarness()
    const { phone } = await liveTenant(h)
    await h.request("PUT", `/admin/v1/phones/${phone.id}/call-policy`, { key: await h.adminToken(), body: { rejectCalls: true, replyText: "Write to us" } })
    h.gateway.current(phone.id).callStep({ ...step("G1", "offered", h.clock.nowMs()), isGroup: true, isVideo: true })
    await settleCalls()
    expect(h.gateway.callRejects.map((r) => r.callId)).toEqual(["G1"])
    expect(h.gateway.sent).toEqual([])
  })

  test("the once-an-hour reply holds across a restart: it is kept in the database", async () => {
    const dir = mkdtempSync(join(tmpdir(), "wagate-calls-"))
    try {
      const databasePath = join(dir, "wagate.db")
      h = await createHarness({ databasePath })
      const { phone } = await liveTenant(h)
      await h.request("PUT", `/admin/v1/phones/${phone.id}/call-policy`, { key: await h.adminToken(), body: { rejectCalls: true, replyText: "Write to us" } })
      h.gateway.current(phone.id).callStep(step("R1", "offered", h.clock.nowMs()))
      await settleCalls()
      expect(h.gateway.sent.filter((s) => s.part.text === "Write to us")).toHaveLength(1)
      await h.close()

      const clock = new TestClock()
      clock.advance(30 * 60_000)
      h = await createHarness({ databasePath, clock })
      await h.connectPhone((await h.services.ctx.store.findPhone(phone.id))!)
      h.gateway.current(phone.id).callStep(step("R2", "offered", h.clock.nowMs()))
      await settleCalls()
      expect(h.gateway.callRejects.map((r) => r.callId)).toEqual(["R2"])
      expect(h.gateway.sent.filter((s) => s.part.text === "Write to us")).toEqual([])
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test("the admin API reads and sets the policy; a phone without one lets calls ring", async () => {
    h = await createHarness()
    const { phone } = await liveTenant(h)
    const admin = await h.adminToken()
    const before = await h.request("GET", `/admin/v1/phones/${phone.phoneNumber}/call-policy`, { key: admin })
    expect(before.body.data).toMatchObject({ phoneId: phone.id, rejectCalls: false, replyText: null })
    await h.request("PUT", `/admin/v1/phones/${phone.id}/call-policy`, { key: admin, body: { rejectCalls: true, replyText: "Busy" } })
    // replyText absent keeps the text; "" clears it.
    expect((await h.request("PUT", `/admin/v1/phones/${phone.id}/call-policy`, { key: admin, body: { rejectCalls: false } })).body.data).toMatchObject({ rejectCalls: false, replyText: "Busy" })
    expect((await h.request("PUT", `/admin/v1/phones/${phone.id}/call-policy`, { key: admin, body: { rejectCalls: true, replyText: "" } })).body.data).toMatchObject({ rejectCalls: true, replyText: null })
    h.gateway.current(phone.id).callStep(step("N1", "offered", h.clock.nowMs()))
    await settleCalls()
    expect(h.gateway.callRejects.map((r) => r.callId)).toEqual(["N1"])
    expect(h.gateway.sent).toEqual([])
  })
})

describe("calls: errors", () => {
  test("a call that has ended: 409 that says how, and nothing reaches WhatsApp", async () => {
    h = await createHarness()
    const { key, phone } = await ringing()
    h.gateway.current(phone.id).callStep(step("CALL1", "timed_out", h.clock.nowMs() + 45_000))
    await settleCalls()
    expect(expectErrorEnvelope(await reject(key, "CALL1", phone.id), 409, "Conflict")).toEqual(["Call CALL1 has ended (missed); only a ringing call can be rejected"])
    expect(h.gateway.callRejects).toEqual([])
  })

  test("an unknown call: 404", async () => {
    h = await createHarness()
    const { key, phone } = await liveTenant(h)
    expect(expectErrorEnvelope(await reject(key, "NOPE", phone.id), 404, "Not Found")).toEqual(["Call NOPE not found"])
  })

  test("a test key: every call is 404 (the sandbox has no callers), the phone must still exist", async () => {
    h = await createHarness()
    const { key, phone } = await h.seedTenant()
    expect(expectErrorEnvelope(await reject(key, "CALL1", phone.phoneNumber), 404, "Not Found")).toEqual(["Call CALL1 not found"])
    expect(expectErrorEnvelope(await reject(key, "CALL1", "+14155550000"), 404, "Not Found")).toEqual(["Phone number +14155550000 not found"])
  })

  test.each([
    { name: "no fromPhoneId", body: {}, message: "fromPhoneId is required" },
    { name: "an environment", body: { fromPhoneId: "+14155550123", environment: "live" }, message: "environment must not be sent: it is inferred from the API key" },
  ])("$name: 400 with one readable message", async ({ body, message }) => {
    h = await createHarness()
    const { key } = await h.seedTenant()
    expect(expectErrorEnvelope(await h.request("POST", "/v1/calls/CALL1/reject", { key, body }), 400, "Bad Request")).toEqual([message])
  })

  test("a ringing call whose phone is not connected: 400 that says its status", async () => {
    h = await createHarness()
    const { key, phone } = await ringing()
    h.gateway.current(phone.id).drop("connection_lost")
    await h.settle()
    expect(expectErrorEnvelope(await reject(key, "CALL1", phone.id), 400, "Bad Request")[0]).toMatch(/^Phone \+\d+ is not connected/)
  })

  test("the policy's reply text over 1024 characters, or no rejectCalls: 400, the policy unchanged", async () => {
    h = await createHarness()
    const { phone } = await h.seedTenant()
    const admin = await h.adminToken()
    const put = (body: unknown) => h.request("PUT", `/admin/v1/phones/${phone.id}/call-policy`, { key: admin, body })
    expect(expectErrorEnvelope(await put({ rejectCalls: true, replyText: "x".repeat(1025) }), 400, "Bad Request")).toEqual(["replyText must be text of at most 1024 characters, or null"])
    expect(expectErrorEnvelope(await put({ replyText: "hi" }), 400, "Bad Request")).toEqual(["rejectCalls is required"])
    expect((await put({ rejectCalls: true, replyText: "x".repeat(1024) })).status).toBe(200)
    expect(expectErrorEnvelope(await h.request("GET", "/admin/v1/phones/ph_nope/call-policy", { key: admin }), 404, "Not Found")).toEqual(["Phone number ph_nope not found"])
  })
})

describe("calls: security", () => {
  test("another account's call is 404 to this account's key, and stays ringing", async () => {
    h = await createHarness()
    const { phone } = await ringing()
    const other = await h.seedTenant({ env: "live" })
    expect(expectErrorEnvelope(await reject(other.key, "CALL1", phone.id), 404, "Not Found")).toEqual([`Phone number ${phone.id} not found`])
    expect(expectErrorEnvelope(await reject(other.key, "CALL1", other.phone.id), 404, "Not Found")).toEqual(["Call CALL1 not found"])
    expect(h.gateway.callRejects).toEqual([])
  })

  test("a key without messages:send is 403; the call policy needs the admin token", async () => {
    h = await createHarness()
    const { account, phone } = await liveTenant(h)
    const readOnly = await h.seedKey(account.id, { env: "live", scopes: ["messages:read"] })
    expectErrorEnvelope(await reject(readOnly, "CALL1", phone.id), 403, "Forbidden")
    expectErrorEnvelope(await h.request("GET", `/admin/v1/phones/${phone.id}/call-policy`, { key: readOnly }), 401, "Unauthorized")
    expectErrorEnvelope(await h.request("PUT", `/admin/v1/phones/${phone.id}/call-policy`, { body: { rejectCalls: true } }), 401, "Unauthorized")
  })

  test("a path that is no call id is 404 with the id bounded and escaped", async () => {
    h = await createHarness()
    const { key, phone } = await liveTenant(h)
    const [message] = expectErrorEnvelope(await reject(key, encodeURIComponent("a\u0007b".repeat(40)), phone.id), 404, "Not Found")
    expect(message).not.toContain("\u0007")
    expect(message!.length).toBeLessThan(120)
  })
})
