import type { Clock, TimerHandle } from "../../lib/clock"
import type { Logger } from "../../lib/logger"
import type { Counter } from "../../lib/metrics"
import type { LoggedEvent } from "../../store/event-streams"
import type { Store } from "../../store/store"
import { createPublisherLease } from "./lease"
import { createLinkState, type BrokerState } from "./link-state"
import { messageOf, type BrokerPort } from "./port"

/*
 * The RabbitMQ publisher (docs/webhooks.md § "RabbitMQ"): the outbox writes every event to the
 * log, and the node holding the publisher's lease (src/store/amqp-publisher.ts) reads the log
 * after the stored cursor a page at a time, publishes the page with confirms and moves the cursor
 * past it only once the broker has confirmed every message. A failure keeps the cursor, so the
 * page goes out again, in order, after a backoff: at-least-once, nothing lost, and each event
 * published by one node at a time. A commit rings `wake`; a poll is the backup.
 */

export interface AmqpPublisherStatus {
  state: BrokerState
  sinceMs: number
  lastError: string | null
  /** Events in the log after the cursor: written, not yet confirmed by the broker; at most BACKLOG_COUNT_LIMIT. */
  backlog: number
  /** The backlog reached BACKLOG_COUNT_LIMIT: at least that many wait. */
  backlogAtLeast: boolean
  /** Events this node has had confirmed since it started. */
  publishedTotal: number
}

export interface AmqpPublisher {
  start(): void
  /** Events were committed: publish them now (unless the publisher is backing off). */
  wake(): void
  status(): Promise<AmqpPublisherStatus>
  /** Stops the loop, lets the lease go and closes the connection. */
  stop(): Promise<void>
}

export interface AmqpPublisherOptions {
  pageSize: number
  /** Pages published and not yet confirmed at once. */
  pagesInFlight: number
  /** The backup poll when idle. */
  pollMs: number
  /** How long the lease runs unrenewed: a dead holder is replaced within it (lease.ts). */
  leaseMs: number
  /** The first retry's delay after a failure, doubled each failure up to `maxBackoffMs`. */
  firstBackoffMs: number
  maxBackoffMs: number
}

export const AMQP_PUBLISHER_DEFAULTS: AmqpPublisherOptions = { pageSize: 1_000, pagesInFlight: 3, pollMs: 1_000, leaseMs: 10_000, firstBackoffMs: 1_000, maxBackoffMs: 30_000 }

/** Where the backlog's count stops: past it, "at least" is all an operator needs, and a scrape stays cheap. */
export const BACKLOG_COUNT_LIMIT = 10_000

