import { expect, setDefaultTimeout, test } from "bun:test"
import { TEST_EPOCH_MS } from "../../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../../helpers/timeouts"
import { account, phone } from "./fixtures"
import { describeStores } from "./stores"

/* A phone's history settings (HistorySettingsQueries, SQLite migration 29 / PostgreSQL 17) on both stores. */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const T = TEST_EPOCH_MS

describeStores("history settings", (open) => {
  test("a phone's history settings are none until set, then the last ones set, per phone; a removed phone takes them along", async () => {
    const store = await open()
    await store.insertAccount(account())
    await store.insertPhone(phone())
    await store.insertPhone(phone({ id: "ph_2", phoneNumber: "+15550000002" }))
    expect(await store.findHistorySettings("ph_1")).toBeNull()
    await store.write((q) => q.saveHistorySettings({ phoneId: "ph_1", historySync: "full", historyDays: 3650, updatedAtMs: T }))
    await store.write((q) => q.saveHistorySettings({ phoneId: "ph_1", historySync: "none", historyDays: 7, updatedAtMs: T + 1 }))
    await store.write((q) => q.saveHistorySettings({ phoneId: "ph_2", historySync: "recent", historyDays: 90, updatedAtMs: T }))
    expect(await store.findHistorySettings("ph_1")).toEqual({ phoneId: "ph_1", historySync: "none", historyDays: 7, updatedAtMs: T + 1 })
    expect(await store.findHistorySettings("ph_2")).toEqual({ phoneId: "ph_2", historySync: "recent", historyDays: 90, updatedAtMs: T })
    await store.write((q) => q.deletePhone("ph_1"))
    expect(await store.findHistorySettings("ph_1")).toBeNull()
  })
})
