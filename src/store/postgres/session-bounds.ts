/*
 * Server-side bounds on each PostgreSQL session a node opens (docs/architecture.md § "Nodes and
 * leases", "A paused node"). A node stopped inside a transaction (SIGSTOP, a frozen VM, a long
 * pause) keeps its row locks while it sleeps, and claims skip locked lease rows: without these
 * bounds the phone whose lease row it had locked would stay with nobody for as long as it sleeps.
 * PostgreSQL enforces them itself, so they hold while the node cannot run any code at all.
 * Bun's SQL sends them as startup parameters of every connection it opens, the LISTEN one too.
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

/** The bounds as the runtime parameters Bun's SQL `connection` option sends at connect. */
export function sessionParameters(bounds: SessionBounds): Record<string, number> {
  const ms = (value: number) => Math.max(0, Math.round(value))
  return {
    statement_timeout: ms(bounds.statementTimeoutMs),
    lock_timeout: ms(bounds.lockTimeoutMs),
    idle_in_transaction_session_timeout: ms(bounds.idleInTransactionTimeoutMs),
  }
}
