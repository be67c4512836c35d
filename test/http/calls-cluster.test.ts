import { afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import type { CallSignal } from "../../src/whatsapp/gateway"
import { cluster, forwardingCluster, pairedOnN1 } from "../helpers/forwarding-cluster"
import { expectErrorEnvelope } from "../helpers/harness"
import { testPostgres } from "../helpers/postgres"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { waitUntil } from "../helpers/webhook-receiver"

/*
 * Calls on several nodes (docs/api.md § "Calls"): the call is a row in the shared database, so a
 * reject asked of the node without the phone is judged there and replayed to the holder, whose
 * socket sends it; the call policy set through any node is the one the holder applies.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

beforeAll(async () => void (await testPostgres()), SLOW_HOOK_TIMEOUT_MS)
afterEach(() => forwardingCluster.close(), SLOW_HOOK_TIMEOUT_MS)

const offer = (callId: string, atMs: number): CallSignal => ({
  callId,
  stage: "offered",
  from: "+14155550166",
  callerJid: "14155550166@s.whatsapp.net",
  isVideo: false,
  isGroup: false,
  atMs,
})

describe("calls across nodes", () => {
  test("a call ringing on n1, rejected through n2: the holder sends the reject, the call ends rejected, a second reject through n2 is 409", async () => {
    const { n1, n2, gateway } = await cluster()
    const { key, phone } = await pairedOnN1(n1)
    gateway.current(phone.id).callStep(offer("CALLX", n1.clock.nowMs()))
    await waitUntil(async () => (await n2.services.ctx.store.findCall(phone.id, "live", "CALLX")) !== null, 10_000, "the call to be recorded")
    const res = await n2.request("POST", "/v1/calls/CALLX/reject", { key, body: { fromPhoneId: phone.phoneNumber } })
    expect(res.status).toBe(204)
    expect(res.headers.get("x-wagate-node")).toBe("n1")
    expect(gateway.callRejects).toEqual([{ phoneId: phone.id, callId: "CALLX", callerJid: "14155550166@s.whatsapp.net" }])
    expect(await n2.services.ctx.store.findCall(phone.id, "live", "CALLX")).toMatchObject({ outcome: "rejected" })
    // Judged from the shared row on n2 itself: no forwarding for a call that has ended.
    const again = await n2.request("POST", "/v1/calls/CALLX/reject", { key, body: { fromPhoneId: phone.phoneNumber } })
    expect(expectErrorEnvelope(again, 409, "Conflict")).toEqual(["Call CALLX has ended (rejected); only a ringing call can be rejected"])
    expect(again.headers.get("x-wagate-node")).toBeNull()
  })

  test("a policy set through n2 is applied by n1, which holds the phone", async () => {
    const { n1, n2, gateway } = await cluster()
    const { phone } = await pairedOnN1(n1)
    const put = await n2.request("PUT", `/admin/v1/phones/${phone.id}/call-policy`, { key: await n2.adminToken(), body: { rejectCalls: true, replyText: "Write to us" } })
    expect(put.status).toBe(200)
    gateway.current(phone.id).callStep(offer("CALLY", n1.clock.nowMs()))
    await waitUntil(async () => gateway.sent.some((s) => s.part.text === "Write to us"), 10_000, "the reply")
    expect(gateway.callRejects.map((r) => r.callId)).toEqual(["CALLY"])
    expect(await n2.services.ctx.store.findCall(phone.id, "live", "CALLY")).toMatchObject({ outcome: "rejected" })
  })
})
