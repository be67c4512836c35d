import { afterEach, expect, setDefaultTimeout, test } from "bun:test"
import { drawSize } from "../../../src/domain/rate-allowance"
import { createRateLimiter, type RateLimiter } from "../../../src/domain/rate-limits"
import { createSharedRateLimiter } from "../../../src/domain/shared-rate-limits"
import { silentLogger } from "../../../src/lib/logger"
import { TestClock } from "../../helpers/test-clock"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../../helpers/timeouts"
import { account, apiKey } from "./fixtures"
import { openPostgresContractStore } from "./stores"

/*
 * Three nodes, each with its own limiter and its own pool, on one PostgreSQL database, fed a
 * steady stream for a few minutes of the test clock: together they admit what one exact bucket
 * (the in-memory limiter, fed the same stream) admits, within 10 % of the limit × minutes, and
 * within the bound src/domain/rate-allowance.ts gives.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const NODES = 3
const MINUTES = 3

const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  // The first store owns the database and drops it: the other nodes close first.
  for (const close of closers.splice(0).reverse()) await close()
}, SLOW_HOOK_TIMEOUT_MS)

/** Three limiters on one fresh database, sharing `clock`. */
async function cluster(clock: TestClock): Promise<RateLimiter[]> {
  const first = await openPostgresContractStore()
  closers.push(first.cleanup)
  const others = await Promise.all(Array.from({ length: NODES - 1 }, () => openPostgresContractStore({ url: first.url })))
  for (const o of others) closers.push(o.cleanup)
  await first.store.insertAccount(account())
  await first.store.insertApiKey(apiKey({ id: "key_1" }))
  return [first.store, ...others.map((o) => o.store)].map((store) => createSharedRateLimiter({ store, clock, logger: silentLogger, local: createRateLimiter(clock) }))
}

/**
 * Every `tickMs`, each node gets the requests its share of `perSecond` brings (all at once, so
 * the nodes' draws meet in the database); returns how many each side admitted.
 */
async function stream(nodes: RateLimiter[], clock: TestClock, o: { limit: number; perSecond: number; shares: readonly number[] }): Promise<{ sent: number; cluster: number; exact: number }> {
  const exact = createRateLimiter(clock)
  const tickMs = 100
  const owed = o.shares.map(() => 0)
  let sent = 0
  let cluster = 0
  let exactAdmitted = 0
  for (let t = 0; t < MINUTES * 60_000; t += tickMs) {
    const takes: Promise<boolean>[] = []
    o.shares.forEach((share, i) => {
      owed[i]! += (o.perSecond * share * tickMs) / 1000
      for (; owed[i]! >= 1; owed[i]! -= 1) {
        sent++
        takes.push(Promise.resolve(nodes[i]!.takeForKey("key_1", o.limit)).then((r) => r.allowed))
        if (exact.takeForKey("key_1", o.limit).allowed) exactAdmitted++
      }
    })
    cluster += (await Promise.all(takes)).filter(Boolean).length
    clock.advance(tickMs)
  }
  return { sent, cluster, exact: exactAdmitted }
}

test.each([
  { name: "twice the limit, spread evenly", limit: 600, perSecond: 20, shares: [1 / 3, 1 / 3, 1 / 3] },
  { name: "three times the limit, most of it on one node", limit: 1_200, perSecond: 60, shares: [0.7, 0.2, 0.1] },
  { name: "a small limit, 30 a minute, at four times the limit", limit: 30, perSecond: 2, shares: [0.5, 0.25, 0.25] },
])("three nodes on one database admit what one bucket would, within 10 %% of the limit × minutes ($name)", async ({ limit, perSecond, shares }) => {
  const clock = new TestClock()
  const { cluster: admitted, exact } = await stream(await cluster(clock), clock, { limit, perSecond, shares })
  // One exact bucket admits its capacity and then the limit each minute (the last tick's refill aside).
  expect(exact).toBeGreaterThan(limit * (MINUTES + 1) - limit / 100 - 2)
  expect(exact).toBeLessThanOrEqual(limit * (MINUTES + 1))
  expect(Math.abs(admitted - exact)).toBeLessThanOrEqual(0.1 * limit * MINUTES)
  // The tighter bound of rate-allowance.ts: at most Σ held over, (nodes + 1) batches under.
  expect(admitted).toBeLessThanOrEqual(exact + NODES * (drawSize(limit) - 1))
  expect(admitted).toBeGreaterThanOrEqual(exact - (NODES + 1) * drawSize(limit))
})

test("three nodes on one database refuse nothing of a stream at 80 % of the limit", async () => {
  const clock = new TestClock()
  const limit = 600
  const { sent, cluster: admitted, exact } = await stream(await cluster(clock), clock, { limit, perSecond: 8, shares: [0.5, 0.3, 0.2] })
  expect(sent).toBeGreaterThan(8 * 60 * MINUTES - 3)
  expect(exact).toBe(sent)
  expect(admitted).toBe(sent)
})
