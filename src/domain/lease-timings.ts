/** The lease timings, in one place (docs/architecture.md § "Nodes and leases"). */
export const LEASE_DEFAULTS = {
  /** How long a lease runs without renewal: a dead node's phones are free this long after its last renewal. */
  leaseMs: 15_000,
  /** How often a node renews (three renewals per lease: two may fail before the lease is at risk). */
  renewEveryMs: 5_000,
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
