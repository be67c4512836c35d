import type { SessionBounds } from "../session-bounds"

/*
 * Server-side bounds on each PostgreSQL session a node opens (docs/architecture.md § "Nodes and
 * leases", "A paused node"). A node stopped inside a transaction (SIGSTOP, a frozen VM, a long
 * pause) keeps its row locks while it sleeps, and claims skip locked lease rows: without these
 * bounds the phone whose lease row it had locked would stay with nobody for as long as it sleeps.
 * PostgreSQL enforces them itself, so they hold while the node cannot run any code at all.
 * Bun's SQL sends them as startup parameters of every connection it opens, the LISTEN one too.
 */

/** The bounds as the runtime parameters Bun's SQL `connection` option sends at connect. */
export function sessionParameters(bounds: SessionBounds): Record<string, number> {
  const ms = (value: number) => Math.max(0, Math.round(value))
  return {
    statement_timeout: ms(bounds.statementTimeoutMs),
    lock_timeout: ms(bounds.lockTimeoutMs),
    idle_in_transaction_session_timeout: ms(bounds.idleInTransactionTimeoutMs),
  }
}
