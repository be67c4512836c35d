import { expect, setDefaultTimeout, test } from "bun:test"
import { TEST_EPOCH_MS } from "../../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../../helpers/timeouts"
import { account, messageRow, phone } from "./fixtures"
import { describeStores, seed, type SeedRow } from "./stores"

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

describeStores("phones", (open) => {
  test("a phone is found by id or number within its account only, and by id or number across accounts", async () => {
    const store = await open()
    await store.insertAccount(account())
    await store.insertAccount(account({ id: "acc_2" }))
    await store.insertPhone(phone())
    expect(await store.findPhoneByRef("acc_1", "ph_1")).toEqual(phone())
    expect(await store.findPhoneByRef("acc_1", "+15550000001")).toEqual(phone())
    expect(await store.findPhoneByRef("acc_2", "ph_1")).toBeNull()
    expect(await store.findPhone("ph_1")).toEqual(phone())
    expect(await store.findPhoneByNumber("+15550000001")).toEqual(phone())
    expect(await store.findPhone("ph_none")).toBeNull()
    expect(await store.findPhoneByNumber("+15559999999")).toBeNull()
  })

  test("a number belongs to one phone in the whole instance", async () => {
    const store = await open()
    await store.insertAccount(account())
    await store.insertAccount(account({ id: "acc_2" }))
    await store.insertPhone(phone())
    await expect(store.insertPhone(phone({ id: "ph_2", accountId: "acc_2" }))).rejects.toThrow()
  })

  test("phones are listed oldest first, per account and for the whole instance", async () => {
    const store = await open()
    await store.insertAccount(account())
    await store.insertAccount(account({ id: "acc_2" }))
    await store.insertPhone(phone({ id: "ph_c", phoneNumber: "+1555000003", createdAtMs: TEST_EPOCH_MS + 1 }))
    await store.insertPhone(phone({ id: "ph_b", phoneNumber: "+1555000002" }))
    await store.insertPhone(phone({ id: "ph_a", phoneNumber: "+1555000001", accountId: "acc_2", createdAtMs: TEST_EPOCH_MS + 2 }))
    expect((await store.listPhones("acc_1")).map((p) => p.id)).toEqual(["ph_b", "ph_c"])
    expect((await store.listAllPhones()).map((p) => p.id)).toEqual(["ph_b", "ph_c", "ph_a"])
  })

  test("the connection state and the stay-offline flag are recorded; the last error is set and cleared", async () => {
    const store = await open()
    await store.insertAccount(account())
    await store.insertPhone(phone())
    await store.insertPhone(phone({ id: "ph_2", phoneNumber: "+15550000002" }))
    const state = { id: "ph_1", connectionStatus: "disconnected" as const, lastConnectedAtMs: TEST_EPOCH_MS + 1, lastDisconnectedAtMs: TEST_EPOCH_MS + 2, updatedAtMs: TEST_EPOCH_MS + 3 }
    await store.updatePhoneConnection(state, true)
    await store.updatePhoneConnection({ ...state, id: "ph_2" }, false)
    expect(await store.findPhone("ph_1")).toEqual(phone({ ...state }))
    expect(await store.listPhonesStayingOffline()).toEqual(new Set(["ph_1"]))
    await store.updatePhoneConnection({ ...state, connectionStatus: "connected" }, false)
    expect(await store.listPhonesStayingOffline()).toEqual(new Set())

    await store.updatePhoneLastError("ph_1", { code: "logged_out", message: "WhatsApp logged the phone out", atMs: TEST_EPOCH_MS + 9 })
    const failed = await store.findPhone("ph_1")
    expect([failed?.lastErrorCode, failed?.lastErrorMessage, failed?.lastErrorAtMs]).toEqual(["logged_out", "WhatsApp logged the phone out", TEST_EPOCH_MS + 9])
    await store.updatePhoneLastError("ph_1", null)
    const cleared = await store.findPhone("ph_1")
    expect([cleared?.lastErrorCode, cleared?.lastErrorMessage, cleared?.lastErrorAtMs]).toEqual([null, null, null])
  })

  test("when the offline-marker watchdog released a phone's events is recorded on that phone alone", async () => {
    const store = await open()
    await store.insertAccount(account())
    await store.insertPhone(phone())
    await store.insertPhone(phone({ id: "ph_2", phoneNumber: "+15550000002" }))
    expect((await store.findPhone("ph_1"))?.offlineWatchdogAtMs).toBeNull()
    await store.write(async (q) => await q.updatePhoneOfflineWatchdog("ph_1", TEST_EPOCH_MS + 5))
    expect((await store.findPhone("ph_1"))?.offlineWatchdogAtMs).toBe(TEST_EPOCH_MS + 5)
    expect((await store.findPhone("ph_2"))?.offlineWatchdogAtMs).toBeNull()
    await store.updatePhoneOfflineWatchdog("ph_1", TEST_EPOCH_MS + 7)
    expect((await store.listAllPhones()).map((p) => p.offlineWatchdogAtMs)).toEqual([TEST_EPOCH_MS + 7, null])
  })

  test("the announced WhatsApp Web version and its client expiry are kept; an expiry names its version, and a new version forgets the old one's", async () => {
    const store = await open()
    await store.insertAccount(account())
    await store.insertPhone(phone())
    const expiry = TEST_EPOCH_MS + 30 * 86_400_000
    await store.updatePhoneClientExpiry("ph_1", "2.3000.1", expiry)
    expect(await store.findPhone("ph_1")).toEqual(phone())
    await store.updatePhoneWaVersion("ph_1", "2.3000.1")
    await store.updatePhoneClientExpiry("ph_1", "2.3000.1", expiry)
    expect(await store.findPhone("ph_1")).toEqual(phone({ waVersion: "2.3000.1", clientExpiresAtMs: expiry }))
    await store.updatePhoneWaVersion("ph_1", "2.3000.1")
    expect((await store.findPhone("ph_1"))?.clientExpiresAtMs).toBe(expiry)
    await store.updatePhoneWaVersion("ph_1", "2.3000.2")
    expect(await store.findPhone("ph_1")).toEqual(phone({ waVersion: "2.3000.2", clientExpiresAtMs: null }))
    await store.updatePhoneClientExpiry("ph_1", "2.3000.1", expiry)
    expect((await store.findPhone("ph_1"))?.clientExpiresAtMs).toBeNull()
  })

  test("a deleted phone is gone and its number free again", async () => {
    const store = await open()
    await store.insertAccount(account())
    await store.insertPhone(phone())
    await store.deletePhone("ph_1")
    expect(await store.findPhone("ph_1")).toBeNull()
    await store.insertPhone(phone({ id: "ph_2" }))
    expect((await store.findPhoneByNumber("+15550000001"))?.id).toBe("ph_2")
  })
})

