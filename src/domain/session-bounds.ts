import type { SessionBounds } from "../store/postgres/session-bounds"

/*
 * The bounds of a node's PostgreSQL sessions, derived from its lease timings (docs/architecture.md
 * § "Nodes and leases", "A paused node"), so that a node paused inside a transaction lets go of
 * its row locks before the leases it stopped renewing run out:
 * - idle_in_transaction_session_timeout = one renewal interval. A paused node sends nothing, so
 *   once the statement in flight ends its session is idle in a transaction; the server ends it
 *   one renewal interval later, which releases every lock. A live node's transactions never
 *   wait that long on their own client (their statements follow each other within milliseconds).
 * - statement_timeout = the lease minus two renewal intervals (one interval at the least). A pause
 *   begins at most one interval after the last renewal, so its leases run out at least lease minus
 *   one interval after it began; the statement in flight plus the idle bound fit in that, so the
 *   locks are gone when the phones become claimable and a pause delays no failover.
 * - lock_timeout = half a renewal interval. A statement that waited that long for a lock is
 *   waiting on a stalled session (a live one holds its locks for milliseconds); failing it frees
 *   the pool's connection before the next tick needs it, and the work is retried (a renewal or
 *   claim at the next tick, a request by its client). Shorter than the statement bound, so a wait
 *   on a lock fails as such (lock_not_available) rather than as a slow statement.
 * With the defaults (15 s lease, renewal every 5 s): 5 s, 5 s and 2.5 s.
 */

export interface LeaseTimings {
  leaseMs: number
  renewEveryMs: number
}

/** The session bounds of a node whose leases run `leaseMs` and are renewed every `renewEveryMs`. */
export function nodeSessionBounds(timings: LeaseTimings): SessionBounds {
  const interval = timings.renewEveryMs
  return {
    statementTimeoutMs: Math.max(timings.leaseMs - 2 * interval, interval),
    lockTimeoutMs: interval / 2,
    idleInTransactionTimeoutMs: interval,
  }
}
