/*
 * How many phones a node claims at one tick, and when it claims between ticks
 * (docs/architecture.md § "Nodes and leases"). Pure: the lease keeper (lease-keeper.ts) feeds it
 * what the database said at this tick.
 *
 * Hysteresis, so that nodes never trade phones back and forth:
 * - a node only ever claims phones nobody holds (unowned, released or expired); it never takes
 *   one from a live node, and never gives one up to even out the load (claims are bounded by
 *   its WAGATE_NODE_MAX_PHONES, so it is never above it). A new node therefore starts empty in a
 *   full cluster and fills up as phones fall free (a failover, a rolling restart).
 * - it claims up to its fair share: the level L at which the live nodes, each capped by its own
 *   maximum, hold every phone (Σ min(max_i, L) ≥ phones). Two nodes sharing a dead node's
 *   phones each take their share instead of the quicker one taking all.
 * - past its fair share it claims only phones that stayed unowned for STRANDED_PATIENCE_TICKS
 *   ticks while it was at its share (a live node that does not claim, or fair shares read at
 *   different moments): then it takes them, up to its maximum, so no phone stays unserved.
 */

/** Ticks at fair share with phones still unowned before a node claims past its share. */
export const STRANDED_PATIENCE_TICKS = 2

/** Another live node as this tick's census saw it. */
export interface PeerLoad {
  phones: number
  maxPhones: number
}

export interface ClaimPlanInput {
  /** Leases this node holds after this tick's renewal. */
  held: number
  /** This node's WAGATE_NODE_MAX_PHONES. */
  maxPhones: number
  /** The other live nodes (heartbeat within a lease, not stopping). */
  others: readonly PeerLoad[]
  /** Phones that no node holds now. */
  unowned: number
  /** Consecutive earlier ticks at which this node was at its share while phones stayed unowned. */
  strandedTicks: number
}

export interface ClaimPlan {
  /** Phones to claim now (never negative, never past the maximum or the unowned count). */
  claim: number
  /** This node's fair share (capped by its maximum). */
  fairShare: number
  /** True when phones stay unowned although this node is at its share and below its maximum. */
  stranded: boolean
}

/**
 * The fair level: the smallest L with Σ min(cap_i, L) ≥ total, or the largest cap when the caps
 * together hold fewer than `total` (every node then fills up to its maximum).
 */
export function fairLevel(total: number, caps: readonly number[]): number {
  const held = (level: number) => caps.reduce((sum, cap) => sum + Math.min(cap, level), 0)
  const top = Math.max(0, ...caps)
  if (held(top) <= total) return top
  let low = 0
  let high = top
  while (low < high) {
    const mid = Math.floor((low + high) / 2)
    if (held(mid) >= total) high = mid
    else low = mid + 1
  }
  return low
}

/** How many phones to claim at this tick. */
export function planClaims(input: ClaimPlanInput): ClaimPlan {
  const { held, maxPhones, others, unowned } = input
  const total = held + unowned + others.reduce((sum, o) => sum + o.phones, 0)
  const fairShare = Math.min(maxPhones, fairLevel(total, [maxPhones, ...others.map((o) => o.maxPhones)]))
  const room = Math.max(0, maxPhones - held)
  const toShare = Math.min(unowned, room, Math.max(0, fairShare - held))
  const stranded = toShare === 0 && unowned > 0 && room > 0
  if (stranded && input.strandedTicks >= STRANDED_PATIENCE_TICKS) return { claim: Math.min(unowned, room), fairShare, stranded }
  return { claim: toShare, fairShare, stranded }
}

/** Another node as this tick's census saw it, for the claim at its leases' expiry. */
export interface PeerHeartbeat {
  heartbeatAtMs: number
  stopping: boolean
  /** Leases it holds (not expired). */
  phones: number
}

/**
 * When to claim between two ticks: a peer's last heartbeat renewed all its leases until
 * `heartbeatAtMs + leaseMs`, so a peer that went silent (SIGKILL, a crash, a cut network) has
 * every phone free by then. The earliest such moment, plus `marginMs` for the clocks of two
 * nodes, is returned when it comes before this node's next tick; otherwise null, and the next
 * tick looks again. A live peer heartbeats every renewal, so its moment lies two renewals out and
 * never comes first; a stopping peer released its phones already; an expired one holds none. A
 * moment already past is left to the next tick: a peer can hold a lease taken after its last
 * heartbeat (one phone claimed by hand), which runs a little longer, and claiming at once again
 * and again until it ends would spin.
 */
export function expiryClaimAtMs(peers: readonly PeerHeartbeat[], leaseMs: number, marginMs: number, times: { nowMs: number; nextTickAtMs: number }): number | null {
  const moments = peers
    .filter((p) => !p.stopping && p.phones > 0)
    .map((p) => p.heartbeatAtMs + leaseMs + marginMs)
    .filter((atMs) => atMs > times.nowMs)
  const first = Math.min(...moments)
  return first < times.nextTickAtMs ? first : null
}