describeStores("send jobs", (open) => {
  test("a phone's jobs are listed oldest first (by message id within an instant); ending one removes it", async () => {
    const store = await open()
    await seed(store, "messages", [messageRow("msg_c", 1), messageRow("msg_b", 2), messageRow("msg_a", 3), messageRow("msg_x", 4, { phone_id: "ph_2" })])
    await store.insertSendJob({ messageId: "msg_c", phoneId: "ph_1", createdAtMs: TEST_EPOCH_MS })
    await store.insertSendJob({ messageId: "msg_b", phoneId: "ph_1", createdAtMs: TEST_EPOCH_MS + 1 })
    await store.insertSendJob({ messageId: "msg_a", phoneId: "ph_1", createdAtMs: TEST_EPOCH_MS })
    await store.insertSendJob({ messageId: "msg_x", phoneId: "ph_2", createdAtMs: TEST_EPOCH_MS })
    expect(await store.listSendJobs("ph_1")).toEqual([
      { messageId: "msg_a", phoneId: "ph_1", createdAtMs: TEST_EPOCH_MS },
      { messageId: "msg_c", phoneId: "ph_1", createdAtMs: TEST_EPOCH_MS },
      { messageId: "msg_b", phoneId: "ph_1", createdAtMs: TEST_EPOCH_MS + 1 },
    ])
    expect((await store.listPhonesWithJobs()).sort()).toEqual(["ph_1", "ph_2"])
    await store.deleteSendJob("msg_x")
    expect(await store.listSendJobs("ph_2")).toEqual([])
    expect(await store.listPhonesWithJobs()).toEqual(["ph_1"])
  })

  test("a job needs its message, and one message has at most one job", async () => {
    const store = await open()
    await expect(store.insertSendJob({ messageId: "msg_none", phoneId: "ph_1", createdAtMs: TEST_EPOCH_MS })).rejects.toThrow()
    await seed(store, "messages", [messageRow("msg_1", 1)])
    await store.insertSendJob({ messageId: "msg_1", phoneId: "ph_1", createdAtMs: TEST_EPOCH_MS })
    await expect(store.insertSendJob({ messageId: "msg_1", phoneId: "ph_1", createdAtMs: TEST_EPOCH_MS })).rejects.toThrow()
  })
})

