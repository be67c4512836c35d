import { expect, setDefaultTimeout, test } from "bun:test"
import { TEST_EPOCH_MS } from "../../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../../helpers/timeouts"
import { describeStores } from "./stores"

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const DAY_MS = 86_400_000

describeStores("API request counts", (open) => {
  test("counts added to a day add up; a period sums its days from its first one, for one account and environment", async () => {
    const store = await open()
    const day0 = TEST_EPOCH_MS
    const add = (accountId: string, env: "test" | "live", dayMs: number, successful: number, failed: number) => store.addApiRequestCounts({ accountId, env, dayMs, successful, failed })
    await add("acc_1", "live", day0 - DAY_MS, 100, 100)
    await add("acc_1", "live", day0, 3, 1)
    await add("acc_1", "live", day0, 2, 0)
    await add("acc_1", "live", day0 + DAY_MS, 10, 5)
    await add("acc_1", "test", day0, 1_000, 1_000)
    await add("acc_2", "live", day0, 1_000, 1_000)
    expect(await store.sumApiRequestsSince("acc_1", "live", day0)).toEqual({ successful: 15, failed: 6 })
    expect(await store.sumApiRequestsSince("acc_1", "live", day0 + DAY_MS)).toEqual({ successful: 10, failed: 5 })
    expect(await store.sumApiRequestsSince("acc_3", "live", day0)).toEqual({ successful: 0, failed: 0 })
  })

  test("flushes from several writers at once lose no count", async () => {
    const store = await open()
    await Promise.all(Array.from({ length: 20 }, () => store.write((q) => q.addApiRequestCounts({ accountId: "acc_1", env: "live", dayMs: TEST_EPOCH_MS, successful: 2, failed: 1 }))))
    expect(await store.sumApiRequestsSince("acc_1", "live", TEST_EPOCH_MS)).toEqual({ successful: 40, failed: 20 })
  })
})
