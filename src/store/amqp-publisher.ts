import type { LoggedEvent } from "./event-streams"

/**
 * The RabbitMQ publisher's row (docs/webhooks.md § "RabbitMQ"): one for the whole database,
 * holding the cursor (the position in the event log up to which every event is confirmed by the
 * broker, the same positions streams use) and a lease, so that on several nodes one node
 * publishes at a time and each event goes out once, in the log's commit order.
 */
export interface AmqpPublisherRow {
  /** Null until a publisher first claims the row. */
  position: string | null
  holder: string | null
  leaseExpiresAtMs: number
}

/** The queries behind the publisher (src/store/sqlite/amqp-publisher.ts, src/store/postgres/amqp-publisher.ts). */
export interface AmqpPublisherQueries {
  /**
   * Takes or renews the publisher's lease for `holder` when it is free, expired or already its
   * own; returns the cursor, or null when another node holds it. The first claim ever sets the
   * cursor to the log's head: events written before publishing was enabled are not sent.
   */
  claimAmqpPublisher(holder: string, nowMs: number, leaseMs: number): Promise<string | null>
  /** Moves the cursor and renews the lease, only while `holder` holds it; false when it lost it. */
  advanceAmqpPublisher(holder: string, position: string, nowMs: number, leaseMs: number): Promise<boolean>
  /** Lets the lease go (at shutdown), so another node takes over at once. */
  releaseAmqpPublisher(holder: string): Promise<void>
  /** The row, or null before the first claim. */
  amqpPublisherRow(): Promise<AmqpPublisherRow | null>
  /**
   * Up to `limit` events of every account after `position`, in the log's commit order, with the
   * same visibility rule as a stream's read (src/store/event-streams.ts): none is skipped.
   */
  listLogAfter(position: string, limit: number): Promise<LoggedEvent[]>
  /**
   * How many events stand after `position` (the publisher's backlog), counting at most `limit`:
   * the count stops there, so a scrape during a long outage reads a bounded range of the index.
   */
  countLogAfter(position: string, limit: number): Promise<number>
}
