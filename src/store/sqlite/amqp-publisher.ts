import type { Database } from "bun:sqlite"
import type { AmqpPublisherQueries, AmqpPublisherRow } from "../amqp-publisher"
import type { LoggedEvent } from "../event-streams"

/*
 * The RabbitMQ publisher's row and the whole log read in rowid order on SQLite (migration 34;
 * rowid order is commit order, src/store/sqlite/event-streams.ts).
 */

const CLAIM = `INSERT INTO amqp_publisher (id, position, holder, lease_expires_at_ms)
  VALUES (1, (SELECT CAST(COALESCE(MAX(rowid), 0) AS TEXT) FROM events), $holder, $expiresAtMs)
  ON CONFLICT (id) DO UPDATE SET holder = excluded.holder, lease_expires_at_ms = excluded.lease_expires_at_ms,
    position = COALESCE(amqp_publisher.position, excluded.position)
  WHERE amqp_publisher.holder IS NULL OR amqp_publisher.holder = $holder OR amqp_publisher.lease_expires_at_ms <= $nowMs
  RETURNING position`
const ADVANCE = `UPDATE amqp_publisher SET position = $position, lease_expires_at_ms = $expiresAtMs
  WHERE id = 1 AND holder = $holder AND lease_expires_at_ms > $nowMs RETURNING id`
const RELEASE = "UPDATE amqp_publisher SET holder = NULL, lease_expires_at_ms = 0 WHERE id = 1 AND holder = ?1"
const ROW = "SELECT position, holder, lease_expires_at_ms AS leaseExpiresAtMs FROM amqp_publisher WHERE id = 1"
const LIST = `SELECT rowid AS position, id, account_id AS accountId, env, type, body, occurred_at_ms AS occurredAtMs
  FROM events WHERE rowid > ?1 ORDER BY rowid LIMIT ?2`
const COUNT = "SELECT count(*) AS n FROM (SELECT 1 FROM events WHERE rowid > ?1 LIMIT ?2)"

type RawLogged = Omit<LoggedEvent, "position"> & { position: number }

export function sqliteAmqpPublisherQueries(db: Database): AmqpPublisherQueries {
  return {
    async claimAmqpPublisher(holder, nowMs, leaseMs) {
      const row = db.query<{ position: string }, Record<string, string | number>>(CLAIM).get({ holder, nowMs, expiresAtMs: nowMs + leaseMs })
      return row ? row.position : null
    },
    advanceAmqpPublisher: async (holder, position, nowMs, leaseMs) =>
      db.query(ADVANCE).get({ holder, position, nowMs, expiresAtMs: nowMs + leaseMs }) !== null,
    async releaseAmqpPublisher(holder) {
      db.query(RELEASE).run(holder)
    },
    amqpPublisherRow: async () => db.query<AmqpPublisherRow, []>(ROW).get(),
    listLogAfter: async (position, limit) =>
      db.query<RawLogged, [number, number]>(LIST).all(Number(position), limit).map((r) => ({ ...r, position: String(r.position) })),
    countLogAfter: async (position, limit) => db.query<{ n: number }, [number, number]>(COUNT).get(Number(position), limit)!.n,
  }
}
