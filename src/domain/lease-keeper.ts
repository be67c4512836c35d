import type { Clock, TimerHandle } from "../lib/clock"
import { withDeadline } from "../lib/deadline"
import type { HeldLease, LeaseQueries, NodeIdentity } from "../store/leases"
import { LEASE_DEFAULTS } from "./lease-timings"
import { planClaims } from "./lease-planner"
import { isLiveNode } from "./node-list"

/*
 * The lease keeper (docs/architecture.md § "Nodes and leases"): it keeps this node's phone
 * leases. At start it registers the node (NodeIdInUseError when another process runs under the
 * same WAGATE_NODE_ID); then, every tick, it renews every lease in one call, reports the phones
 * it lost, and claims the number of phones the planner (lease-planner.ts) says. On stop it
 * reports every phone lost, waits for that to finish (sockets closed) and then releases them
 * all, so the other nodes may take them over at once.
 *
 * Time comes from the injected clock; ticks never overlap (the next is armed when one ends).
 */

/** What the keeper needs of the store. */
export type LeaseKeeperStore = Pick<LeaseQueries, "registerNode" | "renewLeases" | "claimPhones" | "claimPhone" | "releaseNode" | "leaseCensus">

export interface LeaseKeeperOptions {
  store: LeaseKeeperStore
  clock: Clock
  /** WAGATE_NODE_ID and this process's random instance id. */
  node: NodeIdentity
  /** WAGATE_NODE_MAX_PHONES. */
  maxPhones: number
  leaseMs?: number
  renewEveryMs?: number
  firstClaimDelayMs?: number
  /** Phones this node now owns. Return quickly: the next renewal waits for it. */
  onGained(phoneIds: string[]): void | Promise<void>
  /** Phones this node no longer owns: stop using them (close their sockets) before returning. */
  onLost(phoneIds: string[]): void | Promise<void>
  /**
   * A failed renewal, census, claim or callback; the keeper carries on. A NodeIdInUseError here
   * means another process took this node id over while this one was silent (paused past a
   * lease): this one holds nothing and should exit.
   */
  onError(err: unknown): void
}

export interface LeaseKeeper {
  /** Registers the node (throws NodeIdInUseError), then runs the first tick and keeps ticking. */
  start(): Promise<void>
  /** Stops ticking, reports every held phone lost, then releases them all. */
  stop(): Promise<void>
  /**
   * Claims one phone nobody holds, now, within the node's maximum (an operator pairs it on this
   * node before a tick took it up); true when this node holds it after. Runs between ticks, so
   * a renewal never mistakes it for lost. Reports nothing to onGained: the caller takes it up.
   */
  claimOne(phoneId: string): Promise<boolean>
  /** The fencing token of a phone this node holds, or null. */
  tokenOf(phoneId: string): number | null
  /** The phones this node holds, sorted. */
  heldPhones(): string[]
  /** Resolves once the tick under way (if any) has finished. */
  idle(): Promise<void>
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
  let current: Promise<void> = Promise.resolve()
  /** claimOne calls not finished yet. */
  let claiming = 0

  /**
   * The store call, or a rejection once it has not answered within a renewal interval: a
   * database that stopped answering (a cut network drops packets, it does not refuse them) must
   * count as unreachable, so the leases at risk are given up in time instead of the tick waiting.
   */
  function timed<T>(call: Promise<T>): Promise<T> {
    return withDeadline(clock, renewEveryMs, `the database did not answer within ${renewEveryMs} ms`, call)
  }

  async function report(callback: (ids: string[]) => void | Promise<void>, ids: string[]): Promise<void> {
    if (ids.length === 0) return
    try {
      await callback(ids)
    } catch (err) {
      onError(err)
    }
  }

  async function lose(ids: string[]): Promise<void> {
    for (const id of ids) held.delete(id)
    await report(options.onLost, ids.sort())
  }

  async function register(nowMs: number): Promise<void> {
    await store.registerNode({ ...node, maxPhones, nowMs, leaseMs })
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

  async function claim(nowMs: number): Promise<void> {
    const census = await timed(store.leaseCensus(nowMs))
    const unowned = census.unowned
    if (unowned === 0) {
      strandedTicks = 0
      return
    }
    const others = census.nodes
      .filter((n) => n.nodeId !== node.nodeId && isLiveNode(n, nowMs, leaseMs))
      .map((n) => ({ phones: n.phones, maxPhones: n.maxPhones }))
    const plan = planClaims({ held: held.size, maxPhones, others, unowned, strandedTicks })
    strandedTicks = plan.stranded ? strandedTicks + 1 : 0
    if (plan.claim === 0) return
    const gained = await timed(store.claimPhones(node, plan.claim, nowMs, leaseMs))
    for (const lease of gained) held.set(lease.phoneId, lease)
    await report(options.onGained, gained.map((l) => l.phoneId))
  }

  async function tick(): Promise<void> {
    const nowMs = clock.nowMs()
    try {
      if (!registered) await register(nowMs)
      if (!(await renew(nowMs))) return
      if (nowMs >= firstClaimAtMs) await claim(nowMs)
    } catch (err) {
      onError(err)
    }
  }

  function schedule(startedAtMs: number): void {
    if (!running) return
    timer = clock.setTimer(startedAtMs + renewEveryMs - clock.nowMs(), () => {
      timer = null
      const startedAt = clock.nowMs()
      // After a claimOne under way: a renewal read before its claim committed would report the
      // phone just claimed as lost. Otherwise at once, so the tick's own deadline is armed now.
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
      timer = null
      await current
      await lose([...held.keys()])
      if (registered) await store.releaseNode(node, clock.nowMs())
      registered = false
    },
    claimOne(phoneId) {
      claiming++
      const claimed = current.then(async () => {
        if (held.has(phoneId)) return true
        if (!registered || !running || held.size >= maxPhones) return false
        const nowMs = clock.nowMs()
        const lease = await store.claimPhone(node, phoneId, nowMs, leaseMs)
        if (lease) held.set(lease.phoneId, lease)
        return lease !== null
      })
      current = claimed.then(
        () => void claiming--,
        () => void claiming--,
      )
      return claimed
    },
    tokenOf: (phoneId) => held.get(phoneId)?.token ?? null,
    heldPhones: () => [...held.keys()].sort(),
    idle: () => current,
  }
}