export function createAmqpPublisher(deps: {
  store: Store
  clock: Clock
  logger: Logger
  /** Opens the connection; called by `start`, so a CLI command that builds the services never connects. */
  openPort: () => BrokerPort
  nodeId: string
  exchange: string
  metrics: { published: Counter; failures: Counter }
  options?: Partial<AmqpPublisherOptions>
}): AmqpPublisher {
  const { store, clock, nodeId } = deps
  const o = { ...AMQP_PUBLISHER_DEFAULTS, ...deps.options }
  const link = createLinkState({ clock, logger: deps.logger, exchange: deps.exchange })
  const lease = createPublisherLease({ store, clock, nodeId, leaseMs: o.leaseMs })
  let publishedTotal = 0
  let failures = 0
  let running: Promise<void> | null = null
  let again = false
  let stopped = true
  let timer: TimerHandle | null = null
  let port: BrokerPort | null = null
  let unlisten: Promise<() => Promise<void>> | null = null

  function open(): BrokerPort {
    const opened = deps.openPort()
    opened.onChange((change) => {
      if (!change.connected) return link.down(change.reason)
      link.up()
      // The broker is back: the page that failed goes out now rather than after the backoff.
      if (failures > 0) kick()
    })
    return opened
  }

  function schedule(delayMs: number): void {
    timer?.cancel()
    timer = clock.setTimer(delayMs, () => {
      timer = null
      kick()
    })
  }

  /** Moves the cursor past a confirmed page; false when the lease was lost. */
  async function advance(last: string, count: number): Promise<boolean> {
    // A node that lost the lease mid-page (it ran out while the broker was slow) moves nothing:
    // the new holder publishes the page again from the stored cursor, which at-least-once allows.
    if (!(await lease.advance(last))) return false
    publishedTotal += count
    deps.metrics.published.inc({}, count)
    link.up()
    return true
  }

  /**
   * Publishes everything after the cursor. Up to `pagesInFlight` pages are out at once, so the
   * broker confirms one while the next is read and sent; the cursor still moves one page at a
   * time, in order, each only after all of its confirms. A failure throws with the cursor at the
   * last fully confirmed page (a later page already sent goes out again: at-least-once).
   */
  async function pass(): Promise<"idle" | "standby"> {
    if (!(await lease.hold())) return "standby"
    let readFrom = lease.cursor!
    let exhausted = false
    const inFlight: { last: string; count: number; confirmed: Promise<void> }[] = []
    const fill = async () => {
      while (!exhausted && !stopped && inFlight.length < o.pagesInFlight) {
        const page = await store.listLogAfter(readFrom, o.pageSize)
        exhausted = page.length < o.pageSize
        if (page.length === 0) break
        readFrom = page.at(-1)!.position
        const confirmed = port!.publish(page.map(messageOf))
        // Awaited in order below; until then a rejection must not count as unhandled.
        confirmed.catch(() => {})
        inFlight.push({ last: readFrom, count: page.length, confirmed })
      }
    }
    await fill()
    for (;;) {
      const oldest = inFlight.shift()
      if (!oldest) return "idle"
      await oldest.confirmed
      // The next page goes out before the cursor's write, so the broker is never left without
      // work while the store writes; it is at most one page more to send again if the lease is lost.
      await fill()
      if (!(await advance(oldest.last, oldest.count))) return "standby"
    }
  }

  async function run(): Promise<void> {
    let delayMs = o.pollMs
    try {
      let outcome: Awaited<ReturnType<typeof pass>>
      do {
        again = false
        outcome = await pass()
      } while (!stopped && again && outcome === "idle")
      failures = 0
      // A standby node claims again when the holder's lease runs out, or after a third of a lease
      // (a holder that stopped let its lease go early; the nodes' clocks may differ).
      if (outcome === "standby") delayMs = Math.min(Math.ceil(o.leaseMs / 3), Math.max(1, lease.standbyUntilMs - clock.nowMs()))
    } catch (err) {
      failures++
      deps.metrics.failures.inc()
      link.down(err instanceof Error ? err.message : String(err))
      delayMs = Math.min(o.maxBackoffMs, o.firstBackoffMs * 2 ** Math.min(failures - 1, 20))
    }
    if (!stopped) schedule(delayMs)
  }

  function kick(): void {
    if (stopped) return
    if (running) {
      again = true
      return
    }
    timer?.cancel()
    timer = null
    running = run().finally(() => {
      running = null
    })
  }

  function wake(): void {
    // While backing off, a commit does not hammer a broker that is down; the timer retries. A
    // standby node waits for the holder's lease to run out rather than claim on every commit.
    if (failures === 0 && clock.nowMs() >= lease.standbyUntilMs) kick()
  }

  return {
    start() {
      if (port) return
      port = open()
      stopped = false
      // Commits on every node sharing the store ring here (a NOTIFY on PostgreSQL); the poll is the backup.
      unlisten = store.listen("events", wake, wake)
      unlisten.catch((err) => deps.logger.debug("listening for events failed: the poll publishes them", { err }))
      kick()
    },
    wake,
    async status() {
      const position = lease.cursor ?? (await store.amqpPublisherRow())?.position ?? null
      const backlog = position === null ? 0 : await store.countLogAfter(position, BACKLOG_COUNT_LIMIT)
      return { state: link.state, sinceMs: link.sinceMs, lastError: link.lastError, backlog, backlogAtLeast: backlog >= BACKLOG_COUNT_LIMIT, publishedTotal }
    },
    async stop() {
      stopped = true
      timer?.cancel()
      timer = null
      await running
      await (await unlisten?.catch(() => null))?.().catch(() => {})
      unlisten = null
      await lease.release()
      await port?.close()
    },
  }
}
