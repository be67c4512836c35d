import { systemClock } from "../../src/lib/clock"
import { silentLogger } from "../../src/lib/logger"
import { Counter } from "../../src/lib/metrics"
import { AMQP_PUBLISHER_DEFAULTS, createAmqpPublisher } from "../../src/webhooks/amqp/publisher"
import { createRabbitmqPort } from "../../src/webhooks/amqp/rabbitmq"
import { bindQueue } from "../amqp/amqp-helpers"
import { startRabbitmq } from "../helpers/rabbitmq"
import { openSqliteContractStore } from "../store/contract/stores"
import { seedAccount } from "../store/contract/webhook-rows"

/*
 * `bun run bench --only=amqp`: wagate's own RabbitMQ publisher (src/webhooks/amqp/) draining a
 * backlog, against a throwaway broker node (test/helpers/rabbitmq.ts) on 127.0.0.1. Each round
 * writes `BENCH_AMQP_EVENTS` events of a webhook envelope's size to a fresh SQLite event log
 * behind the publisher's cursor (as an outage leaves them), then starts the publisher and times
 * it until the cursor has passed the last one: every page read from the store, published as
 * persistent messages to the durable topic exchange and confirmed by the broker before the
 * cursor moves. The run checks with `rabbitmqctl list_queues` that the bound queue holds them all.
 */

const EVENTS = Number(process.env.BENCH_AMQP_EVENTS ?? 20_000)
const PAGE = Number(process.env.BENCH_AMQP_PAGE ?? AMQP_PUBLISHER_DEFAULTS.pageSize)
const IN_FLIGHT = Number(process.env.BENCH_AMQP_IN_FLIGHT ?? AMQP_PUBLISHER_DEFAULTS.pagesInFlight)
const ROUNDS = Number(process.env.BENCH_AMQP_ROUNDS ?? 3)
const TARGET_PER_S = 5_000

export interface AmqpFigures {
  events: number
  page: number
  inFlight: number
  /** Events per second of each round, start of the publisher to the cursor past the last event. */
  rounds: number[]
  medianPerS: number
  bootMs: number
}

/** A webhook envelope as wagate writes one (about 300 bytes), numbered. */
function envelope(i: number): string {
  return JSON.stringify({
    event: "message.received",
    timestamp: "2026-11-28T10:00:00.000Z",
    data: { messageId: `inmsg_${String(i).padStart(26, "0")}`, phoneId: "+14155550123", from: "+14155550100", type: "text", content: "Hello from the bench, a message of ordinary length." },
  })
}

async function round(url: string, r: number, progress: (line: string) => void): Promise<number> {
  const exchange = `bench-${r}`
  await bindQueue(url, exchange, `bench-${r}`)
  const opened = await openSqliteContractStore()
  try {
    const { store } = opened
    await seedAccount(store)
    const clock = systemClock()
    // The cursor starts at the head (an empty log), so everything written next is the backlog.
    await store.write((q) => q.claimAmqpPublisher("bench", clock.nowMs(), 60_000))
    await store.write((q) => q.releaseAmqpPublisher("bench"))
    for (let at = 0; at < EVENTS; at += 1_000) {
      const rows = Array.from({ length: Math.min(1_000, EVENTS - at) }, (_, k) => {
        const i = at + k
        return { id: `evt_${String(i).padStart(26, "0")}`, accountId: "acc_1", env: "live" as const, type: "message.received", body: envelope(i), occurredAtMs: clock.nowMs() }
      })
      await store.write(async (q) => q.insertEventsAndDeliveries(rows, []))
    }
    const metrics = { published: new Counter("p", "p"), failures: new Counter("f", "f") }
    const publisher = createAmqpPublisher({
      store, clock, logger: silentLogger, nodeId: "bench", exchange, metrics,
      openPort: () => createRabbitmqPort({ url, exchange, connectionName: "wagate bench" }),
      options: { pageSize: PAGE, pagesInFlight: IN_FLIGHT },
    })
    const started = performance.now()
    publisher.start()
    // The counter moves with the cursor; polling it costs the publisher nothing (a backlog count would query the store).
    while (metrics.published.get() < EVENTS) await Bun.sleep(5)
    const perS = EVENTS / ((performance.now() - started) / 1000)
    await publisher.stop()
    if (metrics.failures.get() > 0) throw new Error(`${metrics.failures.get()} pages failed during the round`)
    progress(`amqp round ${r + 1}: ${perS.toFixed(0)} events/s`)
    return perS
  } finally {
    await opened.cleanup()
  }
}

export async function benchAmqp(progress: (line: string) => void): Promise<AmqpFigures> {
  const booted = performance.now()
  const broker = await startRabbitmq()
  const bootMs = performance.now() - booted
  try {
    const rounds: number[] = []
    for (let r = 0; r < ROUNDS; r++) rounds.push(await round(broker.url, r, progress))
    // Every confirmed message must be in its queue, or the figure measured nothing.
    const listed = await broker.ctl("list_queues", "--quiet", "--no-table-headers", "name", "messages")
    for (let r = 0; r < ROUNDS; r++) {
      if (!new RegExp(`^bench-${r}\\s+${EVENTS}$`, "m").test(listed)) throw new Error(`queue bench-${r} does not hold ${EVENTS} messages: ${listed}`)
    }
    const sorted = [...rounds].sort((a, b) => a - b)
    return { events: EVENTS, page: PAGE, inFlight: IN_FLIGHT, rounds, medianPerS: sorted[Math.floor(sorted.length / 2)]!, bootMs }
  } finally {
    await broker.remove()
  }
}

export function amqpLines(f: AmqpFigures): string[] {
  const rounds = f.rounds.map((n) => n.toFixed(0)).join(", ")
  return [
    `wagate's RabbitMQ publisher draining ${f.events.toLocaleString("en-US")} stored events with confirms, pages of ${f.page}, ${f.inFlight} in flight: median ${f.medianPerS.toFixed(0)} events/s ` +
      `(target ≥ ${TARGET_PER_S.toLocaleString("en-US")}${f.medianPerS >= TARGET_PER_S ? ", met" : ", MISSED"}); rounds ${rounds}; broker boot ${(f.bootMs / 1000).toFixed(1)} s`,
  ]
}
