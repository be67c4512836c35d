import { afterEach, beforeAll, expect, test } from "bun:test"
import { nodeSessionBounds } from "../../src/domain/session-bounds"
import { LeaseLostError, type NodeIdentity } from "../../src/store/leases"
import { UNBOUNDED_SESSION, type SessionBounds } from "../../src/store/session-bounds"
import { connectPostgres } from "../../src/store/postgres/start-checks"
import { openPostgresStore, type PostgresStore } from "../../src/store/postgres/store"
import { testPostgres } from "../helpers/postgres"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { openLeaseWorld, type LeaseWorld } from "./contract/lease-stores"

/*
 * A node paused inside a PostgreSQL transaction cannot pin a phone (docs/architecture.md § "Nodes
 * and leases", "A paused node"). The pause is a write whose body never returns: the server sees
 * a session idle in a transaction that holds the lease row's FOR SHARE lock, exactly what a node
 * stopped by SIGSTOP between two statements leaves behind. The bounds are the server's own
 * timers, so these tests wait on real time, each polling with a deadline.
 */

/** Short lease timings, so that the bounds are about a second. */
const TIMINGS = { leaseMs: 3_000, renewEveryMs: 1_000 }
const BOUNDS = nodeSessionBounds(TIMINGS)
/** Room for a loaded machine on top of a bound. */
const SLACK_MS = 10_000
const T0 = 1_000_000

const cleanups: (() => Promise<void>)[] = []
beforeAll(async () => void (await testPostgres()), SLOW_HOOK_TIMEOUT_MS)
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn()
}, SLOW_HOOK_TIMEOUT_MS)

async function node(url: string, nodeId: string, sessionBounds: SessionBounds | undefined): Promise<{ store: PostgresStore; id: NodeIdentity }> {
  const store = await openPostgresStore(url, { maxConnections: 2, sessionBounds })
  cleanups.push(() => store.close().catch(() => {}))
  const id = { nodeId, instanceId: `${nodeId}-1` }
  await store.registerNode({ ...id, maxPhones: 10, nowMs: T0, leaseMs: TIMINGS.leaseMs })
  return { store, id }
}

/** Node a holds the one phone and pauses inside a fenced write; resolves once the lock is taken. */
async function pausedHolder(world: LeaseWorld, bounds: SessionBounds | undefined) {
  const [phoneId] = await world.seedPhones(1)
  const a = await node(world.url!, "a", bounds)
  const [lease] = await a.store.claimPhones(a.id, 10, T0, TIMINGS.leaseMs)
  let wake!: () => void
  const asleep = new Promise<void>((resolve) => (wake = resolve))
  let locked!: () => void
  const lockTaken = new Promise<void>((resolve) => (locked = resolve))
  const write = a.store.write(async (q) => {
    await q.assertLease(phoneId!, "a", lease!.token, T0 + 1)
    locked()
    await asleep
  })
  // Settled at the end: the write's outcome is asserted by the tests that need it.
  write.catch(() => {})
  cleanups.push(async () => {
    wake()
    await write.catch(() => {})
  })
  await lockTaken
  return { phoneId: phoneId!, lease: lease!, write, wake }
}

test("a node paused inside a write that locked a phone's lease row loses the phone to another node within the idle-in-transaction bound once its lease ran out, and its write never commits", async () => {
  const world = await openLeaseWorld("postgres", cleanups)
  const { phoneId, lease, write, wake } = await pausedHolder(world, BOUNDS)
  const b = await node(world.url!, "b", BOUNDS)
  const expiredAt = T0 + TIMINGS.leaseMs + 1
  const started = performance.now()
  let claimed: Awaited<ReturnType<typeof b.store.claimPhones>> = []
  while (claimed.length === 0 && performance.now() - started < BOUNDS.idleInTransactionTimeoutMs + SLACK_MS) {
    claimed = await b.store.claimPhones(b.id, 10, expiredAt, TIMINGS.leaseMs)
    if (claimed.length === 0) await Bun.sleep(100)
  }
  expect(claimed.map((l) => [l.phoneId, l.token])).toEqual([[phoneId, lease.token + 1]])
  // Not before the bound: until then the lock held the phone, as the bound's reason says.
  expect(performance.now() - started).toBeGreaterThanOrEqual(BOUNDS.idleInTransactionTimeoutMs - 200)
  // The paused node wakes up: its session is gone, so its fenced write fails instead of committing.
  wake()
  await expect(write).rejects.toThrow()
  await expect(b.store.write((q) => q.assertLease(phoneId, "a", lease.token, expiredAt))).rejects.toThrow(LeaseLostError)
}, SLOW_TEST_TIMEOUT_MS)

test("a statement waiting for a lock a paused node holds gives up after the lock bound instead of holding a pool connection while the node sleeps", async () => {
  const world = await openLeaseWorld("postgres", cleanups)
  // The paused side unbounded, so that only the waiting side's lock bound can end the wait.
  const { phoneId } = await pausedHolder(world, UNBOUNDED_SESSION)
  const b = await node(world.url!, "b", BOUNDS)
  const started = performance.now()
  // Claiming one named phone waits for its row (no SKIP LOCKED).
  const outcome = await Promise.race([
    b.store.claimPhone(b.id, phoneId, T0 + TIMINGS.leaseMs + 1, TIMINGS.leaseMs).then(
      () => "claimed",
      (err: { errno?: string; code?: string }) => `failed ${err.errno ?? err.code}`,
    ),
    Bun.sleep(BOUNDS.lockTimeoutMs + SLACK_MS).then(() => "still waiting"),
  ])
  // 55P03 is PostgreSQL's lock_not_available.
  expect(outcome).toBe("failed 55P03")
  expect(performance.now() - started).toBeGreaterThanOrEqual(BOUNDS.lockTimeoutMs - 200)
}, SLOW_TEST_TIMEOUT_MS)

test("a node's statements are cut at the statement bound, while migrate's and import's sessions are unbounded even when the database sets a default", async () => {
  const world = await openLeaseWorld("postgres", cleanups)
  const admin = await connectPostgres(world.url!, { maxConnections: 1 })
  cleanups.push(() => admin.close())
  const sleep = `SELECT pg_sleep(${(BOUNDS.statementTimeoutMs + 300) / 1000})`
  const bounded = await connectPostgres(world.url!, { maxConnections: 1, session: BOUNDS })
  cleanups.push(() => bounded.close())
  expect(bounded.unsafe(sleep)).rejects.toThrow(/statement timeout/)
  // An operator's default on the database would cut a long migration short; UNBOUNDED_SESSION overrides it.
  const name = new URL(world.url!).pathname.slice(1)
  await admin.unsafe(`ALTER DATABASE ${name} SET statement_timeout = 100`)
  const maintenance = await connectPostgres(world.url!, { maxConnections: 1, session: UNBOUNDED_SESSION })
  cleanups.push(() => maintenance.close())
  expect(await maintenance.unsafe(sleep)).toHaveLength(1)
}, SLOW_TEST_TIMEOUT_MS)
