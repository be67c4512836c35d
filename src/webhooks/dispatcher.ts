import type { AppMetrics } from "../lib/app-metrics"
import type { Clock, TimerHandle } from "../lib/clock"
import type { Logger } from "../lib/logger"
import type { Scheduler } from "../lib/scheduler"
import type { Store } from "../store/store"
import type { ClaimedDelivery } from "../store/delivery-claims"
import { type DeliveryRow, type EndpointRow, type PendingDelivery } from "../store/webhooks"
import { createAttemptRecorder, type AttemptResult } from "./attempt-recorder"
import { createDeliveryQueue, type QueuedDelivery } from "./delivery-queue"
import { createEndpointCache } from "./endpoint-cache"
import { postAttempt, type FetchLike } from "./sender"
import { createSigner, type Signer } from "./signer"

export const SCHEDULER_KIND = "webhook"
/**
 * How often the dispatcher claims even when nothing woke it: deliveries another node or
 * process (the CLI) committed, retries other nodes recorded, and claims of a dead node that
 * expired are found this way.
 */
export const CLAIM_POLL_MS = 1_000
/**
 * An attempt starts only while its claim still holds for its timeout plus this much (the
 * recording wait and a commit), so that no other node can claim the delivery while it is in flight.
 */
export const CLAIM_MARGIN_MS = 5_000
/** The shortest claim, so that a dead node's deliveries wait about a minute before another node attempts them. */
export const MIN_CLAIM_LEASE_MS = 60_000

/**
 * How long a claim holds (docs/webhooks.md § "Several nodes"): long enough for three attempts
 * to an endpoint one after the other plus the margin, since a claimed delivery may wait behind
 * up to two rounds of the endpoint's attempts (a claim takes up to two shares) before its own.
 */
export function claimLeaseFor(timeoutMs: number): number {
  return Math.max(MIN_CLAIM_LEASE_MS, 3 * timeoutMs + CLAIM_MARGIN_MS)
}

/**
 * How long after a node's last heartbeat the other nodes take its claims, however long those
 * still run (docs/webhooks.md § "Several nodes"): a node dead or cut off from the database stops
 * renewing, and its claimed deliveries, queued or in flight, move within this instead of
 * waiting out claims of a minute or more. A node starts an attempt only while its own heartbeat
 * is younger than a phone lease (`nodeLeaseMs`), and an attempt ends within its timeout: so
 * every attempt it started has ended, with the margin, before another node may take its claim.
 */
export function silentNodeAfterMs(nodeLeaseMs: number, timeoutMs: number): number {
  return nodeLeaseMs + timeoutMs + CLAIM_MARGIN_MS
}

export interface DispatcherConfig {
  /** This node's name: its claims carry it (WAGATE_NODE_ID). */
  nodeId: string
  retryOffsetsMs: readonly number[]
  timeoutMs: number
  /** Attempts in flight at once, all endpoints together. */
  maxInFlight: number
  /** Attempts in flight at once to one endpoint, so one slow receiver cannot take every slot. */
  maxInFlightPerEndpoint: number
  userAgent: string
  /**
   * How long a phone lease runs (LEASE_DEFAULTS.leaseMs): a node whose heartbeat is older holds
   * nothing, and attempts nothing (silentNodeAfterMs).
   */
  nodeLeaseMs: number
}

/** This node's heartbeat as the other nodes read it in the database. */
export interface NodeLiveness {
  /** The last heartbeat this node wrote (committed); null where no node row is kept (one process). */
  heartbeatAtMs(): number | null
}

/** Delivers the outbox's deliveries: on time, concurrently, and durably recorded. */
export interface Dispatcher {
  /** Releases the claims a previous process of this node left, and starts claiming due deliveries. */
  start(): Promise<void>
  /**
   * A delivery was committed: one due now wakes the dispatcher to claim it, a later one wakes it
   * when it falls due. Ignored until `start()`: a process that never starts the dispatcher (a
   * short CLI command) leaves its deliveries to the running server.
   */
  schedule(delivery: DeliveryRow): void
  /** Attempts in flight now. */
  readonly inFlight: number
  /** Stops: nothing new starts, in-flight attempts are abandoned unrecorded, and their claims (and those of queued deliveries) released. */
  stop(): Promise<void>
}

