import type { StoreQueries } from "../store/store"
import type { Clock } from "../lib/clock"
import type { IdGenerator } from "../lib/ids"
import { toIso } from "../lib/time"
import type { Environment } from "../lib/vocabulary"
import type { WriteTx } from "../store/store"
import { type DeliveryRow, type EndpointRow, type EventRow } from "../store/webhooks"
import type { EventType } from "../lib/vocabulary"
import { eventMatches } from "../lib/event-filter"
import { eventsSignal } from "./event-wake"

/** An account and environment's webhook endpoints and whether it has a stream consumer, at one change version. */
interface Listeners {
  version: string
  endpoints: EndpointRow[]
  streamed: boolean
}

/** An event to record, with its spec data. */
export interface OutboxEvent {
  accountId: string
  env: Environment
  type: EventType
  data: Record<string, unknown>
  occurredAtMs: number
}

/**
 * The transactional outbox (docs/decisions.md § "Webhooks"): `record` writes the event and one delivery per
 * subscribed, enabled endpoint inside the caller's transaction, so a state change and its
 * webhooks are committed together or not at all. The deliveries are handed to the dispatcher
 * only after the commit.
 */
export interface EventOutbox {
  record(q: StoreQueries, tx: WriteTx, event: OutboxEvent): Promise<void>
  /**
   * Records many events at once (a sandbox sweep's transitions), in order, with the same rows
   * and ids as recording them one by one, written as multi-row statements.
   */
  recordMany(q: StoreQueries, tx: WriteTx, events: readonly OutboxEvent[]): Promise<void>
  /** A new delivery of an already delivered (or failed) event to the same endpoint, due now. */
  redeliver(q: StoreQueries, tx: WriteTx, original: DeliveryRow): Promise<DeliveryRow>
}

export function createOutbox(deps: {
  ids: IdGenerator
  clock: Clock
  /** A delivery is committed (the dispatcher claims it when it is due). */
  onDeliveryCommitted: (delivery: DeliveryRow) => void
  /** The database's change version: the subscription cache is valid while it stays the same. */
  version: () => string
  /**
   * Every event is written to the log, listened to or not, and this is called after each commit
   * that wrote some: the RabbitMQ publisher reads the whole log (docs/webhooks.md § "RabbitMQ").
   */
  onLoggedCommitted?: () => void
}): EventOutbox {
  // Every event looks up its listeners: endpoints change rarely, and a stream consumer is
  // recorded when a stream opens (docs/webhooks.md § "Streams"), so both are cached per account
  // and environment until the database changes.
  const listeners = new Map<string, Listeners>()
  async function listenersOf(q: StoreQueries, accountId: string, env: Environment): Promise<Listeners> {
    const key = `${accountId}|${env}`
    const version = deps.version()
    let entry = listeners.get(key)
    if (!entry || entry.version !== version) {
      entry = { version, endpoints: await q.listEnabledEndpoints(accountId, env), streamed: await q.hasEventConsumer(accountId, env) }
      listeners.set(key, entry)
    }
    return entry
  }

  /** A pending delivery due now, with a new id. */
  function newDelivery(eventId: string, endpointId: string, resentFrom: string | null): DeliveryRow {
    const nowMs = deps.clock.nowMs()
    return {
      id: deps.ids.newId("whd"),
      eventId,
      endpointId,
      status: "pending",
      attemptCount: 0,
      firstAttemptAtMs: null,
      nextAttemptAtMs: nowMs,
      lastStatusCode: null,
      lastError: null,
      resentFrom,
      createdAtMs: nowMs,
      updatedAtMs: nowMs,
    }
  }


  async function recordMany(q: StoreQueries, tx: WriteTx, events: readonly OutboxEvent[]): Promise<void> {
    const eventRows: EventRow[] = []
    const deliveries: DeliveryRow[] = []
    // The accounts and environments whose streams read these events: each is signalled once per commit.
    const streamed = new Set<string>()
    for (const event of events) {
      const listening = await listenersOf(q, event.accountId, event.env)
      const endpoints = listening.endpoints.filter((e) => eventMatches(e.events, event.type))
      // Nobody listens: nothing to deliver, nothing to keep. A stream consumer reads the log.
      if (endpoints.length === 0 && !listening.streamed && !deps.onLoggedCommitted) continue
      // The RabbitMQ publisher (onLoggedCommitted) reads every event: the node holding its lease wakes on any.
      if (listening.streamed || deps.onLoggedCommitted) streamed.add(eventsSignal(event.accountId, event.env))
      const eventId = deps.ids.newId("evt")
      const body = JSON.stringify({ event: event.type, timestamp: toIso(event.occurredAtMs), data: event.data })
      eventRows.push({ id: eventId, accountId: event.accountId, env: event.env, type: event.type, body, occurredAtMs: event.occurredAtMs })
      for (const endpoint of endpoints) deliveries.push(newDelivery(eventId, endpoint.id, null))
    }
    if (eventRows.length === 0) return
    await q.insertEventsAndDeliveries(eventRows, deliveries)
    // Through the database, so that the streams of every node sharing it wake (src/webhooks/event-wake.ts).
    for (const signal of streamed) tx.notify("events", signal)
    tx.afterCommit(() => {
      for (const row of deliveries) deps.onDeliveryCommitted(row)
      deps.onLoggedCommitted?.()
    })
  }

  return {
    record: (q, tx, event) => recordMany(q, tx, [event]),
    recordMany,
    async redeliver(q, tx, original) {
      const row = newDelivery(original.eventId, original.endpointId, original.id)
      await q.insertDelivery(row)
      tx.afterCommit(() => deps.onDeliveryCommitted(row))
      return row
    },
  }
}
