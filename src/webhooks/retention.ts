import type { Clock } from "../lib/clock"
import type { Logger } from "../lib/logger"
import { createRetentionPasses } from "../lib/retention-passes"
import type { Scheduler } from "../lib/scheduler"
import { DAY_MS } from "../lib/time"
import type { Store } from "../store/store"

export const RETENTION_KIND = "webhook-retention"
/** The first pass runs a minute after start, out of the way of a restart's own work. */
export const RETENTION_FIRST_DELAY_MS = 60_000
/** Then once an hour. */
export const RETENTION_INTERVAL_MS = 3_600_000
/**
 * Events deleted per write. Each takes its deliveries and attempts with it, so a batch is a few
 * hundred rows: small enough that no request waits behind it for long.
 */
export const RETENTION_BATCH = 200

/** Forgets webhook events (with their deliveries and attempt logs) once they are old enough. */
export interface WebhookRetention {
  start(): void
  /** One pass: deletes every event older than the retention that has nothing pending; returns how many. */
  prune(): Promise<number>
  stop(): Promise<void>
}

/**
 * The delivery log would otherwise grow for ever with every message. An event is kept
 * `retentionDays` after it occurred (0 keeps everything), and always while one of its deliveries
 * is still pending. Passes run on the shared scheduler and delete in batches, each in its own
 * write, so the event loop is never held for long.
 */
export function createWebhookRetention(deps: {
  store: Store
  clock: Clock
  logger: Logger
  scheduler: Scheduler
  retentionDays: number
  /** RabbitMQ publishing is on: events past its cursor wait for the broker (docs/webhooks.md § "RabbitMQ"). */
  amqpPublishing?: boolean
}): WebhookRetention {
  const { store, clock, logger, scheduler, retentionDays } = deps
  const timing = { kind: RETENTION_KIND, firstDelayMs: RETENTION_FIRST_DELAY_MS, intervalMs: RETENTION_INTERVAL_MS }
  const passes = createRetentionPasses({ clock, logger, scheduler, ...timing, pass, failure: "deleting old webhook events failed" })

  async function pass(): Promise<void> {
    const n = await prune()
    if (n > 0) logger.info("old webhook events deleted", { events: n, retentionDays })
    // A stream consumer not seen within the retention stops keeping its account's events
    // (docs/webhooks.md § "Streams"); the outbox learns it through the change version.
    const cutoffMs = clock.nowMs() - retentionDays * DAY_MS
    await store.write(async (q) => q.pruneEventConsumers(cutoffMs), { changed: ["event_consumers"] })
  }

  async function prune(): Promise<number> {
    const cutoffMs = clock.nowMs() - retentionDays * DAY_MS
    // A publisher that never claimed its row has nothing waiting; "0" keeps every event until it does.
    const keepAfter = deps.amqpPublishing ? ((await store.amqpPublisherRow())?.position ?? "0") : null
    return passes.inBatches(RETENTION_BATCH, () => store.write(async (q) => q.pruneEvents(cutoffMs, RETENTION_BATCH, keepAfter)))
  }

  return {
    start() {
      if (retentionDays === 0) return
      passes.start()
    },
    prune,
    stop: () => passes.stop(),
  }
}
