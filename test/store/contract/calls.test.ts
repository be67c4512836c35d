import { expect, setDefaultTimeout, test } from "bun:test"
import type { CallRow } from "../../../src/store/calls"
import { TEST_EPOCH_MS } from "../../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../../helpers/timeouts"
import { account, phone } from "./fixtures"
import { describeStores, type ContractStore } from "./stores"

/* Incoming calls, call policies and the policy's replies (CallsQueries, SQLite migrations 24 and 28 / PostgreSQL 12 and 16) on both stores. */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const T = TEST_EPOCH_MS
const HOUR = 60 * 60 * 1000

const offer = (over: Partial<CallRow> = {}): Omit<CallRow, "endedAtMs" | "outcome"> => ({
  phoneId: "ph_1",
  env: "live",
  callId: "CALL1",
  caller: "123456789012345@lid",
  callerJid: "123456789012345:3@lid",
  isVideo: true,
  isGroup: false,
  offeredAtMs: T,
  ...over,
})

async function withPhones(store: ContractStore): Promise<ContractStore> {
  await store.insertAccount(account())
  await store.insertPhone(phone())
  await store.insertPhone(phone({ id: "ph_2", phoneNumber: "+15550000002" }))
  return store
}

describeStores("calls", (open) => {
  test("a call is recorded once per phone and reads back as written, ringing", async () => {
    const store = await withPhones(await open())
    expect(await store.write((q) => q.insertCall(offer()))).toBe(true)
    expect(await store.write((q) => q.insertCall(offer({ caller: "+14155550166", offeredAtMs: T + 9 })))).toBe(false)
    expect(await store.write((q) => q.insertCall(offer({ phoneId: "ph_2" })))).toBe(true)
    expect(await store.findCall("ph_1", "live", "CALL1")).toEqual({ ...offer(), endedAtMs: null, outcome: null })
    expect(await store.findCall("ph_1", "live", "OTHER")).toBeNull()
  })

  test("a call ends once: its first end stands, an unknown call ends nothing", async () => {
    const store = await withPhones(await open())
    await store.write((q) => q.insertCall(offer()))
    expect(await store.write((q) => q.endCall("ph_1", "CALL1", "answered_elsewhere", T + 5))).toBe(true)
    expect(await store.write((q) => q.endCall("ph_1", "CALL1", "missed", T + 9))).toBe(false)
    expect(await store.write((q) => q.endCall("ph_2", "CALL1", "missed", T + 9))).toBe(false)
    expect(await store.findCall("ph_1", "live", "CALL1")).toMatchObject({ endedAtMs: T + 5, outcome: "answered_elsewhere" })
  })

  test("pruning deletes only the phone's calls offered before the cutoff", async () => {
    const store = await withPhones(await open())
    await store.write((q) => q.insertCall(offer({ callId: "OLD" })))
    await store.write((q) => q.insertCall(offer({ callId: "NEW", offeredAtMs: T + 10 })))
    await store.write((q) => q.insertCall(offer({ phoneId: "ph_2", callId: "OLD" })))
    expect(await store.write((q) => q.pruneCalls("ph_1", T + 1))).toBe(1)
    expect(await store.findCall("ph_1", "live", "OLD")).toBeNull()
    expect(await store.findCall("ph_1", "live", "NEW")).not.toBeNull()
    expect(await store.findCall("ph_2", "live", "OLD")).not.toBeNull()
  })

  test("a phone's call policy is none until set, then the last one set", async () => {
    const store = await withPhones(await open())
    expect(await store.findCallPolicy("ph_1")).toBeNull()
    await store.write((q) => q.saveCallPolicy({ phoneId: "ph_1", rejectCalls: true, replyText: "Schreiben Sie uns ✉️", updatedAtMs: T }))
    await store.write((q) => q.saveCallPolicy({ phoneId: "ph_1", rejectCalls: false, replyText: null, updatedAtMs: T + 1 }))
    await store.write((q) => q.saveCallPolicy({ phoneId: "ph_2", rejectCalls: true, replyText: "Busy", updatedAtMs: T }))
    expect(await store.findCallPolicy("ph_1")).toEqual({ phoneId: "ph_1", rejectCalls: false, replyText: null, updatedAtMs: T + 1 })
    expect(await store.findCallPolicy("ph_2")).toEqual({ phoneId: "ph_2", rejectCalls: true, replyText: "Busy", updatedAtMs: T })
  })

  test("a caller's reply is claimed at most once per window, per phone and caller", async () => {
    const store = await withPhones(await open())
    const claim = (phoneId: string, caller: string, atMs: number) => store.write((q) => q.claimCallReply(phoneId, "live", caller, atMs, HOUR))
    expect(await claim("ph_1", "+14155550166", T)).toBe(true)
    expect(await claim("ph_1", "+14155550166", T + HOUR - 1)).toBe(false)
    expect(await claim("ph_1", "+14155550177", T + 1)).toBe(true)
    expect(await claim("ph_2", "+14155550166", T + 1)).toBe(true)
    expect(await claim("ph_1", "+14155550166", T + HOUR)).toBe(true)
    expect(await claim("ph_1", "+14155550166", T + HOUR + 1)).toBe(false)
  })

  test("two claims at once for the same caller: exactly one wins", async () => {
    const store = await withPhones(await open())
    const results = await Promise.all(Array.from({ length: 6 }, () => store.write((q) => q.claimCallReply("ph_1", "live", "+14155550166", T, HOUR))))
    expect(results.filter(Boolean)).toHaveLength(1)
  })

  test("a call is found only in its own environment: a sandbox call is invisible to live look-ups and the other way round", async () => {
    const store = await withPhones(await open())
    await store.write((q) => q.insertCall(offer({ env: "test", callId: "SANDBOX1" })))
    await store.write((q) => q.insertCall(offer({ callId: "LIVE1" })))
    expect(await store.findCall("ph_1", "test", "SANDBOX1")).toEqual({ ...offer({ env: "test", callId: "SANDBOX1" }), endedAtMs: null, outcome: null })
    expect(await store.findCall("ph_1", "live", "SANDBOX1")).toBeNull()
    expect(await store.findCall("ph_1", "test", "LIVE1")).toBeNull()
  })

  test("a caller's reply window is kept per environment: a sandbox reply does not hold back a live one", async () => {
    const store = await withPhones(await open())
    const claim = (env: "test" | "live", atMs: number) => store.write((q) => q.claimCallReply("ph_1", env, "+14155550166", atMs, HOUR))
    expect(await claim("test", T)).toBe(true)
    expect(await claim("live", T + 1)).toBe(true)
    expect(await claim("test", T + 2)).toBe(false)
    expect(await claim("live", T + 3)).toBe(false)
  })

  test("a removed phone takes its calls, policy and replies with it", async () => {
    const store = await withPhones(await open())
    await store.write((q) => q.insertCall(offer()))
    await store.write((q) => q.saveCallPolicy({ phoneId: "ph_1", rejectCalls: true, replyText: null, updatedAtMs: T }))
    await store.write((q) => q.claimCallReply("ph_1", "live", "+14155550166", T, HOUR))
    await store.write((q) => q.deletePhone("ph_1"))
    expect(await store.findCall("ph_1", "live", "CALL1")).toBeNull()
    expect(await store.findCallPolicy("ph_1")).toBeNull()
  })
})
