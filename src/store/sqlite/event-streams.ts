import type { Database } from "bun:sqlite"
import type { EventStreamsQueries, LoggedEvent } from "../event-streams"

/*
 * The event log read in commit order on SQLite. One writer commits at a time and a new row's
 * rowid is one above the largest, so rowid order is commit order; pruning keeps the newest event
 * (src/store/sqlite/webhooks.ts) so rowids never go back under a stream's position. The read walks
 * the table's own rowid b-tree from the position: a live stream reads only what was added since,
 * and the insert path carries no extra index.
 */

const LIST_AFTER = `SELECT rowid AS position, id, account_id AS accountId, env, type, body, occurred_at_ms AS occurredAtMs
  FROM events WHERE rowid > ?1 AND account_id = ?2 AND env = ?3 ORDER BY rowid LIMIT ?4`
const POSITION = "SELECT rowid AS position FROM events WHERE id = ?1 AND account_id = ?2 AND env = ?3"
const HEAD = "SELECT COALESCE(MAX(rowid), 0) AS position FROM events"
const TOUCH = `INSERT INTO event_consumers (account_id, env, last_seen_at_ms) VALUES (?1, ?2, ?3)
  ON CONFLICT (account_id, env) DO UPDATE SET last_seen_at_ms = MAX(last_seen_at_ms, excluded.last_seen_at_ms)`
const HAS = "SELECT 1 AS present FROM event_consumers WHERE account_id = ?1 AND env = ?2"
const PRUNE = "DELETE FROM event_consumers WHERE last_seen_at_ms < ?1"

type RawLogged = Omit<LoggedEvent, "position"> & { position: number }

export function sqliteEventStreamsQueries(db: Database): EventStreamsQueries {
  return {
    listEventsAfter: async (accountId, env, position, limit) =>
      db.query<RawLogged, [number, string, string, number]>(LIST_AFTER).all(Number(position), accountId, env, limit).map((r) => ({ ...r, position: String(r.position) })),
    async eventPosition(accountId, env, eventId) {
      const row = db.query<{ position: number }, [string, string, string]>(POSITION).get(eventId, accountId, env)
      return row ? String(row.position) : null
    },
    eventLogHead: async () => String(db.query<{ position: number }, []>(HEAD).get()!.position),
    async touchEventConsumer(accountId, env, nowMs) {
      db.query(TOUCH).run(accountId, env, nowMs)
    },
    hasEventConsumer: async (accountId, env) => db.query(HAS).get(accountId, env) !== null,
    pruneEventConsumers: async (cutoffMs) => db.query(PRUNE).run(cutoffMs).changes,
  }
}
