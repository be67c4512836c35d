import type { Clock } from "../lib/clock"
import type { Logger } from "../lib/logger"
import type { Scheduler } from "../lib/scheduler"
import { DAY_MS } from "../lib/time"
import type { Store } from "../store/store"

export const WA_RESEND_RETENTION_KIND = "wa-resend-retention"
/** The first pass runs a minute after start, out of the way of a restart's reconnects. */
export const WA_RESEND_FIRST_DELAY_MS = 60_000
/** Then once an hour: a message is kept at most an hour longer than the retention. */
export const WA_RESEND_INTERVAL_MS = 3_600_000
/** Rows deleted per write: one small blob each, so a batch never holds the writer for long. */
export const WA_RESEND_BATCH = 500

/** Forgets the WhatsApp messages kept for retry receipts once they are older than the retention. */
export interface WaResendRetention {
  start(): void
  /** One pass: deletes every stored message sent before now minus the retention; returns how many. */
  prune(): Promise<number>
  stop(): Promise<void>
}

/**
 * A recipient device asks for a message again within seconds in practice, but a phone that was
 * off for days asks when it comes back; WhatsApp's own offline queue keeps messages for about
 * 30 days, the retention (7 days by default) trades that against storing message content.
 * Passes run on the shared scheduler and delete in batches, each in its own write.
 */
export function createWaResendRetention(deps: {
  store: Store
  clock: Clock
  logger: Logger
  scheduler: Scheduler
  retentionDays: number
}): WaResendRetention {
  const { store, clock, logger, scheduler, retentionDays } = deps
  let stopped = false
  let running: Promise<number> | null = null

  async function prune(): Promise<number> {
    const cutoffMs = clock.nowMs() - retentionDays * DAY_MS
    let total = 0
    for (;;) {
      if (stopped) return total
      const deleted = await store.write(async (q) => q.pruneSentWaMessages(cutoffMs, WA_RESEND_BATCH))
      total += deleted
      if (deleted < WA_RESEND_BATCH) return total
    }
  }

  function runPass(): void {
    running = prune()
    running
      .then((n) => {
        if (n > 0) logger.info("WhatsApp messages kept for retry receipts deleted", { messages: n, retentionDays })
      })
      .catch((err) => logger.error("deleting WhatsApp messages kept for retry receipts failed", { err }))
      .finally(() => {
        running = null
        if (!stopped) scheduler.schedule(WA_RESEND_RETENTION_KIND, "pass", clock.nowMs() + WA_RESEND_INTERVAL_MS)
      })
  }

  scheduler.on(WA_RESEND_RETENTION_KIND, () => runPass())

  return {
    start() {
      scheduler.schedule(WA_RESEND_RETENTION_KIND, "pass", clock.nowMs() + WA_RESEND_FIRST_DELAY_MS)
    },
    prune,
    async stop() {
      stopped = true
      await running?.catch(() => 0)
    },
  }
}
