import type { TimerHandle } from "../lib/clock"
import { withDeadline } from "../lib/deadline"
import type { HeldLease, NodeSummary } from "../store/leases"
import type { LeaseKeeper, LeaseKeeperOptions } from "./lease-keeper-types"
import { LEASE_DEFAULTS } from "./lease-timings"
import { expiryClaimAtMs, planClaims } from "./lease-planner"
import { isLiveNode } from "./node-list"

/*
 * The lease keeper (docs/architecture.md § "Nodes and leases"): it keeps this node's phone
 * leases. At start it registers the node (NodeIdInUseError when another process runs under the
 * same WAGATE_NODE_ID); then, every tick, it renews every lease in one call, reports the phones
 * it lost, and claims the number of phones the planner (lease-planner.ts) says. On stop it
 * reports every phone lost, waits for that to finish (sockets closed) and then releases them
 * all, so the other nodes may take them over at once.
 *
 * Between ticks it claims once more at the moment a silent peer's leases run out
 * (lease-planner.ts, expiryClaimAtMs), so a dead node's phones move as soon as they are free
 * rather than at the survivors' next tick, up to a renewal interval later.
 *
 * Time comes from the injected clock; ticks and extra claims never overlap (each waits for the
 * work under way, and the next tick is armed when one ends).
 */

export type { LeaseKeeper, LeaseKeeperOptions, LeaseKeeperStore } from "./lease-keeper-types"

/** Tells `callback` of the phones gained or lost, if any; its failure goes to onError. */
async function reportTo(onError: (err: unknown) => void, callback: (ids: string[]) => void | Promise<void>, ids: string[]): Promise<void> {
  if (ids.length === 0) return
  try {
    await callback(ids)
  } catch (err) {
    onError(err)
  }
}

