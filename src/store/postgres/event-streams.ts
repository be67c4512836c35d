import type { SQL } from "bun"
import type { EventStreamsQueries, LoggedEvent } from "../event-streams"

/*
 * The event log read in commit order on PostgreSQL (docs/webhooks.md § "Streams"). Ids and
 * sequence numbers are taken before commit, so a transaction with a smaller one may commit after
 * a reader passed it. Each event therefore carries its writing transaction's id (xid8, from the
 * column default), and a read returns only events whose transaction is below the oldest one still
 * running (`pg_snapshot_xmin` of the statement's snapshot): every transaction below it has ended,
 * so nothing can appear later before a position already returned. Positions are "xid:seq",
 * ordered by (xid, seq); one long-running transaction anywhere in the database delays streams
 * until it ends, never reorders them.
 */

type Raw = Record<string, unknown>

/** Events of transactions older than every one still running: later commits cannot land before them. */
export const VISIBLE = "xid < pg_snapshot_xmin(pg_current_snapshot())"

export function loggedFromRaw(r: Raw): LoggedEvent {
  return {
    position: `${r.xid}:${r.seq}`,
    id: r.id as string,
    accountId: r.accountId as string,
    env: r.env as LoggedEvent["env"],
    type: r.type as string,
    body: r.body as string,
    occurredAtMs: Number(r.occurredAtMs),
  }
}

/** "xid:seq" as the two values; "0:0" is before every event. */
export function parts(position: string): [string, string] {
  const [xid = "0", seq = "0"] = position.split(":")
  return [xid, seq]
}

export function pgEventStreamsQueries(sql: SQL): EventStreamsQueries {
  return {
    async listEventsAfter(accountId, env, position, limit) {
      const [xid, seq] = parts(position)
      const rows = await sql.unsafe(
        `SELECT xid::text AS xid, seq, id, account_id AS "accountId", env, type, body, occurred_at_ms AS "occurredAtMs"
          FROM events WHERE account_id = $1 AND env = $2 AND (xid, seq) > ($3::xid8, $4::int8) AND ${VISIBLE}
          ORDER BY xid, seq LIMIT $5`,
        [accountId, env, xid, seq, limit],
      )
      return rows.map(loggedFromRaw)
    },
    async eventPosition(accountId, env, eventId) {
      const [row] = await sql`SELECT xid::text AS xid, seq FROM events WHERE id = ${eventId} AND account_id = ${accountId} AND env = ${env}`
      return row ? `${row.xid}:${row.seq}` : null
    },
    async eventLogHead(accountId, env) {
      const [row] = await sql.unsafe(
        `SELECT xid::text AS xid, seq FROM events WHERE account_id = $1 AND env = $2 AND ${VISIBLE} ORDER BY xid DESC, seq DESC LIMIT 1`,
        [accountId, env],
      )
      return row ? `${row.xid}:${row.seq}` : "0:0"
    },
    async touchEventConsumer(accountId, env, nowMs) {
      await sql`INSERT INTO event_consumers (account_id, env, last_seen_at_ms) VALUES (${accountId}, ${env}, ${nowMs})
        ON CONFLICT (account_id, env) DO UPDATE SET last_seen_at_ms = GREATEST(event_consumers.last_seen_at_ms, excluded.last_seen_at_ms)`
    },
    async hasEventConsumer(accountId, env) {
      const [row] = await sql`SELECT 1 AS present FROM event_consumers WHERE account_id = ${accountId} AND env = ${env}`
      return row !== undefined
    },
    async pruneEventConsumers(cutoffMs) {
      const result = await sql`DELETE FROM event_consumers WHERE last_seen_at_ms < ${cutoffMs}`
      return result.count
    },
  }
}
