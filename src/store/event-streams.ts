import type { Environment } from "./api-keys"
import type { EventRow } from "./webhooks"

/**
 * An event of the log with its position: where it stands in commit order among its account's
 * events (docs/webhooks.md § "Streams"). Positions are opaque strings a store hands out and reads
 * back: SQLite's rowid, PostgreSQL's writing transaction and sequence number.
 */
export interface LoggedEvent extends EventRow {
  position: string
}

/** The queries behind `GET /v1/events` (src/store/sqlite/event-streams.ts, src/store/postgres/event-streams.ts). */
export interface EventStreamsQueries {
  /**
   * Up to `limit` events of an account and environment after `position`, in commit order. An
   * event is returned only once no transaction that could still commit an earlier one is open,
   * so a reader that walks the positions never skips one.
   */
  listEventsAfter(accountId: string, env: Environment, position: string, limit: number): Promise<LoggedEvent[]>
  /** The position of one of the account's events, or null when it is unknown, pruned or another account's. */
  eventPosition(accountId: string, env: Environment, eventId: string): Promise<string | null>
  /** A position at or after every event a reader may see now: where a new stream starts. */
  eventLogHead(accountId: string, env: Environment): Promise<string>
  /** Records that a stream of this account and environment is open now, so its events are kept. */
  touchEventConsumer(accountId: string, env: Environment, nowMs: number): Promise<void>
  /** Whether a stream of this account and environment was seen (and not forgotten since). */
  hasEventConsumer(accountId: string, env: Environment): Promise<boolean>
  /** Forgets the consumers not seen since `cutoffMs`; returns how many. */
  pruneEventConsumers(cutoffMs: number): Promise<number>
}
