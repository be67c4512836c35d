import type { Clock } from "../lib/clock"
import type { Logger } from "../lib/logger"
import { createRetentionPasses } from "../lib/retention-passes"
import type { Scheduler } from "../lib/scheduler"
import { DAY_MS } from "../lib/time"
import type { Store } from "../store/store"

export const HISTORY_RETENTION_KIND = "history-retention"
/** The first pass runs a minute after start, out of the way of a restart's reconnects and history syncs. */
export const HISTORY_RETENTION_FIRST_DELAY_MS = 60_000
/** Then once an hour: a timeline row is kept at most an hour longer than the retention. */
export const HISTORY_RETENTION_INTERVAL_MS = 3_600_000
/** Rows deleted per write: a few hundred small rows, so a batch never holds the writer for long. */
export const HISTORY_RETENTION_BATCH = 500

/**
 * Forgets the timeline rows wagate keeps beyond the seed's lists (WAGATE_HISTORY_RETENTION_DAYS,
 * docs/operations.md § "Retention"): what the phone sent itself and what history sync brought
 * (`chat_messages`), once WhatsApp's timestamp of the message is older than the retention. API
 * sends and inbound messages are the seed's `GET /v1/messages` and inbound list, whose rows are
 * kept (their status and ids are what callers look up), so they are not pruned here. A chat whose
 * messages all went keeps its row, its activity and its last message preview.
 */
export interface HistoryRetention {
  start(): void
  /** One pass: deletes every echo/history message older than now minus the retention; returns how many (0 when kept for ever). */
  prune(): Promise<number>
  stop(): Promise<void>
}

export function createHistoryRetention(deps: { store: Store; clock: Clock; logger: Logger; scheduler: Scheduler; retentionDays: number }): HistoryRetention {
  const { store, clock, logger, scheduler, retentionDays } = deps
  const timing = { kind: HISTORY_RETENTION_KIND, firstDelayMs: HISTORY_RETENTION_FIRST_DELAY_MS, intervalMs: HISTORY_RETENTION_INTERVAL_MS }
  const passes = createRetentionPasses({ clock, logger, scheduler, ...timing, pass, failure: "deleting echo and history messages older than the retention failed" })

  async function pass(): Promise<void> {
    const messages = await prune()
    if (messages > 0) logger.info("echo and history messages older than the retention deleted", { messages, retentionDays })
  }

  async function prune(): Promise<number> {
    if (retentionDays === 0) return 0
    const cutoffMs = clock.nowMs() - retentionDays * DAY_MS
    return passes.inBatches(HISTORY_RETENTION_BATCH, () => store.write((q) => q.pruneChatMessages(cutoffMs, HISTORY_RETENTION_BATCH)))
  }

  return {
    // Unset keeps everything: no pass is ever scheduled.
    start: () => (retentionDays > 0 ? passes.start() : undefined),
    prune,
    stop: () => passes.stop(),
  }
}
