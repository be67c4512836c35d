import { afterEach, describe, expect, test } from "bun:test"
import { ALLOWANCE_TTL_MS, drawSize } from "../../src/domain/rate-allowance"
import { createRateLimiter } from "../../src/domain/rate-limits"
import { createSharedRateLimiter, DRAW_TIMEOUT_MS, UNREACHABLE_RETRY_MS } from "../../src/domain/shared-rate-limits"
import type { Logger } from "../../src/lib/logger"
import type { TakeResult } from "../../src/lib/token-bucket"
import { migrate, openDatabase } from "../../src/store/sqlite/db"
import type { RateDraw } from "../../src/store/rate-buckets"
import type { Store } from "../../src/store/store"
import { storeOver } from "../helpers/sqlite-store"
import { TEST_EPOCH_MS, TestClock } from "../helpers/test-clock"

/*
 * One node's shared limiter (src/domain/shared-rate-limits.ts) over the real draw statement on
 * SQLite: what it asks of the database and when. The cluster-wide bound is tested on PostgreSQL
 * in test/store/contract/shared-rate-limits-cluster.test.ts.
 */

const opened: Store[] = []
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close()
})

interface Node {
  limiter: ReturnType<typeof createSharedRateLimiter>
  clock: TestClock
  draws: RateDraw[]
  warnings: string[]
  infos: string[]
  /** While true, every draw fails as an unreachable database does. */
  down: { value: boolean }
  /** While true, no draw is ever answered, as by a database that stopped responding. */
  silent: { value: boolean }
}

async function node(): Promise<Node> {
  const db = openDatabase(":memory:")
  migrate(db, TEST_EPOCH_MS)
  const store = storeOver(db)
  opened.push(store)
  db.run("INSERT INTO accounts (id, name, email, created_at_ms, updated_at_ms) VALUES ('acc_1', 'A', 'a@example.com', 0, 0)")
  db.run("INSERT INTO api_keys (id, account_id, env, key_hash, prefix, last4, name, scopes, created_at_ms) VALUES ('key_1', 'acc_1', 'test', 'h', 'p', 'l', 'n', '[]', 0)")
  const clock = new TestClock()
  const draws: RateDraw[] = []
  const warnings: string[] = []
  const infos: string[] = []
  const down = { value: false }
  const silent = { value: false }
  const logger: Logger = { debug() {}, info: (msg) => void infos.push(msg), warn: (msg) => void warnings.push(msg), error() {} }
  const limiter = createSharedRateLimiter({
    store: {
      async drawRateTokens(draw) {
        draws.push(draw)
        if (down.value) throw new Error("connect ECONNREFUSED 127.0.0.1:5432")
        if (silent.value) return new Promise(() => {})
        return store.drawRateTokens(draw)
      },
    },
    clock,
    logger,
    local: createRateLimiter(clock),
  })
  return { limiter, clock, draws, warnings, infos, down, silent }
}

const take = (n: Node, limit: number): TakeResult | Promise<TakeResult> => n.limiter.takeForKey("key_1", limit)

describe("draw size", () => {
  test.each([
    [1, 1],
    [5, 1],
    [99, 1],
    [100, 2],
    [600, 12],
    [1_000_000, 20_000],
  ])("a key limited to %d a minute draws %d tokens at a time", (limit, size) => {
    expect(drawSize(limit)).toBe(size)
  })
})

describe("one node's shared limiter", () => {
  test("requests that arrive while a draw is under way wait for that draw: one statement serves a batch", async () => {
    const n = await node()
    const results = await Promise.all(Array.from({ length: 12 }, () => take(n, 600)))
    expect(results.every((r) => r.allowed)).toBe(true)
    expect(n.draws.map((d) => d.wanted)).toEqual([12])
    expect(results.map((r) => r.remaining)).toEqual(Array.from({ length: 12 }, (_, i) => 599 - i))
  })

  test("the allowance answers at once, with no promise, until it runs out", async () => {
    const n = await node()
    await take(n, 600)
    for (let i = 0; i < 11; i++) expect(take(n, 600)).not.toBeInstanceOf(Promise)
    expect(take(n, 600)).toBeInstanceOf(Promise)
  })

  test("tokens held past the allowance's life are handed back with the next draw", async () => {
    const n = await node()
    await take(n, 600)
    n.clock.advance(ALLOWANCE_TTL_MS)
    expect((await take(n, 600)).allowed).toBe(true)
    expect(n.draws.map((d) => [d.wanted, d.returned])).toEqual([
      [12, 0],
      [12, 11],
    ])
  })

  test("a dry bucket is not asked again until it holds a batch; meanwhile refusals come at once, with Retry-After until then", async () => {
    const n = await node()
    const limit = 600
    for (let i = 0; i < limit; i++) expect((await take(n, limit)).allowed).toBe(true)
    const refused = await take(n, limit)
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterMs: 1_200, resetAfterMs: 60_000 })
    const draws = n.draws.length
    n.clock.advance(1_000)
    const again = take(n, limit)
    expect(again).toMatchObject({ allowed: false, retryAfterMs: 200 })
    expect(n.draws.length).toBe(draws)
    n.clock.advance(200)
    expect(await take(n, limit)).toMatchObject({ allowed: true, remaining: 11 })
    expect(n.draws.length).toBe(draws + 1)
  })

  test("a changed limit draws afresh under the new limit", async () => {
    const n = await node()
    await take(n, 600)
    expect(await take(n, 100)).toMatchObject({ allowed: true, remaining: 99 })
    expect(n.draws.map((d) => [d.limitPerMinute, d.returned])).toEqual([
      [600, 0],
      [100, 11],
    ])
  })

  test("an unreachable database: one warning, the key limited by this node alone, the database asked again after a while", async () => {
    const n = await node()
    n.down.value = true
    const limit = 5
    const first = await take(n, limit)
    expect(first).toMatchObject({ allowed: true, remaining: 4 })
    expect(n.warnings).toEqual(["cannot draw rate-limit tokens from the database; each node limits keys on its own until it answers"])
    for (let i = 0; i < 4; i++) expect(take(n, limit)).toMatchObject({ allowed: true })
    expect(take(n, limit)).toMatchObject({ allowed: false })
    expect(n.draws.length).toBe(1)
    n.clock.advance(UNREACHABLE_RETRY_MS - 1)
    take(n, limit)
    expect(n.draws.length).toBe(1)
    n.clock.advance(1)
    await take(n, limit)
    expect(n.draws.length).toBe(2)
    expect(n.warnings.length).toBe(1)
    n.down.value = false
    n.clock.advance(UNREACHABLE_RETRY_MS)
    expect(await take(n, limit)).toMatchObject({ allowed: true })
    expect(n.infos).toEqual(["rate-limit draws reach the database again; keys are limited across the cluster again"])
  })

  test("a draw the database does not answer within DRAW_TIMEOUT_MS counts as failed: the waiting request is limited by this node", async () => {
    const n = await node()
    n.silent.value = true
    const waiting = take(n, 5)
    let answered = false
    void Promise.resolve(waiting).then(() => (answered = true))
    n.clock.advance(DRAW_TIMEOUT_MS - 1)
    await Bun.sleep(0)
    expect(answered).toBe(false)
    n.clock.advance(1)
    expect(await waiting).toMatchObject({ allowed: true, remaining: 4 })
    expect(n.warnings.length).toBe(1)
  })
})
