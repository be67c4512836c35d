import type { Database } from "bun:sqlite"
import type { DeliveryRow } from "../webhooks"
import { type ClaimedDelivery, byDueThenId } from "../delivery-claims"

/*
 * Claims on webhook deliveries, so that several nodes on one database share the work of
 * delivering without attempting a delivery twice while it is claimed, and so that the
 * deliveries of a node that died are attempted by the others once its claims expire
 * (docs/webhooks.md § "Several nodes"). A claim is two columns of the delivery: the node that
 * holds it and when it expires. Recording an attempt does not touch them; the node releases its
 * claims once the outcome is recorded (or leaves them to expire if it dies first).
 *
 * These are the SQLite statements (one node, so a claim never meets another); the PostgreSQL
 * ones are in src/store/postgres/delivery-claims.ts.
 */

type RawClaimed = DeliveryRow & { eventType: string; body: string; claimExpiresAtMs: number }

/**
 * The pending deliveries claimable at `now`: due, and not claimed, or claimed by a claim that
 * expired or by a node whose last heartbeat came before `silentBefore` (a node gone silent: the
 * dispatcher says when, src/webhooks/dispatcher.ts `silentNodeAfterMs`), and to none of the
 * endpoints in the JSON array `except`. A node with no heartbeat row (the one process on SQLite,
 * a forgotten node) keeps its claims until they expire. The arguments are parameter names.
 */
const claimable = (now: string, except: string, silentBefore: string) => `status = 'pending' AND next_attempt_at_ms <= ${now}
  AND (claim_expires_at_ms IS NULL OR claim_expires_at_ms < ${now} OR claimed_by IN (SELECT node_id FROM nodes WHERE heartbeat_at_ms < ${silentBefore}))
  AND endpoint_id NOT IN (SELECT value FROM json_each(${except}))`

// One statement: the claimable pending deliveries are found through the partial index on
// pending rows, earliest due first, and claimed. SQLite's RETURNING keeps no order, so the rows
// are sorted after.
const CLAIM_DUE = `UPDATE webhook_deliveries SET claimed_by = ?1, claim_expires_at_ms = ?2 + ?4
  WHERE id IN (SELECT id FROM webhook_deliveries WHERE ${claimable("?2", "?5", "?6")} ORDER BY next_attempt_at_ms LIMIT ?3)
  RETURNING id, event_id AS eventId, endpoint_id AS endpointId, status, attempt_count AS attemptCount,
    first_attempt_at_ms AS firstAttemptAtMs, next_attempt_at_ms AS nextAttemptAtMs, last_status_code AS lastStatusCode,
    last_error AS lastError, resent_from AS resentFrom, created_at_ms AS createdAtMs, updated_at_ms AS updatedAtMs,
    claim_expires_at_ms AS claimExpiresAtMs,
    (SELECT type FROM events WHERE events.id = event_id) AS eventType, (SELECT body FROM events WHERE events.id = event_id) AS body`

/**
 * Claims up to `limit` deliveries due at `nowMs` for `nodeId` until `nowMs + leaseMs`: pending,
 * due, not claimed or claimed by a claim that expired or by a node silent since before
 * `silentBeforeMs`, and to none of `exceptEndpointIds`. Earliest due first.
 */
export function claimDueDeliveries(
  db: Database,
  nodeId: string,
  nowMs: number,
  limit: number,
  leaseMs: number,
  exceptEndpointIds: readonly string[] = [],
  silentBeforeMs: number | null = null,
): ClaimedDelivery[] {
  const rows = db
    .query<RawClaimed, [string, number, number, number, string, number | null]>(CLAIM_DUE)
    .all(nodeId, nowMs, limit, leaseMs, JSON.stringify(exceptEndpointIds), silentBeforeMs)
  return rows.map(({ eventType, body, claimExpiresAtMs, ...delivery }) => ({ delivery, eventType, body, claimExpiresAtMs })).sort(byDueThenId)
}

const ANY_CLAIMABLE = `SELECT EXISTS (SELECT 1 FROM webhook_deliveries WHERE ${claimable("?1", "?2", "?3")}) AS found`

/** Whether claimDueDeliveries would claim anything now: a read, so that an idle node's poll writes nothing. */
export function hasClaimableDeliveries(db: Database, nowMs: number, exceptEndpointIds: readonly string[] = [], silentBeforeMs: number | null = null): boolean {
  const row = db.query<{ found: number }, [number, string, number | null]>(ANY_CLAIMABLE).get(nowMs, JSON.stringify(exceptEndpointIds), silentBeforeMs)
  return row?.found === 1
}

const RELEASE = `UPDATE webhook_deliveries SET claimed_by = NULL, claim_expires_at_ms = NULL
  WHERE id IN (SELECT value FROM json_each(?2)) AND claimed_by = ?1`

/** Gives up `nodeId`'s claims on `ids`; a claim another node holds now is left alone. Returns how many were released. */
export function releaseClaims(db: Database, nodeId: string, ids: readonly string[]): number {
  if (ids.length === 0) return 0
  return db.query(RELEASE).run(nodeId, JSON.stringify(ids)).changes
}
