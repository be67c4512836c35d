import { afterEach, expect, setDefaultTimeout, test } from "bun:test"
import type { RateDraw } from "../../../src/store/rate-buckets"
import { TEST_EPOCH_MS } from "../../helpers/test-clock"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../../helpers/timeouts"
import { account, apiKey } from "./fixtures"
import { describeStores, openPostgresContractStore, type ContractStore } from "./stores"

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const T0 = TEST_EPOCH_MS

/** A store with an account and the keys `ids` (a bucket belongs to a key). */
async function withKeys(store: ContractStore, ids: readonly string[] = ["key_1"]): Promise<ContractStore> {
  await store.insertAccount(account())
  for (const id of ids) await store.insertApiKey(apiKey({ id }))
  return store
}

const draw = (over: Partial<RateDraw>): RateDraw => ({ keyId: "key_1", limitPerMinute: 60, wanted: 1, returned: 0, nowMs: T0, ...over })

describeStores("shared rate-limit buckets", (open) => {
  test("a key's first draw finds its bucket full at the limit and takes what it wants", async () => {
    const store = await withKeys(await open())
    expect(await store.drawRateTokens(draw({ limitPerMinute: 10, wanted: 3 }))).toEqual({ granted: 3, tokens: 7 })
  })

  test("a draw grants only the whole tokens the bucket holds, and a dry bucket grants nothing", async () => {
    const store = await withKeys(await open())
    expect(await store.drawRateTokens(draw({ limitPerMinute: 5, wanted: 3 }))).toEqual({ granted: 3, tokens: 2 })
    expect(await store.drawRateTokens(draw({ limitPerMinute: 5, wanted: 3 }))).toEqual({ granted: 2, tokens: 0 })
    // 6 s at 5 a minute refill half a token: not a whole one.
    expect(await store.drawRateTokens(draw({ limitPerMinute: 5, wanted: 3, nowMs: T0 + 6_000 }))).toEqual({ granted: 0, tokens: 0.5 })
  })

  test("the bucket refills at the limit per minute and never beyond the limit", async () => {
    const store = await withKeys(await open())
    expect(await store.drawRateTokens(draw({ wanted: 60 }))).toEqual({ granted: 60, tokens: 0 })
    expect(await store.drawRateTokens(draw({ wanted: 0, nowMs: T0 + 2_500 }))).toEqual({ granted: 0, tokens: 2.5 })
    expect(await store.drawRateTokens(draw({ wanted: 2, nowMs: T0 + 3_000 }))).toEqual({ granted: 2, tokens: 1 })
    expect(await store.drawRateTokens(draw({ wanted: 0, nowMs: T0 + 10 * 60_000 }))).toEqual({ granted: 0, tokens: 60 })
  })

  test("one token a draw, the bucket matches the in-memory bucket: 5 a minute is back after exactly 12 s", async () => {
    const store = await withKeys(await open())
    for (let i = 0; i < 5; i++) expect((await store.drawRateTokens(draw({ limitPerMinute: 5 }))).granted).toBe(1)
    expect(await store.drawRateTokens(draw({ limitPerMinute: 5, nowMs: T0 + 11_999 }))).toMatchObject({ granted: 0 })
    expect(await store.drawRateTokens(draw({ limitPerMinute: 5, nowMs: T0 + 12_000 }))).toEqual({ granted: 1, tokens: 0 })
  })

  test("tokens handed back are put in before the cap, so a full bucket does not grow past the limit", async () => {
    const store = await withKeys(await open())
    await store.drawRateTokens(draw({ limitPerMinute: 10, wanted: 10 }))
    expect(await store.drawRateTokens(draw({ limitPerMinute: 10, wanted: 0, returned: 4 }))).toEqual({ granted: 0, tokens: 4 })
    expect(await store.drawRateTokens(draw({ limitPerMinute: 10, wanted: 1, returned: 100 }))).toEqual({ granted: 1, tokens: 9 })
  })

  test("a draw stamped earlier than the bucket (a lagging clock) refills nothing and does not move its time back", async () => {
    const store = await withKeys(await open())
    await store.drawRateTokens(draw({ wanted: 60, nowMs: T0 + 60_000 }))
    expect(await store.drawRateTokens(draw({ nowMs: T0 }))).toEqual({ granted: 0, tokens: 0 })
    // Refilled from T0 + 60 s, not from T0: one second gives one token, not sixty-one.
    expect(await store.drawRateTokens(draw({ wanted: 5, nowMs: T0 + 61_000 }))).toEqual({ granted: 1, tokens: 0 })
  })

  test("a lowered limit caps the bucket at once; each key has its own bucket", async () => {
    const store = await withKeys(await open(), ["key_1", "key_2"])
    await store.drawRateTokens(draw({ limitPerMinute: 100, wanted: 1 }))
    expect(await store.drawRateTokens(draw({ limitPerMinute: 10, wanted: 0 }))).toEqual({ granted: 0, tokens: 10 })
    expect(await store.drawRateTokens(draw({ keyId: "key_2", limitPerMinute: 10, wanted: 10 }))).toEqual({ granted: 10, tokens: 0 })
    expect(await store.drawRateTokens(draw({ limitPerMinute: 10, wanted: 10 }))).toEqual({ granted: 10, tokens: 0 })
  })
})

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  // The first store opened owns the database and drops it: close the other nodes before it.
  for (const close of closers.splice(0).reverse()) await close()
}, SLOW_HOOK_TIMEOUT_MS)

test("on PostgreSQL, three nodes drawing one key's bucket in parallel from their own pools never get more than it holds", async () => {
  const first = await openPostgresContractStore()
  closers.push(first.cleanup)
  const others = await Promise.all([1, 2].map(() => openPostgresContractStore({ url: first.url })))
  for (const o of others) closers.push(o.cleanup)
  const nodes = [first.store, ...others.map((o) => o.store)]
  await withKeys(first.store)
  const LIMIT = 200
  // Each node fires 40 draws of 3 at once (360 wanted from a bucket of 200), then again 10 s
  // later, when the bucket has refilled by 200 × 10/60 = 33.3 tokens.
  const round = async (nowMs: number) => {
    const draws = nodes.flatMap((store) => Array.from({ length: 40 }, () => store.drawRateTokens(draw({ limitPerMinute: LIMIT, wanted: 3, nowMs }))))
    return (await Promise.all(draws)).reduce((sum, d) => sum + d.granted, 0)
  }
  expect(await round(T0)).toBe(LIMIT)
  expect(await round(T0 + 10_000)).toBe(33)
  const left = await first.store.drawRateTokens(draw({ limitPerMinute: LIMIT, wanted: 0, nowMs: T0 + 10_000 }))
  expect(left.tokens).toBeCloseTo(1 / 3, 9)
})
