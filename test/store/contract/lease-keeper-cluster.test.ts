import { afterEach, expect, setDefaultTimeout, test } from "bun:test"
import { createLeaseKeeper, type LeaseKeeper } from "../../../src/domain/lease-keeper"
import { FAST_FAILOVER_LEASE_MS, LEASE_DEFAULTS, renewEveryFor } from "../../../src/domain/lease-timings"
import type { Clock } from "../../../src/lib/clock"
import { TestClock } from "../../helpers/test-clock"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../../helpers/timeouts"
import { openLeaseWorld, type LeaseStore } from "./lease-stores"

/*
 * Lease keepers of three nodes on one PostgreSQL database, each with a pool of its own, driven
 * by test clocks: they share the phones, and when one dies (it stops renewing) the others take
 * its phones over a lease later, each its share.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const { leaseMs: LEASE_MS, renewEveryMs: RENEW_MS } = LEASE_DEFAULTS
const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn()
}, SLOW_HOOK_TIMEOUT_MS)

function keeper(store: LeaseStore, nodeId: string, clock: Clock, errors: unknown[], leaseMs: number = LEASE_MS): LeaseKeeper {
  return createLeaseKeeper({
    store,
    clock,
    node: { nodeId, instanceId: crypto.randomUUID() },
    maxPhones: 1000,
    leaseMs,
    firstClaimDelayMs: renewEveryFor(leaseMs),
    onGained: () => {},
    onLost: () => {},
    onError: (err) => void errors.push(err),
  })
}

test("three nodes share 30 phones; when one dies the two others each take half of its phones a lease after its last renewal", async () => {
  const w = await openLeaseWorld("postgres", cleanups)
  await w.seedPhones(30)
  const live = new TestClock()
  const doomedClock = new TestClock()
  const errors: unknown[] = []
  const [a, b, doomed] = [
    keeper(await w.node(), "node-a", live, errors),
    keeper(await w.node(), "node-b", live, errors),
    keeper(await w.node(), "node-c", doomedClock, errors),
  ]
  await Promise.all([a.start(), b.start(), doomed.start()])
  const tick = async (alsoDoomed: boolean) => {
    live.advance(RENEW_MS)
    if (alsoDoomed) doomedClock.advance(RENEW_MS)
    await Promise.all([a.idle(), b.idle(), doomed.idle()])
  }
  await tick(true)
  const counts = () => [a.heldPhones().length, b.heldPhones().length, doomed.heldPhones().length]
  expect(counts()).toEqual([10, 10, 10])
  const lastRenewalMs = live.nowMs()
  // node-c dies: its clock stops, so it never renews again. The others keep ticking.
  const doomedPhones = doomed.heldPhones()
  while (live.nowMs() + RENEW_MS < lastRenewalMs + LEASE_MS) {
    await tick(false)
    expect(counts().slice(0, 2)).toEqual([10, 10])
  }
  // The tick at which node-c's leases run out takes them over.
  await tick(false)
  expect(live.nowMs()).toBe(lastRenewalMs + LEASE_MS)
  expect(counts().slice(0, 2)).toEqual([15, 15])
  const takenOver = [...a.heldPhones(), ...b.heldPhones()].filter((id) => doomedPhones.includes(id))
  expect(takenOver.sort()).toEqual(doomedPhones)
  expect(errors).toEqual([])
})

test("when a node dies out of step with the others, the two survivors take its phones within a second of its leases running out, not at their next tick, half each", async () => {
  const w = await openLeaseWorld("postgres", cleanups)
  await w.seedPhones(30)
  const live = new TestClock()
  // node-c renews a third of an interval after the others, so its leases run out two thirds of
  // an interval (1.7 s with the defaults) before their next tick.
  const doomedClock = new TestClock(live.nowMs() + RENEW_MS / 3)
  const errors: unknown[] = []
  const [a, b, doomed] = [
    keeper(await w.node(), "node-a", live, errors),
    keeper(await w.node(), "node-b", live, errors),
    keeper(await w.node(), "node-c", doomedClock, errors),
  ]
  await Promise.all([a.start(), b.start(), doomed.start()])
  live.advance(RENEW_MS)
  doomedClock.advance(RENEW_MS)
  await Promise.all([a.idle(), b.idle(), doomed.idle()])
  const counts = () => [a.heldPhones().length, b.heldPhones().length, doomed.heldPhones().length]
  expect(counts()).toEqual([10, 10, 10])
  const doomedPhones = doomed.heldPhones()
  const leasesEndMs = doomedClock.nowMs() + LEASE_MS
  // node-c dies. The survivors' ticks before its leases end leave its phones alone.
  while (live.nowMs() + RENEW_MS < leasesEndMs) {
    live.advance(RENEW_MS)
    await Promise.all([a.idle(), b.idle()])
    expect(counts().slice(0, 2)).toEqual([10, 10])
  }
  const nextTickMs = live.nowMs() + RENEW_MS
  expect(nextTickMs - leasesEndMs).toBeGreaterThanOrEqual(1_500)
  live.advance(leasesEndMs + 1_000 - live.nowMs())
  await Promise.all([a.idle(), b.idle()])
  expect(live.nowMs()).toBeLessThan(nextTickMs)
  expect(counts().slice(0, 2)).toEqual([15, 15])
  const takenOver = [...a.heldPhones(), ...b.heldPhones()].filter((id) => doomedPhones.includes(id))
  expect(takenOver.sort()).toEqual(doomedPhones)
  expect(errors).toEqual([])
})

// The cost of a short lease (docs/operations.md § "Running several nodes"): how long a node may
// be silent (a pause, a frozen VM) before the others take its phones, at the default and the fast lease.
for (const leaseMs of [LEASE_MS, FAST_FAILOVER_LEASE_MS]) {
  test(`with a ${leaseMs} ms lease a node silent for less than a lease since its last renewal keeps its phones, and one silent half a second past a lease loses them to the others`, async () => {
    const renewMs = renewEveryFor(leaseMs)
    for (const [silentMs, moved] of [[leaseMs - 100, false], [leaseMs + 500, true]] as const) {
      const w = await openLeaseWorld("postgres", cleanups)
      await w.seedPhones(30)
      const live = new TestClock()
      // A paused process's clock: its wall time jumps on waking, and its overdue timer fires then
      // (a TestClock alone would run it at its due time, inside the pause).
      const pausedTimers = new TestClock()
      let jumpedMs = 0
      const pausedClock: Clock = { nowMs: () => pausedTimers.nowMs() + jumpedMs, setTimer: (ms, fn) => pausedTimers.setTimer(ms, fn) }
      const errors: unknown[] = []
      const [a, b, paused] = [
        keeper(await w.node(), "node-a", live, errors, leaseMs),
        keeper(await w.node(), "node-b", live, errors, leaseMs),
        keeper(await w.node(), "node-c", pausedClock, errors, leaseMs),
      ]
      await Promise.all([a.start(), b.start(), paused.start()])
      live.advance(renewMs)
      pausedTimers.advance(renewMs)
      await Promise.all([a.idle(), b.idle(), paused.idle()])
      const mine = paused.heldPhones()
      expect(mine.length).toBe(10)
      // node-c's clock stands still (it is paused) while the others tick on.
      const wakeMs = live.nowMs() + silentMs
      while (live.nowMs() < wakeMs) {
        live.advance(Math.min(renewMs, wakeMs - live.nowMs()))
        await Promise.all([a.idle(), b.idle()])
      }
      jumpedMs = silentMs - renewMs
      pausedTimers.advance(renewMs)
      await paused.idle()
      expect({ silentMs, kept: paused.heldPhones() }).toEqual({ silentMs, kept: moved ? [] : mine })
      expect(a.heldPhones().length + b.heldPhones().length).toBe(moved ? 30 : 20)
      expect(errors).toEqual([])
      for (const fn of cleanups.splice(0).reverse()) await fn()
    }
  })
}