/** Makes a keeper; nothing runs until start(). */
export function createLeaseKeeper(options: LeaseKeeperOptions): LeaseKeeper {
  const { store, clock, node, maxPhones, onError } = options
  const leaseMs = options.leaseMs ?? LEASE_DEFAULTS.leaseMs
  const renewEveryMs = options.renewEveryMs ?? LEASE_DEFAULTS.renewEveryMs
  const firstClaimDelayMs = options.firstClaimDelayMs ?? LEASE_DEFAULTS.firstClaimDelayMs
  const held = new Map<string, HeldLease>()
  let registered = false
  let running = false
  let firstClaimAtMs = 0
  let strandedTicks = 0
  let timer: TimerHandle | null = null
  let nextTickAtMs = 0
  let expiryClaim: { atMs: number; timer: TimerHandle } | null = null
  /** The claim between ticks under way, which a tick that falls due meanwhile waits for. */
  let betweenTicks: Promise<void> | null = null
  let current: Promise<void> = Promise.resolve()
  /** claimOne and releaseIfUnneeded calls not finished yet. */
  let claiming = 0

  /**
   * The store call, or a rejection once it has not answered within a renewal interval: a
   * database that stopped answering (a cut network drops packets, it does not refuse them) must
   * count as unreachable, so the leases at risk are given up in time instead of the tick waiting.
   */
  function timed<T>(call: Promise<T>): Promise<T> {
    return withDeadline(clock, renewEveryMs, `the database did not answer within ${renewEveryMs} ms`, call)
  }

  const report = (callback: (ids: string[]) => void | Promise<void>, ids: string[]) => reportTo(onError, callback, ids)

  async function lose(ids: string[]): Promise<void> {
    for (const id of ids) held.delete(id)
    await report(options.onLost, ids.sort())
  }

  async function register(nowMs: number): Promise<void> {
    await store.registerNode({ ...node, maxPhones, nowMs, leaseMs, url: options.url ?? null })
    registered = true
  }

  /** Renews; returns false when nothing more should happen at this tick. */
  async function renew(nowMs: number): Promise<boolean> {
    let result
    try {
      result = await timed(store.renewLeases(node, nowMs, leaseMs))
    } catch (err) {
      onError(err)
      // Unreachable database: give up, before they run out, the leases the next tick could not
      // save, counted from now (a renewal that timed out took a whole interval).
      const atRiskBeforeMs = clock.nowMs() + renewEveryMs
      await lose([...held.values()].filter((l) => l.expiresAtMs <= atRiskBeforeMs).map((l) => l.phoneId))
      return false
    }
    if (!result.registered) {
      // Another process took this node id over (this one was silent past a lease): all is lost.
      registered = false
      await lose([...held.keys()])
      return false
    }
    const renewed = new Map(result.held.map((l) => [l.phoneId, l]))
    const lost = [...held.values()].filter((l) => renewed.get(l.phoneId)?.token !== l.token).map((l) => l.phoneId)
    await lose(lost)
    // A lease given up locally while the database was unreachable but renewed now (the database
    // came back before it ran out) still carries this node's token: take it up again.
    const regained = result.held.filter((l) => !held.has(l.phoneId)).map((l) => l.phoneId)
    for (const lease of result.held) held.set(lease.phoneId, lease)
    await report(options.onGained, regained)
    return true
  }

  /** Claims what the planner says; an extra claim between ticks leaves the stranded count to the ticks. */
  async function claim(nowMs: number, atTick = true): Promise<void> {
    const census = await timed(store.leaseCensus(nowMs))
    armExpiryClaim(census.nodes)
    const unowned = census.unowned
    if (unowned === 0) {
      if (atTick) strandedTicks = 0
      return
    }
    const others = census.nodes
      .filter((n) => n.nodeId !== node.nodeId && isLiveNode(n, nowMs, leaseMs))
      .map((n) => ({ phones: n.phones, maxPhones: n.maxPhones }))
    const plan = planClaims({ held: held.size, maxPhones, others, unowned, strandedTicks })
    if (atTick) strandedTicks = plan.stranded ? strandedTicks + 1 : 0
    if (plan.claim === 0) return
    const gained = await timed(store.claimPhones(node, plan.claim, nowMs, leaseMs))
    for (const lease of gained) held.set(lease.phoneId, lease)
    await report(options.onGained, gained.map((l) => l.phoneId))
  }

  /** Arms one claim for when a silent peer's leases run out, if that comes before the next tick. */
  function armExpiryClaim(nodes: readonly NodeSummary[]): void {
    const peers = nodes.filter((n) => n.nodeId !== node.nodeId)
    const atMs = expiryClaimAtMs(peers, leaseMs, LEASE_DEFAULTS.expiryClaimMarginMs, { nowMs: clock.nowMs(), nextTickAtMs })
    if (atMs === null || (expiryClaim && expiryClaim.atMs <= atMs)) return
    expiryClaim?.timer.cancel()
    const fire = () => {
      expiryClaim = null
      if (!running) return
      const work: Promise<void> = current
        .then(() => (running && registered ? claim(clock.nowMs(), false).catch(onError) : undefined))
        .then(() => void (betweenTicks === work && (betweenTicks = null)))
      betweenTicks = current = work
    }
    expiryClaim = { atMs, timer: clock.setTimer(atMs - clock.nowMs(), fire) }
  }

  async function tick(): Promise<void> {
    // Only when a claim between ticks is under way: otherwise the renewal starts at once, as due.
    if (betweenTicks) await betweenTicks
    const nowMs = clock.nowMs()
    nextTickAtMs = nowMs + renewEveryMs
    try {
      if (!registered) await register(nowMs)
      if (!(await renew(nowMs))) return
      if (nowMs >= firstClaimAtMs) await claim(nowMs)
    } catch (err) {
      onError(err)
    }
  }

  /** Runs one change of the held set after the work under way, and makes the next tick wait for it. */
  function betweenRenewals<T>(change: () => Promise<T>): Promise<T> {
    claiming++
    const done = current.then(change)
    current = done.then(() => void claiming--, () => void claiming--)
    return done
  }

  function schedule(startedAtMs: number): void {
    if (!running) return
    timer = clock.setTimer(startedAtMs + renewEveryMs - clock.nowMs(), () => {
      timer = null
      const startedAt = clock.nowMs()
      // After a claimOne (or a release) under way: a renewal read before its claim committed
      // would report the phone just claimed as lost. Otherwise at once, so the tick's own deadline is armed now.
      current = (claiming > 0 ? current.then(tick) : tick()).then(() => schedule(startedAt))
    })
  }

  return {
    async start() {
      const nowMs = clock.nowMs()
      await register(nowMs)
      running = true
      firstClaimAtMs = nowMs + firstClaimDelayMs
      current = tick()
      await current
      schedule(nowMs)
    },
    async stop() {
      running = false
      timer?.cancel()
      expiryClaim?.timer.cancel()
      timer = null
      expiryClaim = null
      await current
      await lose([...held.keys()])
      if (registered) await store.releaseNode(node, clock.nowMs())
      registered = false
    },
    claimOne: (phoneId) =>
      betweenRenewals(async () => {
        if (held.has(phoneId)) return true
        if (!registered || !running || held.size >= maxPhones) return false
        const lease = await store.claimPhone(node, phoneId, clock.nowMs(), leaseMs)
        if (lease) held.set(lease.phoneId, lease)
        return lease !== null
      }),
    releaseIfUnneeded: (phoneId) =>
      betweenRenewals(async () => {
        const released = held.has(phoneId) && registered && (await store.releaseUnneededLease(node, phoneId, clock.nowMs()))
        if (released) held.delete(phoneId)
        return released
      }),
    tokenOf: (phoneId) => held.get(phoneId)?.token ?? null,
    heldPhones: () => [...held.keys()].sort(),
    idle: () => current,
  }
}
