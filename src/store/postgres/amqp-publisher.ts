import type { SQL } from "bun"
import type { AmqpPublisherQueries } from "../amqp-publisher"
import { loggedFromRaw, parts, VISIBLE } from "./event-streams"

/*
 * The RabbitMQ publisher's row and the whole log read in (xid, seq) order on PostgreSQL
 * (migration 22). The read returns only events of transactions below the oldest one still
 * running, as a stream's does (src/store/postgres/event-streams.ts), so the cursor never passes
 * an event that commits later.
 */

const HEAD = `COALESCE((SELECT xid::text || ':' || seq FROM events WHERE ${VISIBLE} ORDER BY xid DESC, seq DESC LIMIT 1), '0:0')`

export function pgAmqpPublisherQueries(sql: SQL): AmqpPublisherQueries {
  return {
    async claimAmqpPublisher(holder, nowMs, leaseMs) {
      const [row] = await sql.unsafe(
        `INSERT INTO amqp_publisher (id, position, holder, lease_expires_at_ms) VALUES (1, ${HEAD}, $1, $2)
          ON CONFLICT (id) DO UPDATE SET holder = excluded.holder, lease_expires_at_ms = excluded.lease_expires_at_ms,
            position = COALESCE(amqp_publisher.position, excluded.position)
          WHERE amqp_publisher.holder IS NULL OR amqp_publisher.holder = $1 OR amqp_publisher.lease_expires_at_ms <= $3
          RETURNING position`,
        [holder, nowMs + leaseMs, nowMs],
      )
      return row ? (row.position as string) : null
    },
    async advanceAmqpPublisher(holder, position, nowMs, leaseMs) {
      const rows = await sql`UPDATE amqp_publisher SET position = ${position}, lease_expires_at_ms = ${nowMs + leaseMs}
        WHERE id = 1 AND holder = ${holder} AND lease_expires_at_ms > ${nowMs} RETURNING id`
      return rows.length > 0
    },
    async releaseAmqpPublisher(holder) {
      await sql`UPDATE amqp_publisher SET holder = NULL, lease_expires_at_ms = 0 WHERE id = 1 AND holder = ${holder}`
    },
    async amqpPublisherRow() {
      const [row] = await sql`SELECT position, holder, lease_expires_at_ms AS "leaseExpiresAtMs" FROM amqp_publisher WHERE id = 1`
      return row ? { position: row.position ?? null, holder: row.holder ?? null, leaseExpiresAtMs: Number(row.leaseExpiresAtMs) } : null
    },
    async listLogAfter(position, limit) {
      const [xid, seq] = parts(position)
      const rows = await sql.unsafe(
        `SELECT xid::text AS xid, seq, id, account_id AS "accountId", env, type, body, occurred_at_ms AS "occurredAtMs"
          FROM events WHERE (xid, seq) > ($1::xid8, $2::int8) AND ${VISIBLE} ORDER BY xid, seq LIMIT $3`,
        [xid, seq, limit],
      )
      return rows.map(loggedFromRaw)
    },
    async countLogAfter(position, limit) {
      const [xid, seq] = parts(position)
      const [row] = await sql.unsafe(
        "SELECT count(*)::int8 AS n FROM (SELECT 1 FROM events WHERE (xid, seq) > ($1::xid8, $2::int8) ORDER BY xid, seq LIMIT $3) AS waiting",
        [xid, seq, limit],
      )
      return Number(row.n)
    },
  }
}
