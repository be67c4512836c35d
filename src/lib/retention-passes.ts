import type { Clock } from "./clock"
import type { Logger } from "./logger"
import type { Scheduler } from "./scheduler"

/**
 * The loop every retention shares (webhook events in src/webhooks/retention.ts, the messages kept
 * for retry receipts and the message secrets in src/domain/wa-resend-retention.ts): a pass on the
 * shared scheduler `firstDelayMs` after start, then one `intervalMs` after each pass ends, so a
 * slow pass never overlaps the next and a failed one is tried again. A pass deletes in batches,
 * each its own write, so that no write holds the others (or the event loop) for long.
 */
export interface RetentionPasses {
  /** Schedules the first pass. */
  start(): void
  /**
   * Runs `deleteBatch` (which deletes at most `batch` rows) until a batch comes back short or the
   * passes are stopped; returns how many rows it deleted.
   */
  inBatches(batch: number, deleteBatch: () => Promise<number>): Promise<number>
  /** Schedules no further pass, ends the batches of the one under way and waits for it. */
  stop(): Promise<void>
}

export function createRetentionPasses(deps: {
  clock: Clock
  logger: Logger
  scheduler: Scheduler
  /** The scheduler's job kind, one per retention. */
  kind: string
  firstDelayMs: number
  intervalMs: number
  /** One pass (it logs what it deleted). */
  pass: () => Promise<void>
  /** The error line a failed pass is logged with. */
  failure: string
}): RetentionPasses {
  const { clock, logger, scheduler, kind } = deps
  let stopped = false
  let running: Promise<void> | null = null

  function runPass(): void {
    running = deps
      .pass()
      .catch((err) => logger.error(deps.failure, { err }))
      .finally(() => {
        running = null
        if (!stopped) scheduler.schedule(kind, "pass", clock.nowMs() + deps.intervalMs)
      })
  }

  scheduler.on(kind, () => runPass())

  return {
    start() {
      scheduler.schedule(kind, "pass", clock.nowMs() + deps.firstDelayMs)
    },
    async inBatches(batch, deleteBatch) {
      let total = 0
      for (;;) {
        if (stopped) return total
        const deleted = await deleteBatch()
        total += deleted
        if (deleted < batch) return total
      }
    },
    async stop() {
      stopped = true
      await running
    },
  }
}
