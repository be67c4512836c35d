import type { Database } from "bun:sqlite"
import type { AppMetrics } from "../lib/app-metrics"
import type { Clock, TimerHandle } from "../lib/clock"
import type { Logger } from "../lib/logger"
import type { Scheduler } from "../lib/scheduler"
import { inReadTransaction } from "../store/db"
import type { Writer } from "../store/writer"
import {
  findDelivery,
  findEndpoint,
  findEvent,
  findPendingDeliveryEndpoint,
  insertAttempt,
  listPendingDeliveries,
  updateDelivery,
  type DeliveryRow,
  type EndpointRow,
  type EventRow,
} from "../store/webhooks"
import { nextAttemptAtMs } from "./retry-policy"
import { postAttempt, type FetchLike } from "./sender"
import { signatureHeader } from "./signer"

export const SCHEDULER_KIND = "webhook"
/** How often the dispatcher looks for deliveries another process (the CLI) wrote. */
export const EXTERNAL_CHANGE_POLL_MS = 1_000

export interface DispatcherConfig {
  retryOffsetsMs: readonly number[]
  timeoutMs: number
  /** Attempts in flight at once, all endpoints together. */
  maxInFlight: number
  /** Attempts in flight at once to one endpoint, so one slow receiver cannot take every slot. */
  maxInFlightPerEndpoint: number
  userAgent: string
}

/** Delivers the outbox's deliveries: on time, concurrently, and durably recorded. */
export interface Dispatcher {
  /** Loads every pending delivery (after a restart too) and starts watching for new ones. */
  start(): void
  /**
   * Schedules a committed delivery for `dueMs`. Ignored until `start()`: a process that never
   * starts the dispatcher (a short CLI command) leaves its deliveries pending in the database for
   * the running server, which would otherwise attempt them a second time.
   */
  schedule(deliveryId: string, dueMs: number): void
  /** Attempts in flight now. */
  readonly inFlight: number
  /** Stops: nothing new starts, in-flight attempts are abandoned unrecorded and stay pending for the next start. */
  stop(): Promise<void>
}

interface AttemptInput {
  delivery: DeliveryRow
  endpoint: EndpointRow
  event: EventRow
}

