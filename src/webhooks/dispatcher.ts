import type { AppMetrics } from "../lib/app-metrics"
import type { Clock, TimerHandle } from "../lib/clock"
import type { Logger } from "../lib/logger"
import type { Scheduler } from "../lib/scheduler"
import type { Store } from "../store/store"
import { type DeliveryRow, type EndpointRow, type PendingDelivery } from "../store/webhooks"
import { createAttemptRecorder, type AttemptResult } from "./attempt-recorder"
import { createDeliveryQueue, type QueuedDelivery } from "./delivery-queue"
import { createEndpointCache } from "./endpoint-cache"
import { postAttempt, type FetchLike } from "./sender"
import { createSigner, type Signer } from "./signer"

export const SCHEDULER_KIND = "webhook"
/** How often the dispatcher looks for deliveries another process (the CLI) wrote. */
export const EXTERNAL_CHANGE_POLL_MS = 1_000
/**
 * New deliveries whose event the dispatcher keeps in memory until their first attempt, so that
 * attempt reads nothing; past this many (a receiver far behind) the rest are read back per wave.
 */
export const MAX_HELD_DELIVERIES = 10_000
/**
 * When a wave needs rows from the database (retries, a backlog after a restart), the rows of
 * up to this many deliveries queued behind it are read in the same statement and held, so a
 * draining backlog costs one read per this many deliveries rather than one per wave.
 */
export const READ_AHEAD = 512
/** When reading a wave's rows fails (the database away), its deliveries are tried again this much later. */
export const READ_RETRY_MS = 1_000

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
  start(): Promise<void>
  /**
   * Schedules a committed delivery (with its event's type and body when the caller has them,
   * which spares its first attempt a read). Ignored until `start()`: a process that never
   * starts the dispatcher (a short CLI command) leaves its deliveries pending in the database for
   * the running server, which would otherwise attempt them a second time.
   */
  schedule(delivery: DeliveryRow, event?: { type: string; body: string }): void
  /** Attempts in flight now. */
  readonly inFlight: number
  /** Stops: nothing new starts, in-flight attempts are abandoned unrecorded and stay pending for the next start. */
  stop(): Promise<void>
}

/**
 * The dispatcher wires three parts: the queue (due deliveries, per-endpoint caps, waves), the
 * sender (one signed POST) and the recorder (outcomes to the delivery log, set-based). Due
 * deliveries come from the outbox (new ones, due now) and from the scheduler (retries, and
 * everything pending at start).
 */
