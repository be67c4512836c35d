/*
 * The server-side bounds a database session may carry (docs/architecture.md § "Nodes and
 * leases", "A paused node"), in the store's own words: the domain derives them from the lease
 * timings, and the PostgreSQL store sends them at connect (postgres/session-bounds.ts).
 */

/** The three bounds, in milliseconds; 0 leaves one unbounded. */
export interface SessionBounds {
  /** statement_timeout: the longest a statement may run. */
  statementTimeoutMs: number
  /** lock_timeout: the longest a statement may wait for a lock another session holds. */
  lockTimeoutMs: number
  /** idle_in_transaction_session_timeout: the longest an open transaction may wait on its client before the server ends the session. */
  idleInTransactionTimeoutMs: number
}

/**
 * For `wagate migrate` and `import`, which run alone before the nodes start and may take long:
 * explicitly unbounded, so that a default the operator set on the role cannot cut them short.
 */
export const UNBOUNDED_SESSION: SessionBounds = { statementTimeoutMs: 0, lockTimeoutMs: 0, idleInTransactionTimeoutMs: 0 }
