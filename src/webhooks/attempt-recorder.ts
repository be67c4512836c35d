import type { AppMetrics } from "../lib/app-metrics"
import type { Clock, TimerHandle } from "../lib/clock"
import type { Logger } from "../lib/logger"
import { boundedOutsideTextOrNull } from "../lib/outside-text"
import type { Store, StoreQueries } from "../store/store"
import { type AttemptRow, type DeliveryProgress, type DeliveryRow } from "../store/webhooks"
import { nextAttemptAtMs } from "./retry-policy"
import type { AttemptOutcome } from "./sender"

/** What became of one delivery's turn: an attempt's outcome, or null when its endpoint was found disabled. */
export interface AttemptResult {
  /** The delivery as it was before this attempt. */
  delivery: DeliveryRow
  attemptedAtMs: number
  outcome: AttemptOutcome | null
}

/**
 * Writes attempts to the delivery log, many at a time, in one write transaction, as set-based
 * statements (multi-row INSERTs of attempts, UPDATEs of their deliveries): per attempt, two
 * statements, a savepoint and a commit of its own cost more than the HTTP request itself.
 * Results wait, at the end of the turn they arrived in, until RECORD_BATCH of them are waiting,
 * or an endpoint of theirs has no attempt still out (nothing more is coming soon), or
 * RECORD_WAIT_MS passed, and whatever waits when another write commits (a send, a sandbox
 * tick) goes into that commit: a commit's cost is mostly fixed (its pages and fsync), so it costs
 * about 12 µs of CPU a delivery in commits of 32 and 1 µs in commits of 400 (measured on this
 * project's 2-core VM). Nothing is scheduled or answered before the commit, so a crash before
 * it leaves the deliveries pending, to be attempted again (at least once).
 */
export interface AttemptRecorder {
  add(result: AttemptResult): void
  /** Writes what has arrived now instead of at the end of the turn (at shutdown). */
  flush(): Promise<void>
}

/** Results written together once this many wait. */
export const RECORD_BATCH = 256
/** The longest a result waits for others before it is written anyway. */
export const RECORD_WAIT_MS = 20

export const ENDPOINT_DISABLED_ERROR = "endpoint disabled"
export const GONE_ERROR = "HTTP 410 Gone: the receiver asked to stop; no more retries"

