import { afterEach, describe, expect, test } from "bun:test"
import { createLeaseKeeper, type LeaseKeeper, type LeaseKeeperOptions } from "../../src/domain/lease-keeper"
import { LEASE_DEFAULTS } from "../../src/domain/lease-timings"
import { NodeIdInUseError, type LeaseQueries } from "../../src/store/leases"
import { TEST_EPOCH_MS, TestClock } from "../helpers/test-clock"
import { openLeaseWorld, type LeaseStore, type LeaseWorld } from "../store/contract/lease-stores"

/* The lease keeper over a real SQLite store (real migrations), driven by test clocks: no sleeping. */

const { leaseMs: LEASE_MS, renewEveryMs: RENEW_MS } = LEASE_DEFAULTS

interface Harness {
  keeper: LeaseKeeper
  clock: TestClock
  gained: string[][]
  lost: string[][]
  errors: unknown[]
  /** renewLeases calls so far. */
  renewals(): number
  /** Makes every store call fail (the database is unreachable) or work again. */
  setFailing(failing: boolean): void
  /** Moves this node's clock and waits for the tick it ran. */
  advance(ms: number): Promise<void>
}

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn()
})

async function world(phones: number): Promise<{ w: LeaseWorld; store: LeaseStore; ids: string[] }> {
  const w = await openLeaseWorld("sqlite", cleanups)
  const ids = await w.seedPhones(phones)
  return { w, store: await w.node(), ids }
}

function keeperOn(store: LeaseQueries, nodeId: string, options: Partial<LeaseKeeperOptions> = {}, clock = new TestClock()): Harness {
  let renewals = 0
  let failing = false
  const guard = <A extends unknown[], R>(fn: (...args: A) => Promise<R>) => async (...args: A): Promise<R> => {
    if (failing) throw new Error("connection refused")
    return fn(...args)
  }
  const counted: LeaseKeeperOptions["store"] = {
    registerNode: guard(store.registerNode),
    renewLeases: guard((...args: Parameters<LeaseQueries["renewLeases"]>) => (renewals++, store.renewLeases(...args))),
    claimPhones: guard(store.claimPhones),
    claimPhone: guard(store.claimPhone),
    releaseUnneededLease: guard(store.releaseUnneededLease),
    releaseNode: guard(store.releaseNode),
    leaseCensus: guard(store.leaseCensus),
  }
  const h: Harness = {
    clock,
    gained: [],
    lost: [],
    errors: [],
    renewals: () => renewals,
    setFailing: (f) => void (failing = f),
    keeper: null as unknown as LeaseKeeper,
    async advance(ms) {
      clock.advance(ms)
      await h.keeper.idle()
    },
  }
  h.keeper = createLeaseKeeper({
    store: counted,
    clock,
    node: { nodeId, instanceId: `${nodeId}-${crypto.randomUUID()}` },
    maxPhones: 1000,
    onGained: (ids) => void h.gained.push(ids),
    onLost: (ids) => void h.lost.push(ids),
    onError: (err) => void h.errors.push(err),
    ...options,
  })
  return h
}

