import type { SessionBounds } from "../store/session-bounds"

/*
 * The bounds of a node's PostgreSQL sessions, derived from its lease timings (docs/architecture.md
 * § "Nodes and leases", "A paused node"), so that a node paused inside a transaction lets go of
 * its row locks about when the leases it stopped renewing run out, never later than one renewal
 * interval after:
 * - idle_in_transaction_session_timeout = the lease minus one renewal interval. A paused node sends
 *   nothing, so once the statement in flight ends its session is idle in a transaction; a pause
 *   begins at most one interval after the last renewal, so the server ends the session, and
 *   releases its locks, by the time the leases run out. A live node's transactions never wait that
 *   long on their own client (their statements follow each other within milliseconds, seconds on
 *   a starved box).
 * - lock_timeout = one renewal interval. A statement that waited that long for a lock is waiting
 *   on a stalled session (a live one holds its locks for milliseconds); failing it frees the
 *   pool's connection for the next tick, and the work is retried (a renewal or claim at the next
 *   tick, a request by its client). A pause that catches a statement waiting on a lock therefore
 *   holds its own locks at most this much past the leases.
 * - statement_timeout = the lease: no statement of a node's own work runs that long, and one that
 *   does (a stalled server) holds its connection no longer than a lease.
 * The bounds are generous beside what a live node needs, so that a busy machine, where a process
 * may wait a second for a core, never trips them; the fast setting (WAGATE_NODE_LEASE_MS=3000)
 * tightens them with the lease. With the default 7.5 s lease: 5 s idle, 2.5 s per lock wait, 7.5 s
 * per statement.
 */

export interface LeaseTimings {
  leaseMs: number
  renewEveryMs: number
}

/** The session bounds of a node whose leases run `leaseMs` and are renewed every `renewEveryMs`. */
export function nodeSessionBounds(timings: LeaseTimings): SessionBounds {
  const interval = timings.renewEveryMs
  return {
    statementTimeoutMs: timings.leaseMs,
    lockTimeoutMs: interval,
    idleInTransactionTimeoutMs: timings.leaseMs - interval,
  }
}