export function createDispatcher(deps: {
  db: Database
  writer: Writer
  clock: Clock
  logger: Logger
  scheduler: Scheduler
  metrics: AppMetrics
  config: DispatcherConfig
  fetch?: FetchLike
}): Dispatcher {
  const { db, writer, clock, logger, scheduler, config } = deps
  // Per-endpoint FIFO queues with a read index: Array.shift() is O(n), which turns a burst of
  // tens of thousands of due deliveries into quadratic work.
  const queues = new Map<string, { items: string[]; head: number }>()
  const inFlightByEndpoint = new Map<string, number>()
  const running = new Set<string>()
  const queued = new Set<string>()
  const attempts = new Set<Promise<void>>()
  const shutdown = new AbortController()
  let inFlight = 0
  let started = false
  let stopped = false
  let pollTimer: TimerHandle | null = null
  let lastDataVersion = 0

  scheduler.on(SCHEDULER_KIND, (ids) => {
    // A backlog falls due in one tick: one read transaction instead of one per delivery.
    inReadTransaction(db, () => {
      for (const id of ids) enqueue(id)
    })
    pump()
  })

  function enqueue(deliveryId: string): void {
    if (stopped || running.has(deliveryId) || queued.has(deliveryId)) return
    const endpointId = findPendingDeliveryEndpoint(db, deliveryId)
    if (!endpointId) return
    queued.add(deliveryId)
    const queue = queues.get(endpointId)
    if (queue) queue.items.push(deliveryId)
    else queues.set(endpointId, { items: [deliveryId], head: 0 })
  }

  /**
   * Starts queued attempts while there are free slots, never more than the per-endpoint cap.
   * Their rows are read first, together, in one read transaction: outside a transaction every
   * statement takes and drops SQLite's locks, which tripled the cost of these reads.
   */
  function pump(): void {
    const starting: { endpointId: string; deliveryId: string }[] = []
    for (const [endpointId, queue] of queues) {
      while (queue.head < queue.items.length && inFlight < config.maxInFlight && (inFlightByEndpoint.get(endpointId) ?? 0) < config.maxInFlightPerEndpoint) {
        const deliveryId = queue.items[queue.head++]!
        queued.delete(deliveryId)
        takeSlot(endpointId, deliveryId)
        starting.push({ endpointId, deliveryId })
      }
      if (queue.head >= queue.items.length) queues.delete(endpointId)
      if (inFlight >= config.maxInFlight) break
    }
    if (starting.length === 0) return
    const loaded = inReadTransaction(db, () => starting.map(({ deliveryId }) => loadAttempt(deliveryId)))
    starting.forEach(({ endpointId, deliveryId }, i) => start(endpointId, deliveryId, loaded[i]!))
  }

  function takeSlot(endpointId: string, deliveryId: string): void {
    inFlight++
    inFlightByEndpoint.set(endpointId, (inFlightByEndpoint.get(endpointId) ?? 0) + 1)
    running.add(deliveryId)
  }

  /** What an attempt needs, or null when the delivery is no longer pending or its endpoint was removed (its deliveries went with it). */
  function loadAttempt(deliveryId: string): AttemptInput | null {
    const delivery = findDelivery(db, deliveryId)
    if (!delivery || delivery.status !== "pending") return null
    const endpoint = findEndpoint(db, delivery.endpointId)
    const event = findEvent(db, delivery.eventId)
    return endpoint && event ? { delivery, endpoint, event } : null
  }

  function start(endpointId: string, deliveryId: string, input: AttemptInput | null): void {
    // The slot is given back once the outcome is committed, so the attempts freed by one commit
    // start together in the next pump and read their rows in one transaction.
    const attempt = (input ? attemptDelivery(input) : Promise.resolve())
      .catch((err) => logger.error("webhook attempt failed unexpectedly", { deliveryId, err }))
      .finally(() => {
        inFlight--
        const left = (inFlightByEndpoint.get(endpointId) ?? 1) - 1
        if (left === 0) inFlightByEndpoint.delete(endpointId)
        else inFlightByEndpoint.set(endpointId, left)
        running.delete(deliveryId)
        attempts.delete(attempt)
        pump()
      })
    attempts.add(attempt)
  }

  async function attemptDelivery({ delivery, endpoint, event }: AttemptInput): Promise<void> {
    const deliveryId = delivery.id
    if (!endpoint.enabled) {
      await writer.write((w) =>
        updateDelivery(w, { ...delivery, status: "failed", nextAttemptAtMs: null, lastError: "endpoint disabled", updatedAtMs: clock.nowMs() }),
      )
      return
    }
    const attemptNumber = delivery.attemptCount + 1
    const attemptedAtMs = clock.nowMs()
    deps.metrics.webhookDeliveryLag.observe(Math.max(0, attemptedAtMs - (delivery.nextAttemptAtMs ?? attemptedAtMs)) / 1000)
    const outcome = await postAttempt(
      { url: endpoint.url, headers: headersFor(endpoint, event, attemptNumber, attemptedAtMs), body: event.body },
      { timeoutMs: config.timeoutMs, clock, fetch: deps.fetch, signal: shutdown.signal },
    )
    // Abandoned at shutdown: the row is untouched, so the next start attempts it again.
    if (shutdown.signal.aborted) return
    const firstAttemptAtMs = delivery.firstAttemptAtMs ?? attemptedAtMs
    const next = outcome.delivered || outcome.gone ? null : nextAttemptAtMs(firstAttemptAtMs, attemptNumber, config.retryOffsetsMs, clock.nowMs())
    const updated: DeliveryRow = {
      ...delivery,
      status: outcome.delivered ? "succeeded" : next === null ? "failed" : "pending",
      attemptCount: attemptNumber,
      firstAttemptAtMs,
      nextAttemptAtMs: next,
      lastStatusCode: outcome.statusCode,
      lastError: outcome.gone ? "HTTP 410 Gone: the receiver asked to stop; no more retries" : outcome.error,
      updatedAtMs: clock.nowMs(),
    }
    await writer.write((w, tx) => {
      insertAttempt(w, {
        deliveryId,
        attemptNumber,
        attemptedAtMs,
        statusCode: outcome.statusCode,
        error: outcome.error,
        latencyMs: outcome.latencyMs,
        responseBody: outcome.responseBody,
      })
      updateDelivery(w, updated)
      if (next !== null) tx.afterCommit(() => scheduler.schedule(SCHEDULER_KIND, deliveryId, next))
    })
    deps.metrics.webhookAttempts.inc({ result: outcome.delivered ? "succeeded" : next === null ? "exhausted" : "failed" })
    if (!outcome.delivered) {
      logger.info("webhook attempt failed", { deliveryId, endpointId: endpoint.id, attemptNumber, error: outcome.error, willRetry: next !== null })
    }
  }

  /** Signs afresh for every attempt; during a rotation the previous secret signs too (newest first). */
  function headersFor(endpoint: EndpointRow, event: EventRow, attemptNumber: number, nowMs: number): Record<string, string> {
    const secrets = [endpoint.secret]
    if (endpoint.previousSecret && (endpoint.previousSecretExpiresAtMs ?? 0) > nowMs) secrets.push(endpoint.previousSecret)
    return {
      "Content-Type": "application/json",
      "User-Agent": config.userAgent,
      "X-Service-Event": event.type,
      "X-Service-Event-Id": event.id,
      "X-Service-Delivery-Attempt": String(attemptNumber),
      "X-Service-Signature": signatureHeader(secrets, Math.floor(nowMs / 1000), event.body),
    }
  }

  function loadPending(): void {
    for (const { id, nextAttemptAtMs: dueMs } of listPendingDeliveries(db)) {
      if (!running.has(id) && !queued.has(id)) scheduler.schedule(SCHEDULER_KIND, id, dueMs)
    }
  }

  /** Another process (a CLI `resend`) committed: pick up whatever it made pending. */
  function pollExternalChanges(): void {
    pollTimer = null
    if (stopped) return
    const version = (db.query("PRAGMA data_version").get() as { data_version: number }).data_version
    if (version !== lastDataVersion) {
      lastDataVersion = version
      loadPending()
    }
    pollTimer = clock.setTimer(EXTERNAL_CHANGE_POLL_MS, pollExternalChanges)
  }

  return {
    start() {
      started = true
      lastDataVersion = (db.query("PRAGMA data_version").get() as { data_version: number }).data_version
      loadPending()
      pollTimer = clock.setTimer(EXTERNAL_CHANGE_POLL_MS, pollExternalChanges)
    },
    schedule(deliveryId, dueMs) {
      if (!started || stopped) return
      // Due already (a new event): start now rather than on the next tick of the wheel.
      if (dueMs <= clock.nowMs()) {
        enqueue(deliveryId)
        pump()
      } else {
        scheduler.schedule(SCHEDULER_KIND, deliveryId, dueMs)
      }
    },
    get inFlight() {
      return inFlight
    },
    async stop() {
      stopped = true
      pollTimer?.cancel()
      shutdown.abort()
      await Promise.allSettled([...attempts])
    },
  }
}