export function createDispatcher(deps: {
  store: Store
  clock: Clock
  logger: Logger
  scheduler: Scheduler
  metrics: AppMetrics
  config: DispatcherConfig
  fetch?: FetchLike
}): Dispatcher {
  const { store, clock, scheduler, config } = deps
  const queue = createDeliveryQueue(config)
  const endpoints = createEndpointCache(store, () => store.changeVersion())
  const signer = createSigner()
  const held = new Map<string, PendingDelivery>()
  const attempts = new Set<Promise<void>>()
  const shutdown = new AbortController()
  const recorder = createAttemptRecorder({
    store,
    clock,
    logger: deps.logger,
    metrics: deps.metrics,
    retryOffsetsMs: config.retryOffsetsMs,
    scheduleRetry: (id, dueMs) => scheduler.schedule(SCHEDULER_KIND, id, dueMs),
    inFlightTo: (endpointId) => queue.inFlightTo(endpointId),
    onRecorded: (results) => {
      for (const { delivery } of results) recording.delete(delivery.id)
    },
  })
  /**
   * Deliveries whose attempt is over but not yet committed. Their slot is free already (the
   * receiver is done with them), but they must not be queued again meanwhile: the database
   * still shows them pending, as before the attempt.
   */
  const recording = new Set<string>()
  let pumpQueued = false
  let started = false
  let stopped = false
  let externalChanges: { stop(): void } | null = null

  /** Queues deliveries that are due: one statement finds which are still pending, and where to. */
  async function enqueueDue(ids: readonly string[]): Promise<void> {
    if (stopped) return
    const due = ids.filter((id) => !queue.has(id) && !recording.has(id))
    if (due.length === 0) return
    for (const { id, endpointId } of await store.findPendingDeliveryEndpoints(due)) queue.add(id, endpointId)
    pump()
  }

  /** A read of due deliveries failed: they are still pending in the database, and looked at again shortly. */
  function retryLater(ids: readonly string[], err: unknown): void {
    deps.logger.error("reading due webhook deliveries failed; they stay pending", { count: ids.length, err })
    for (const id of ids) scheduler.schedule(SCHEDULER_KIND, id, clock.nowMs() + READ_RETRY_MS)
  }

  // A backlog falls due in one tick: one statement for all of it.
  scheduler.on(SCHEDULER_KIND, (ids) => {
    enqueueDue(ids).catch((err) => retryLater(ids, err))
  })

  /**
   * Starts a wave: as many queued deliveries as there are free slots, their rows read in one
   * statement. The wave's slots are taken before the read, so a second pump meanwhile starts
   * other deliveries, never these.
   */
  function pump(): void {
    if (stopped) return
    const wave = queue.takeWave()
    if (wave.length === 0) return
    const toRead = wave.filter(({ deliveryId }) => !held.has(deliveryId)).map(({ deliveryId }) => deliveryId)
    if (toRead.length === 0) return startWave(wave)
    const ahead = held.size < MAX_HELD_DELIVERIES ? queue.upcoming(READ_AHEAD).filter((id) => !held.has(id)) : []
    store.findPendingDeliveries([...toRead, ...ahead]).then(
      (rows) => {
        for (const pending of rows) held.set(pending.delivery.id, pending)
        startWave(wave)
      },
      (err) => {
        for (const queued of wave) queue.release(queued)
        retryLater(wave.map((queued) => queued.deliveryId), err)
      },
    )
  }

  function startWave(wave: readonly QueuedDelivery[]): void {
    for (const queued of wave) {
      const pending = held.get(queued.deliveryId)
      held.delete(queued.deliveryId)
      start(queued, pending ?? null)
    }
  }

  function start(queued: QueuedDelivery, pending: PendingDelivery | null): void {
    const attempt = startAttempt(queued, pending).catch((err) => {
      deps.logger.error("webhook attempt failed unexpectedly", { deliveryId: queued.deliveryId, err })
      queue.release(queued)
    })
    attempts.add(attempt)
    void attempt.finally(() => attempts.delete(attempt))
  }

  async function startAttempt(queued: QueuedDelivery, pending: PendingDelivery | null): Promise<void> {
    // Not pending any more, or gone with its endpoint: nothing to attempt.
    const endpoint = pending ? await endpoints.get(pending.delivery.endpointId) : null
    if (!pending || !endpoint) {
      queue.release(queued)
      return
    }
    if (!endpoint.enabled) {
      finish(queued, { delivery: pending.delivery, attemptedAtMs: clock.nowMs(), outcome: null })
      return
    }
    await attemptDelivery(pending, endpoint)
  }

  async function attemptDelivery({ delivery, eventType, body }: PendingDelivery, endpoint: EndpointRow): Promise<void> {
    const attemptedAtMs = clock.nowMs()
    deps.metrics.webhookDeliveryLag.observe(Math.max(0, attemptedAtMs - (delivery.nextAttemptAtMs ?? attemptedAtMs)) / 1000)
    const headers = attemptHeaders({ signer, userAgent: config.userAgent, endpoint, delivery, eventType, body, nowMs: attemptedAtMs })
    const outcome = await postAttempt({ url: endpoint.url, headers, body }, { timeoutMs: config.timeoutMs, clock, fetch: deps.fetch, signal: shutdown.signal })
    // Abandoned at shutdown: the row is untouched, so the next start attempts it again.
    if (shutdown.signal.aborted) return
    finish({ deliveryId: delivery.id, endpointId: delivery.endpointId }, { delivery, attemptedAtMs, outcome })
  }

  /** The attempt is over: its slot is free for the next wave (started at the end of this turn) while its result is recorded. */
  function finish(queued: QueuedDelivery, result: AttemptResult): void {
    recording.add(queued.deliveryId)
    queue.release(queued)
    recorder.add(result)
    if (!pumpQueued) {
      pumpQueued = true
      setImmediate(() => {
        pumpQueued = false
        pump()
      })
    }
  }

  /** Every pending delivery: those due now are queued at once, the others scheduled. */
  async function loadPending(): Promise<void> {
    const nowMs = clock.nowMs()
    const dueNow: string[] = []
    for (const { id, nextAttemptAtMs: dueMs } of await store.listPendingDeliveries()) {
      if (queue.has(id) || recording.has(id)) continue
      if (dueMs <= nowMs) dueNow.push(id)
      else scheduler.schedule(SCHEDULER_KIND, id, dueMs)
    }
    await enqueueDue(dueNow)
  }

  return {
    async start() {
      started = true
      await loadPending()
      externalChanges = watchExternalCommits(() => store.changeVersion(), clock, () => {
        loadPending().catch((err) => deps.logger.error("reloading pending webhook deliveries failed", { err }))
      })
    },
    schedule(delivery, event) {
      if (!started || stopped) return
      const dueMs = delivery.nextAttemptAtMs ?? clock.nowMs()
      if (dueMs > clock.nowMs()) {
        scheduler.schedule(SCHEDULER_KIND, delivery.id, dueMs)
        return
      }
      // Due already (a new event): start now rather than on the next tick of the wheel.
      if (!queue.add(delivery.id, delivery.endpointId)) return
      if (event && held.size < MAX_HELD_DELIVERIES) held.set(delivery.id, { delivery, eventType: event.type, body: event.body })
      pump()
    },
    get inFlight() {
      return queue.inFlight
    },
    async stop() {
      stopped = true
      externalChanges?.stop()
      shutdown.abort()
      await Promise.allSettled([...attempts])
      // Outcomes that arrived before the shutdown are written (the writer's last batch commits at stop).
      await recorder.flush()
    },
  }
}