export function createAttemptRecorder(deps: {
  store: Store
  /** The node whose claims on the recorded deliveries are released in the write that records them. */
  nodeId: string
  clock: Clock
  logger: Logger
  metrics: AppMetrics
  retryOffsetsMs: readonly number[]
  /** A retry is due: called after the commit. */
  scheduleRetry: (deliveryId: string, dueMs: number) => void
  /** These results are committed (or their write failed and was logged). */
  onRecorded: (results: readonly AttemptResult[]) => void
  /** Attempts to an endpoint still waiting for their outcome. */
  inFlightTo: (endpointId: string) => number
  nextTurn?: (fn: () => void) => void
}): AttemptRecorder {
  const nextTurn = deps.nextTurn ?? setImmediate
  let waiting: AttemptResult[] = []
  let waitingEndpoints = new Set<string>()
  let checkQueued = false
  let backstop: TimerHandle | null = null

  /** At the end of a turn: write now if waiting longer would gain nothing. */
  function check(): void {
    checkQueued = false
    if (waiting.length === 0) return
    let idle = false
    for (const endpointId of waitingEndpoints.keys()) if (deps.inFlightTo(endpointId) === 0) idle = true
    if (idle || waiting.length >= RECORD_BATCH) void flush()
    else backstop ??= deps.clock.setTimer(RECORD_WAIT_MS, () => void flush())
  }

  /** Takes every waiting result, with the rows that record them. */
  function take(): { results: AttemptResult[]; progress: DeliveryProgress[]; attempts: AttemptRow[] } {
    backstop?.cancel()
    backstop = null
    const results = waiting
    waiting = []
    waitingEndpoints = new Set()
    const nowMs = deps.clock.nowMs()
    const progress = results.map((r) => progressOf(r, nowMs, deps.retryOffsetsMs))
    const attempts = results.flatMap((r, i) => (r.outcome ? [attemptRow(r, r.outcome, progress[i]!.attemptCount)] : []))
    return { results, progress, attempts }
  }

  // Whatever waits when another write commits goes into that commit: no commit of its own.
  deps.store.beforeCommit(async (q, tx) => {
    if (waiting.length === 0) return
    const { results, progress, attempts } = take()
    await record(q, results, attempts, progress)
    tx.afterCommit(() => {
      afterCommit(results, progress)
      deps.onRecorded(results)
    })
    return () => {
      deps.logger.error("recording webhook attempts failed; they stay pending", { count: results.length })
      deps.onRecorded(results)
    }
  })

  /**
   * The attempts and their deliveries' progress, and the release of this node's claims on them,
   * in one write: a retry is claimable by any node from the moment it is recorded, and a crash
   * before the commit leaves the claims to expire with the deliveries still pending. A delivery
   * that succeeded or failed for good is never claimed again (claims take pending rows only), so
   * only the retries are released: that spares a row write per delivered attempt.
   */
  async function record(q: StoreQueries, results: readonly AttemptResult[], attempts: readonly AttemptRow[], progress: readonly DeliveryProgress[]): Promise<void> {
    await q.recordAttempts(attempts, progress)
    await q.releaseClaims(deps.nodeId, results.flatMap((r, i) => (progress[i]!.status === "pending" ? [r.delivery.id] : [])))
  }

  function flush(): Promise<void> {
    if (waiting.length === 0) return Promise.resolve()
    const { results, progress, attempts } = take()
    const written = deps.store.write(async (q) => await record(q, results, attempts, progress))
      .then(
        () => afterCommit(results, progress),
        (err) => deps.logger.error("recording webhook attempts failed; they stay pending", { count: results.length, err }),
      )
      .finally(() => deps.onRecorded(results))
    // Committed at once: this runs at the end of a turn (or from a timer), and a batch left open
    // until the next turn's end would show the attempts to that turn's readers before they are
    // durable (a crash in between would lose what a reader was already told).
    void deps.store.flush()
    return written
  }

  function afterCommit(results: readonly AttemptResult[], progress: readonly DeliveryProgress[]): void {
    results.forEach((result, i) => {
      const { id, nextAttemptAtMs: next, attemptCount } = progress[i]!
      if (next !== null) deps.scheduleRetry(id, next)
      const outcome = result.outcome
      if (!outcome) return
      deps.metrics.webhookAttempts.inc({ result: outcome.delivered ? "succeeded" : next === null ? "exhausted" : "failed" })
      if (!outcome.delivered) {
        const { endpointId } = result.delivery
        deps.logger.info("webhook attempt failed", { deliveryId: id, endpointId, attemptNumber: attemptCount, error: outcome.error, willRetry: next !== null })
      }
    })
  }

  return {
    add(result) {
      // Whoever made the outcome, what reaches the delivery log and the logs is bounded and escaped.
      waiting.push(result.outcome ? { ...result, outcome: boundedOutcome(result.outcome) } : result)
      waitingEndpoints.add(result.delivery.endpointId)
      if (!checkQueued) {
        checkQueued = true
        nextTurn(check)
      }
    },
    flush,
  }
}

/** The outcome with its receiver-controlled text bounded and escaped (the same object when it already is). */
function boundedOutcome(outcome: AttemptOutcome): AttemptOutcome {
  const error = boundedOutsideTextOrNull(outcome.error)
  const responseBody = boundedOutsideTextOrNull(outcome.responseBody)
  return error === outcome.error && responseBody === outcome.responseBody ? outcome : { ...outcome, error, responseBody }
}

/** The delivery after this attempt: succeeded, failed for good (410, no retry left, disabled), or pending until its next retry. */
function progressOf({ delivery, attemptedAtMs, outcome }: AttemptResult, nowMs: number, retryOffsetsMs: readonly number[]): DeliveryProgress {
  if (!outcome) {
    return { ...delivery, status: "failed", nextAttemptAtMs: null, lastError: ENDPOINT_DISABLED_ERROR, updatedAtMs: nowMs }
  }
  const attemptNumber = delivery.attemptCount + 1
  const firstAttemptAtMs = delivery.firstAttemptAtMs ?? attemptedAtMs
  const next = outcome.delivered || outcome.gone ? null : nextAttemptAtMs(firstAttemptAtMs, attemptNumber, retryOffsetsMs, nowMs)
  return {
    id: delivery.id,
    status: outcome.delivered ? "succeeded" : next === null ? "failed" : "pending",
    attemptCount: attemptNumber,
    firstAttemptAtMs,
    nextAttemptAtMs: next,
    lastStatusCode: outcome.statusCode,
    lastError: outcome.gone ? GONE_ERROR : outcome.error,
    updatedAtMs: nowMs,
  }
}

function attemptRow({ delivery, attemptedAtMs }: AttemptResult, outcome: AttemptOutcome, attemptNumber: number): AttemptRow {
  return {
    deliveryId: delivery.id,
    attemptNumber,
    attemptedAtMs,
    statusCode: outcome.statusCode,
    error: outcome.error,
    latencyMs: outcome.latencyMs,
    responseBody: outcome.responseBody,
  }
}
