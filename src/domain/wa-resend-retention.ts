import type { Clock } from "../lib/clock"
import type { Logger } from "../lib/logger"
import { createRetentionPasses } from "../lib/retention-passes"
import type { Scheduler } from "../lib/scheduler"
import { DAY_MS } from "../lib/time"
import type { Store, StoreQueries } from "../store/store"

export const WA_RESEND_RETENTION_KIND = "wa-resend-retention"
/** The first pass runs a minute after start, out of the way of a restart's reconnects. */
export const WA_RESEND_FIRST_DELAY_MS = 60_000
/** Then once an hour: a message is kept at most an hour longer than the retention. */
export const WA_RESEND_INTERVAL_MS = 3_600_000
/** Rows deleted per write: one small blob each, so a batch never holds the writer for long. */
export const WA_RESEND_BATCH = 500

/**
 * How long a message's secret is kept (src/store/message-secrets.ts). WhatsApp lets a message be
 * edited for 15 minutes, and an edit made then may wait in WhatsApp's offline queue for about 30
 * days before a phone that was off receives it; a secret older than that decrypts nothing more.
 * Poll votes, which will read the same store, may need longer (docs/live-whatsapp.md, "Encrypted
 * edits"). Independent of the resend retention, which may be 0.
 */
export const MESSAGE_SECRET_RETENTION_DAYS = 30

/**
 * Forgets the WhatsApp messages kept for retry receipts once they are older than the retention,
 * and in the same pass the message secrets older than MESSAGE_SECRET_RETENTION_DAYS.
 */
export interface WaResendRetention {
  start(): void
  /** One pass: deletes every stored message sent before now minus the retention; returns how many. */
  prune(): Promise<number>
  /** One pass over the message secrets: deletes those stored more than MESSAGE_SECRET_RETENTION_DAYS ago; returns how many. */
  pruneSecrets(): Promise<number>
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
  const timing = { kind: WA_RESEND_RETENTION_KIND, firstDelayMs: WA_RESEND_FIRST_DELAY_MS, intervalMs: WA_RESEND_INTERVAL_MS }
  const passes = createRetentionPasses({ clock, logger, scheduler, ...timing, pass, failure: "deleting WhatsApp messages kept for retry receipts failed" })

  /** Messages first, then secrets; each logs what it deleted. */
  async function pass(): Promise<void> {
    const messages = await prune()
    const secrets = await pruneSecrets()
    if (secrets > 0) logger.info("message secrets older than the retention deleted", { secrets, retentionDays: MESSAGE_SECRET_RETENTION_DAYS })
    if (messages > 0) logger.info("WhatsApp messages kept for retry receipts deleted", { messages, retentionDays })
  }

  function inBatches(deleteBatch: (q: StoreQueries) => Promise<number>): Promise<number> {
    return passes.inBatches(WA_RESEND_BATCH, () => store.write(deleteBatch))
  }

  function prune(): Promise<number> {
    const cutoffMs = clock.nowMs() - retentionDays * DAY_MS
    return inBatches((q) => q.pruneSentWaMessages(cutoffMs, WA_RESEND_BATCH))
  }

  function pruneSecrets(): Promise<number> {
    const cutoffMs = clock.nowMs() - MESSAGE_SECRET_RETENTION_DAYS * DAY_MS
    return inBatches((q) => q.pruneMessageSecrets(cutoffMs, WA_RESEND_BATCH))
  }

  return { start: () => passes.start(), prune, pruneSecrets, stop: () => passes.stop() }
}