/**
 * The dispatcher wires four parts: claims (the deliveries this node attempts, taken from the
 * database up to its free attempt slots), the queue (per-endpoint caps, waves), the sender (one
 * signed POST) and the recorder (outcomes to the delivery log, set-based, releasing the claims
 * in the same write). It claims when woken (a delivery committed here, a retry falling due, a
 * slot freed while more is due) and every CLAIM_POLL_MS, so every node on a database shares
 * the one outbox and no two attempt a delivery at once (docs/webhooks.md § "Several nodes").
 */
export function createDispatcher(deps: {
  store: Store
  clock: Clock
  logger: Logger
  scheduler: Scheduler
  metrics: AppMetrics
  config: DispatcherConfig
  /** Absent: no heartbeat (one process), so nothing is ever taken from this node. */
  liveness?: NodeLiveness
  fetch?: FetchLike
}): Dispatcher {
  const { store, clock, scheduler, config } = deps
  const { nodeId } = config
  const claimLeaseMs = claimLeaseFor(config.timeoutMs)
  const silentAfterMs = silentNodeAfterMs(config.nodeLeaseMs, config.timeoutMs)
  const queue = createDeliveryQueue(config)
  const endpoints = createEndpointCache(store, () => store.changeVersion())
  const signer = createSigner()
  /** Claimed deliveries waiting in the queue for a slot, with what their attempt posts. */
  const held = new Map<string, ClaimedDelivery>()
  /** Every delivery this node claimed and has not recorded yet: released at stop. */
  const mine = new Set<string>()
  const attempts = new Set<Promise<void>>()
  const shutdown = new AbortController()
  const recorder = createAttemptRecorder({
    store,
    nodeId,
    clock,
    logger: deps.logger,
    metrics: deps.metrics,
    retryOffsetsMs: config.retryOffsetsMs,
    scheduleRetry: (id, dueMs) => scheduler.schedule(SCHEDULER_KIND, id, dueMs),
    inFlightTo: (endpointId) => queue.inFlightTo(endpointId),
    onRecorded: (results) => {
      for (const { delivery } of results) {
        recording.delete(delivery.id)
        mine.delete(delivery.id)
      }
    },
  })
  /**
   * Deliveries whose attempt is over but not yet committed. Their slot is free already (the
   * receiver is done with them), but a claim returning them meanwhile (their claim expired) must
   * not queue them again: the database still shows them pending, as before the attempt.
   */
  const recording = new Set<string>()
  const claims = claimLoop(() => claimDue())
  /** Endpoints whose attempts ended this turn. */
  const freed = new Set<string>()
  let pumpQueued = false
  let started = false
  let stopped = false
  let poll: TimerHandle | null = null
  let claimFailing = false
  /** Something woke the dispatcher since its last claim other than the poll: it claims without reading first. */
  let wokenByWork = false
  const wake = () => {
    wokenByWork = true
    claims.wake()
  }

  // Retries falling due (one tick's worth at once) wake the dispatcher: one claim for all of them.
  scheduler.on(SCHEDULER_KIND, wake)

  /** Whether this node's claims are safe from the other nodes until `untilMs` (its heartbeat is recent enough). */
  function heldUntil(untilMs: number): boolean {
    const heartbeatAtMs = deps.liveness?.heartbeatAtMs() ?? null
    return heartbeatAtMs === null || heartbeatAtMs + silentAfterMs >= untilMs
  }

  /**
   * One claim, in a write (on SQLite it joins the turn's group commit): up to the free slots,
   * at most two endpoint shares at a time (fewer, larger claims while one endpoint drains a
   * backlog), passing over endpoints that hold their share already, so that one receiver's
   * backlog never takes the slots of the others. Woken by the poll alone, it reads first and
   * writes only when there is something to claim: an idle node opens no write transaction.
   * A node too long without a heartbeat claims nothing (it could attempt nothing). Returns
   * whether more may be due.
   */
  async function claimDue(): Promise<boolean> {
    const readFirst = !wokenByWork
    wokenByWork = false
    if (stopped) return false
    const free = config.maxInFlight - queue.size
    if (free <= 0) return true
    const limit = Math.min(free, 2 * config.maxInFlightPerEndpoint)
    const skipped = queue.endpointsHolding(config.maxInFlightPerEndpoint)
    const nowMs = clock.nowMs()
    if (!heldUntil(nowMs + config.timeoutMs + CLAIM_MARGIN_MS)) return false
    const silentBeforeMs = nowMs - silentAfterMs
    let claimed: ClaimedDelivery[]
    try {
      if (readFirst && !(await store.hasClaimableDeliveries(nowMs, skipped, silentBeforeMs))) {
        claimFailing = false
        return skipped.length > 0
      }
      claimed = await store.write((q) => q.claimDueDeliveries(nodeId, nowMs, limit, claimLeaseMs, skipped, silentBeforeMs))
    } catch (err) {
      // Once per outage: the poll claims again every second, and would otherwise log every second.
      if (!claimFailing) deps.logger.warn("claiming due webhook deliveries failed; claiming again every second until the database answers", { err })
      claimFailing = true
      return false
    }
    claimFailing = false
    for (const claim of claimed) {
      const { id, endpointId } = claim.delivery
      mine.add(id)
      if (stopped || recording.has(id) || !queue.add(id, endpointId)) continue
      held.set(id, claim)
    }
    pump()
    return claimed.length === limit || skipped.length > 0
  }

  /** Starts a wave: as many queued deliveries as there are free slots, each with its claimed row. */
  function pump(): void {
    if (stopped) return
    for (const queued of queue.takeWave()) {
      const claim = held.get(queued.deliveryId)
      held.delete(queued.deliveryId)
      start(queued, claim ?? null)
    }
  }

  function start(queued: QueuedDelivery, claim: ClaimedDelivery | null): void {
    const attempt = startAttempt(queued, claim).catch((err) => {
      deps.logger.error("webhook attempt failed unexpectedly", { deliveryId: queued.deliveryId, err })
      queue.release(queued)
    })
    attempts.add(attempt)
    void attempt.finally(() => attempts.delete(attempt))
  }

  async function startAttempt(queued: QueuedDelivery, claim: ClaimedDelivery | null): Promise<void> {
    // Gone with its endpoint: nothing to attempt.
    const endpoint = claim ? await endpoints.get(claim.delivery.endpointId) : null
    if (!claim || !endpoint) return drop(queued)
    // Queued so long behind its endpoint's cap that the claim would run out during the attempt,
    // or this node's heartbeat is so old that the others may soon take its claims: given back,
    // to be claimed afresh, rather than risk another node attempting it at the same time.
    const mustEndByMs = clock.nowMs() + config.timeoutMs + CLAIM_MARGIN_MS
    if (claim.claimExpiresAtMs < mustEndByMs || !heldUntil(mustEndByMs)) {
      drop(queued)
      void store.write((q) => q.releaseClaims(nodeId, [queued.deliveryId])).catch((err) => deps.logger.error("releasing a webhook claim failed; it expires", { err }))
      return
    }
    if (!endpoint.enabled) {
      finish(queued, { delivery: claim.delivery, attemptedAtMs: clock.nowMs(), outcome: null })
      return
    }
    await attemptDelivery(claim, endpoint)
  }

  function drop(queued: QueuedDelivery): void {
    queue.release(queued)
    mine.delete(queued.deliveryId)
    wake()
  }

  async function attemptDelivery({ delivery, eventType, body }: PendingDelivery, endpoint: EndpointRow): Promise<void> {
    const attemptedAtMs = clock.nowMs()
    deps.metrics.webhookDeliveryLag.observe(Math.max(0, attemptedAtMs - (delivery.nextAttemptAtMs ?? attemptedAtMs)) / 1000)
    const headers = attemptHeaders({ signer, userAgent: config.userAgent, endpoint, delivery, eventType, body, nowMs: attemptedAtMs })
    const outcome = await postAttempt({ url: endpoint.url, headers, body }, { timeoutMs: config.timeoutMs, clock, fetch: deps.fetch, signal: shutdown.signal })
    // Abandoned at shutdown: the row is untouched and its claim released, so any node attempts it again.
    if (shutdown.signal.aborted) return
    finish({ deliveryId: delivery.id, endpointId: delivery.endpointId }, { delivery, attemptedAtMs, outcome })
  }

  /**
   * The attempt is over: its slot is free for the next wave (started at the end of this turn)
   * while its result is recorded. An endpoint left with less than its share held claims more
   * (when more may be due); one that still holds its share goes on from what it holds, which
   * spares the claims that pass over it (over its whole backlog) while it drains.
   */
  function finish(queued: QueuedDelivery, result: AttemptResult): void {
    recording.add(queued.deliveryId)
    queue.release(queued)
    recorder.add(result)
    freed.add(queued.endpointId)
    if (!pumpQueued) {
      pumpQueued = true
      setImmediate(() => {
        pumpQueued = false
        pump()
        const full = new Set(queue.endpointsHolding(config.maxInFlightPerEndpoint))
        const belowShare = [...freed].some((endpointId) => !full.has(endpointId))
        freed.clear()
        if (belowShare && claims.slotFreed()) wokenByWork = true
      })
    }
  }

  /** Wakes for every pending delivery due later (this node's retries after a restart); those due now are claimed at once. */
  async function loadPending(): Promise<void> {
    const nowMs = clock.nowMs()
    const pending = await store.listPendingDeliveries()
    // A node id is held by one live process (a second one is refused at start): claims under it
    // are a previous process's, killed before it could release them, and are free at once.
    await store.write((q) => q.releaseClaims(nodeId, pending.map((p) => p.id)))
    for (const { id, nextAttemptAtMs: dueMs } of pending) if (dueMs > nowMs) scheduler.schedule(SCHEDULER_KIND, id, dueMs)
  }

  function schedulePoll(): void {
    poll = clock.setTimer(CLAIM_POLL_MS, () => {
      claims.wake()
      schedulePoll()
    })
  }

  return {
    async start() {
      started = true
      await loadPending()
      await claims.wakeNow()
      if (!stopped) schedulePoll()
    },
    schedule(delivery) {
      if (!started || stopped) return
      const dueMs = delivery.nextAttemptAtMs ?? clock.nowMs()
      if (dueMs > clock.nowMs()) scheduler.schedule(SCHEDULER_KIND, delivery.id, dueMs)
      else wake()
    },
    get inFlight() {
      return queue.inFlight
    },
    async stop() {
      stopped = true
      poll?.cancel()
      shutdown.abort()
      await claims.idle()
      await Promise.allSettled([...attempts])
      // Outcomes that arrived before the shutdown are written with their releases (the writer's last batch commits at stop).
      await recorder.flush()
      // The rest were queued or abandoned in flight: released, so another node attempts them at once.
      const abandoned = [...mine].filter((id) => !recording.has(id))
      mine.clear()
      held.clear()
      if (abandoned.length > 0) {
        await store
          .write((q) => q.releaseClaims(nodeId, abandoned))
          .catch((err) => deps.logger.warn("releasing the claims of abandoned webhook attempts failed; other nodes attempt them once the claims expire", { count: abandoned.length, err }))
      }
    },
  }
}

/**
 * Runs `claim` one at a time: a wake while a claim runs asks for one more after it, and wakes in
 * one turn share one claim. `claim` says whether more may be due; then a freed slot wakes it too.
 */
function claimLoop(claim: () => Promise<boolean>) {
  let running: Promise<void> | null = null
  let again = false
  let queued = false
  let moreDue = false
  const run = (): Promise<void> => {
    if (running) {
      again = true
      return running
    }
    running = claim().then((more) => {
      moreDue = more
      running = null
      if (again) {
        again = false
        return run()
      }
    })
    return running
  }
  const wake = () => {
    if (queued) return
    queued = true
    setImmediate(() => {
      queued = false
      void run()
    })
  }
  return {
    wake,
    wakeNow: run,
    /** A slot was freed: claims again when more may be due; says whether it did. */
    slotFreed: (): boolean => {
      if (moreDue) wake()
      return moreDue
    },
    idle: async () => {
      while (running) await running
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
