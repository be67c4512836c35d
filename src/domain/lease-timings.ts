/** The lease timings, in one place (docs/architecture.md § "Nodes and leases"). */
export const LEASE_DEFAULTS = {
  /**
   * How long a lease runs without renewal (WAGATE_NODE_LEASE_MS): a dead node's phones are free
   * this long after its last renewal, so after a SIGKILL they connect elsewhere about 5/6 of it
   * later on average (the kill falls anywhere between two renewals), plus the connect. 7.5 s keeps
   * that median under 10 s (issue 28) even on a loaded box, where 9 s gave 9.9 s; shorter costs
   * more renewals and moves phones on shorter pauses (docs/operations.md § "Running several nodes").
   * A multiple of 3 ms, so that three renewals make exactly one lease.
   */
  leaseMs: 7_500,
  /** How often a node renews: a third of a lease (renewEveryFor), so two renewals may fail before a lease is at risk. */
  renewEveryMs: 2_500,
  /**
   * How long after registering a node waits before its first claim. 0 suits one node (SQLite);
   * nodes started together on PostgreSQL may pass one renewal interval, so that they see each
   * other before the first one claims every phone.
   */
  firstClaimDelayMs: 0,
  /**
   * How long after a silent peer's leases run out a node claims them, between its ticks
   * (lease-planner.ts, expiryClaimAtMs): room for the two nodes' clocks to differ a little, and
   * short beside the renewal interval the node would otherwise wait.
   */
  expiryClaimMarginMs: 250,
} as const

/**
 * The documented lease length for a median failover after a SIGKILL of 5 s or less
 * (docs/operations.md § "Running several nodes"): 2.5 s on average until the dead node's leases
 * run out, and the rest for the survivors' connects, which took 2 s on a loaded 2-core box
 * (4 s, the first choice, gave a 5.6 s median there).
 */
export const FAST_FAILOVER_LEASE_MS = 3_000

/** The renewal interval of a lease length: a third, so two renewals may fail before the lease is at risk. */
export const renewEveryFor = (leaseMs: number): number => Math.round(leaseMs / 3)