describeStores("stats", (open, kind) => {
  test("phones are counted by connection status", async () => {
    const store = await open()
    await store.insertAccount(account())
    await store.insertPhone(phone({ id: "ph_1", phoneNumber: "+1", connectionStatus: "connected" }))
    await store.insertPhone(phone({ id: "ph_2", phoneNumber: "+2", connectionStatus: "connected" }))
    await store.insertPhone(phone({ id: "ph_3", phoneNumber: "+3" }))
    expect(await store.phonesByStatus()).toEqual([
      { status: "connected", n: 2 },
      { status: "unpaired", n: 1 },
    ])
  })

  test("outbound messages are summed by environment and status from the counters", async () => {
    const store = await open()
    // PostgreSQL spreads each counter over shards (src/store/postgres/schema-1.ts); the sum is the count.
    const counter = (env: string, phoneId: string, status: string, n: number, shard: number): SeedRow =>
      kind === "postgres" ? { account_id: "acc_1", env, phone_id: phoneId, status, n, shard } : { account_id: "acc_1", env, phone_id: phoneId, status, n }
    const rows =
      kind === "postgres"
        ? [counter("live", "ph_1", "sent", 2, 0), counter("live", "ph_1", "sent", 1, 7), counter("live", "ph_2", "sent", 4, 3), counter("test", "ph_1", "read", 5, 0), counter("live", "ph_1", "failed", 1, 2)]
        : [counter("live", "ph_1", "sent", 3, 0), counter("live", "ph_2", "sent", 4, 0), counter("test", "ph_1", "read", 5, 0), counter("live", "ph_1", "failed", 1, 0)]
    await seed(store, "message_counts", rows)
    expect(await store.messagesByEnvAndStatus()).toEqual([
      { env: "live", status: "failed", n: 1 },
      { env: "live", status: "sent", n: 7 },
      { env: "test", status: "read", n: 5 },
    ])
  })

  test("pending webhook deliveries are counted; finished ones are not", async () => {
    const store = await open()
    await store.insertAccount(account())
    const endpoint = { id: "we_1", account_id: "acc_1", env: "live", url: "https://x.test/h", events: "*", enabled: true, secret: "s", created_at_ms: 1, updated_at_ms: 1 }
    await seed(store, "webhook_endpoints", [endpoint])
    await seed(store, "events", [{ id: "evt_1", account_id: "acc_1", env: "live", type: "message.sent", body: "{}", occurred_at_ms: 1 }])
    const delivery = (id: string, status: string) => ({ id, event_id: "evt_1", endpoint_id: "we_1", status, attempt_count: 0, created_at_ms: 1, updated_at_ms: 1 })
    await seed(store, "webhook_deliveries", [delivery("wd_1", "pending"), delivery("wd_2", "pending"), delivery("wd_3", "succeeded"), delivery("wd_4", "failed")])
    expect(await store.pendingDeliveries()).toBe(2)
  })
})
