import type { SQL } from "bun"
import { byDueThenId, type ClaimedDelivery } from "../delivery-claims"
import type { DeliveryClaimQueries } from "../store"
import { pendingFromRaw } from "./webhooks"

/*
 * Delivery claims on PostgreSQL, where several nodes claim from the same rows at once
 * (src/store/sqlite/delivery-claims.ts says what a claim is). The due rows are locked with
 * `FOR UPDATE SKIP LOCKED`: a node passes over the rows another node is claiming instead of
 * waiting for it, and a row claimed (and committed) by another node since this statement's
 * snapshot is checked again once locked, so its fresh claim excludes it. Two nodes therefore
 * never leave with the same delivery while its claim holds.
 */

/** The claimable pending deliveries, as src/store/delivery-claims.ts says (a claim of a node silent since before `silentBeforeMs` counts as expired). */
function claimable(sql: SQL, nowMs: number, exceptEndpointIds: readonly string[], silentBeforeMs: number | null) {
  return sql`status = 'pending' AND next_attempt_at_ms <= ${nowMs}
    AND (claim_expires_at_ms IS NULL OR claim_expires_at_ms < ${nowMs}
      OR claimed_by IN (SELECT node_id FROM nodes WHERE heartbeat_at_ms < ${silentBeforeMs}::int8))
    AND NOT (endpoint_id = ANY(${[...exceptEndpointIds]}::text[]))`
}

export function pgDeliveryClaimQueries(sql: SQL): DeliveryClaimQueries {
  return {
    async claimDueDeliveries(nodeId, nowMs, limit, leaseMs, exceptEndpointIds = [], silentBeforeMs = null) {
      // The locking subquery is a CTE so that it runs once (a subquery under IN may be planned to run again).
      const rows = await sql`WITH due AS (
          SELECT id FROM webhook_deliveries
          WHERE ${claimable(sql, nowMs, exceptEndpointIds, silentBeforeMs)}
          ORDER BY next_attempt_at_ms LIMIT ${limit}
          FOR UPDATE SKIP LOCKED
        ), claimed AS (
          UPDATE webhook_deliveries d SET claimed_by = ${nodeId}, claim_expires_at_ms = ${nowMs + leaseMs}::int8
          FROM due WHERE d.id = due.id
          RETURNING d.*
        )
        SELECT c.id, c.event_id AS "eventId", c.endpoint_id AS "endpointId", c.status, c.attempt_count AS "attemptCount",
          c.first_attempt_at_ms AS "firstAttemptAtMs", c.next_attempt_at_ms AS "nextAttemptAtMs", c.last_status_code AS "lastStatusCode",
          c.last_error AS "lastError", c.resent_from AS "resentFrom", c.created_at_ms AS "createdAtMs", c.updated_at_ms AS "updatedAtMs",
          c.claim_expires_at_ms AS "claimExpiresAtMs", e.type AS "eventType", e.body
        FROM claimed c JOIN events e ON e.id = c.event_id`
      return rows.map((r: Record<string, unknown>): ClaimedDelivery => ({ ...pendingFromRaw(r), claimExpiresAtMs: Number(r.claimExpiresAtMs) })).sort(byDueThenId)
    },
    async hasClaimableDeliveries(nowMs, exceptEndpointIds = [], silentBeforeMs = null) {
      const [row] = await sql`SELECT EXISTS (SELECT 1 FROM webhook_deliveries WHERE ${claimable(sql, nowMs, exceptEndpointIds, silentBeforeMs)}) AS found`
      return row?.found === true
    },
    async releaseClaims(nodeId, ids) {
      if (ids.length === 0) return 0
      const result = await sql`UPDATE webhook_deliveries SET claimed_by = NULL, claim_expires_at_ms = NULL
        WHERE id = ANY(${[...ids]}::text[]) AND claimed_by = ${nodeId}`
      return result.count
    },
  }
}