/** The headers of one attempt, signed afresh; during a rotation the previous secret signs too (newest first). */
function attemptHeaders(a: {
  signer: Signer
  userAgent: string
  endpoint: EndpointRow
  delivery: DeliveryRow
  eventType: string
  body: string
  nowMs: number
}): Record<string, string> {
  const secrets = [a.endpoint.secret]
  if (a.endpoint.previousSecret && (a.endpoint.previousSecretExpiresAtMs ?? 0) > a.nowMs) secrets.push(a.endpoint.previousSecret)
  return {
    "Content-Type": "application/json",
    "User-Agent": a.userAgent,
    "Accept-Encoding": "identity",
    "X-Service-Event": a.eventType,
    "X-Service-Event-Id": a.delivery.eventId,
    "X-Service-Delivery-Attempt": String(a.delivery.attemptCount + 1),
    "X-Service-Signature": a.signer.header(secrets, Math.floor(a.nowMs / 1000), a.body),
  }
}

/**
 * Calls `onCommit` whenever the store's change version moves, checked every
 * EXTERNAL_CHANGE_POLL_MS: it moves when another process (a CLI `resend`) or another node
 * commits, and for this process's own changes to cached tables, which cost one harmless reload.
 */
function watchExternalCommits(version: () => string, clock: Clock, onCommit: () => void): { stop(): void } {
  let last = version()
  let timer: TimerHandle | null = null
  let stopped = false
  const poll = () => {
    if (stopped) return
    const current = version()
    if (current !== last) {
      last = current
      onCommit()
    }
    timer = clock.setTimer(EXTERNAL_CHANGE_POLL_MS, poll)
  }
  timer = clock.setTimer(EXTERNAL_CHANGE_POLL_MS, poll)
  return {
    stop() {
      stopped = true
      timer?.cancel()
    },
  }
}