describe("lease keeper", () => {
  test("a lone node claims every phone at start, then renews them with exactly one renewal per tick", async () => {
    const { store, ids } = await world(5)
    const a = keeperOn(store, "node-a")
    await a.keeper.start()
    expect(a.gained).toEqual([ids])
    expect(a.keeper.heldPhones()).toEqual(ids)
    expect(a.keeper.tokenOf(ids[0]!)).toBe(1)
    expect(a.renewals()).toBe(1)
    for (let tick = 1; tick <= 4; tick++) {
      await a.advance(RENEW_MS)
      expect(a.renewals()).toBe(1 + tick)
    }
    // Renewed all along: held past several lease lengths, nothing lost, nothing claimed twice.
    expect(a.clock.nowMs() - (await store.listNodes(a.clock.nowMs()))[0]!.startedAtMs).toBeGreaterThan(LEASE_MS)
    expect(a.lost).toEqual([])
    expect(a.gained).toEqual([ids])
    expect(a.errors).toEqual([])
    await a.keeper.stop()
  })

  test("a second process under the same node id is refused at start", async () => {
    const { store } = await world(1)
    const clock = new TestClock()
    const a = keeperOn(store, "node-a", {}, clock)
    await a.keeper.start()
    const twin = keeperOn(store, "node-a", {}, clock)
    await expect(twin.keeper.start()).rejects.toBeInstanceOf(NodeIdInUseError)
    await a.keeper.stop()
  })

  test("two nodes started together share the phones evenly", async () => {
    const { store } = await world(20)
    const clock = new TestClock()
    const a = keeperOn(store, "node-a", { firstClaimDelayMs: RENEW_MS }, clock)
    const b = keeperOn(store, "node-b", { firstClaimDelayMs: RENEW_MS }, clock)
    await a.keeper.start()
    await b.keeper.start()
    expect(a.gained).toEqual([])
    clock.advance(RENEW_MS)
    await Promise.all([a.keeper.idle(), b.keeper.idle()])
    expect([a.keeper.heldPhones().length, b.keeper.heldPhones().length]).toEqual([10, 10])
    expect(new Set([...a.keeper.heldPhones(), ...b.keeper.heldPhones()]).size).toBe(20)
  })

  test("stop reports every phone lost before releasing, and another node takes them over at its next tick", async () => {
    const { store, ids } = await world(6)
    const clock = new TestClock()
    const lost: string[][] = []
    let unownedWhileClosing = -1
    // The phones must still be A's while A closes their sockets, so no other node connects them yet.
    const onLost = async (phoneIds: string[]) => {
      lost.push(phoneIds)
      unownedWhileClosing = await store.countUnownedPhones(clock.nowMs())
    }
    const a = keeperOn(store, "node-a", { onLost }, clock)
    await a.keeper.start()
    const b = keeperOn(store, "node-b", {}, clock)
    await b.keeper.start()
    expect(b.gained).toEqual([])
    await a.keeper.stop()
    expect(lost).toEqual([ids])
    expect(unownedWhileClosing).toBe(0)
    expect(a.keeper.heldPhones()).toEqual([])
    expect(await store.countUnownedPhones(clock.nowMs())).toBe(6)
    await b.advance(RENEW_MS)
    expect(b.gained).toEqual([ids])
    expect(b.keeper.tokenOf(ids[0]!)).toBe(2)
    await b.keeper.stop()
  })

  test("a paused node learns at its next tick that its phones were taken over, and reports them lost", async () => {
    const { store, ids } = await world(3)
    const a = keeperOn(store, "node-a")
    await a.keeper.start()
    const t0 = a.clock.nowMs()
    // A is paused: its clock does not move. B, a lease later, takes the phones over.
    await store.registerNode({ nodeId: "node-b", instanceId: "b1", maxPhones: 1000, nowMs: t0 + LEASE_MS, leaseMs: LEASE_MS })
    expect((await store.claimPhones({ nodeId: "node-b", instanceId: "b1" }, 10, t0 + LEASE_MS, LEASE_MS)).length).toBe(3)
    await a.advance(RENEW_MS)
    expect(a.lost).toEqual([ids])
    expect(a.keeper.tokenOf(ids[0]!)).toBeNull()
    expect(a.gained).toEqual([ids])
  })

  test("a node that cannot reach the database gives its phones up before the lease runs out, and claims them again when it can", async () => {
    const { store, ids } = await world(2)
    const a = keeperOn(store, "node-a")
    await a.keeper.start()
    a.setFailing(true)
    await a.advance(RENEW_MS)
    expect(a.lost).toEqual([])
    await a.advance(RENEW_MS)
    // Ten seconds without a renewal: the next tick would come too late, so the sockets close now.
    expect(a.lost).toEqual([ids])
    expect(a.errors.length).toBe(2)
    a.setFailing(false)
    await a.advance(RENEW_MS)
    expect(a.gained).toEqual([ids, ids])
    expect(a.keeper.tokenOf(ids[0]!)).toBe(2)
    await a.keeper.stop()
  })

  test("a renewal the database never answers counts as failed after one interval, and the phones at risk are given up before their lease runs out", async () => {
    const { store, ids } = await world(2)
    let hang = false
    const hanging: LeaseQueries = { ...store, renewLeases: (...args) => (hang ? new Promise(() => {}) : store.renewLeases(...args)) }
    const a = keeperOn(hanging, "node-a")
    await a.keeper.start()
    hang = true
    // The tick at 5 s waits; its renewal times out at 10 s, when a lease renewed at 0 s has 5 s left.
    a.clock.advance(RENEW_MS)
    a.clock.advance(RENEW_MS)
    await a.keeper.idle()
    expect(a.lost).toEqual([ids])
    expect(String(a.errors[0])).toContain("did not answer within 5000 ms")
    expect(a.clock.nowMs() - TEST_EPOCH_MS).toBeLessThan(LEASE_DEFAULTS.leaseMs)
    hang = false
    await a.keeper.stop()
  })

  test("claimOne takes a free phone between ticks, within the maximum, and the next renewal keeps it", async () => {
    const { w, store, ids } = await world(3)
    const a = keeperOn(store, "node-a", { maxPhones: 2, firstClaimDelayMs: 60_000 })
    await a.keeper.start()
    expect(a.keeper.heldPhones()).toEqual([])
    expect(await a.keeper.claimOne(ids[1]!)).toBe(true)
    expect(await a.keeper.claimOne(ids[1]!)).toBe(true)
    expect(await a.keeper.claimOne(ids[0]!)).toBe(true)
    // At its maximum: no more.
    expect(await a.keeper.claimOne(ids[2]!)).toBe(false)
    await a.advance(5_000)
    expect(a.keeper.heldPhones()).toEqual([ids[0]!, ids[1]!].sort())
    expect(a.lost).toEqual([])
    // Claimed by hand, so not reported gained: the caller took them up.
    expect(a.gained).toEqual([])
    const other = await w.node()
    const b = keeperOn(other, "node-b")
    await b.keeper.start()
    expect(await b.keeper.claimOne(ids[0]!)).toBe(false)
    await b.keeper.stop()
    await a.keeper.stop()
  })

  test("while its peers heartbeat on time a node arms nothing between its ticks; once one goes silent, one claim at its leases' end", async () => {
    const { store } = await world(4)
    const clock = new TestClock()
    const a = keeperOn(store, "node-a", { firstClaimDelayMs: RENEW_MS }, clock)
    const bClock = new TestClock(clock.nowMs() + 1_000)
    const b = keeperOn(store, "node-b", { firstClaimDelayMs: RENEW_MS }, bClock)
    await a.keeper.start()
    await b.keeper.start()
    for (let tick = 0; tick < 4; tick++) {
      bClock.advance(RENEW_MS)
      await a.advance(RENEW_MS)
      await b.keeper.idle()
      expect(clock.pendingTimers).toBe(1)
    }
    expect([a.keeper.heldPhones().length, b.keeper.heldPhones().length]).toEqual([2, 2])
    // node-b goes silent; node-a's tick before b's leases end arms one claim for that moment.
    const leasesEndMs = bClock.nowMs() + LEASE_MS
    while (clock.nowMs() + RENEW_MS < leasesEndMs) await a.advance(RENEW_MS)
    expect(clock.pendingTimers).toBe(2)
    await a.advance(leasesEndMs + LEASE_DEFAULTS.expiryClaimMarginMs - clock.nowMs())
    expect(a.keeper.heldPhones().length).toBe(4)
    expect(clock.pendingTimers).toBe(1)
    await a.keeper.stop()
    expect(clock.pendingTimers).toBe(0)
  })

  test("a renewal that falls due while claimOne is under way waits for it, so the phone just claimed is never reported lost", async () => {
    const { store, ids } = await world(1)
    let claimGate = Promise.withResolvers<void>()
    let renewGate: PromiseWithResolvers<void> | null = null
    const slowed: LeaseQueries = {
      ...store,
      claimPhone: async (...args) => {
        await claimGate.promise
        return store.claimPhone(...args)
      },
      renewLeases: async (...args) => {
        const result = await store.renewLeases(...args)
        // The database answered before the claim committed; the answer arrives after it.
        if (renewGate) await renewGate.promise
        return result
      },
    }
    const a = keeperOn(slowed, "node-a", { firstClaimDelayMs: 60_000 })
    claimGate.resolve()
    await a.keeper.start()
    claimGate = Promise.withResolvers<void>()
    renewGate = Promise.withResolvers<void>()
    const claimed = a.keeper.claimOne(ids[0]!)
    a.clock.advance(RENEW_MS)
    await Promise.resolve()
    claimGate.resolve()
    expect(await claimed).toBe(true)
    renewGate.resolve()
    await a.keeper.idle()
    await a.advance(0)
    expect(a.lost).toEqual([])
    expect(a.keeper.heldPhones()).toEqual([ids[0]!])
    await a.keeper.stop()
  })

  test("a node that released its phones ticks no more", async () => {
    const { store } = await world(2)
    const a = keeperOn(store, "node-a")
    await a.keeper.start()
    await a.keeper.stop()
    const renewals = a.renewals()
    await a.advance(RENEW_MS * 3)
    expect(a.renewals()).toBe(renewals)
    expect(a.clock.pendingTimers).toBe(0)
    expect((await store.listPhoneLeases()).every((l) => l.nodeId === null)).toBe(true)
  })
})
