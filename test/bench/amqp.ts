import { amqpConnect } from "../helpers/amqp-wire"
import { startRabbitmq } from "../helpers/rabbitmq"

/*
 * `bun run bench --only=amqp`: RabbitMQ publishing with publisher confirms on this box, against
 * a throwaway broker node (test/helpers/rabbitmq.ts) on 127.0.0.1. The figure is events per
 * second from the first publish to the last confirm, for `BENCH_AMQP_EVENTS` persistent messages
 * of a webhook envelope's size into a durable queue, with at most `BENCH_AMQP_WINDOW` unconfirmed.
 * This is the broker's ceiling for a confirming publisher here (issue 31's target is 5,000
 * events/s through wagate's publisher, which cannot go faster than the broker confirms).
 */

const EVENTS = Number(process.env.BENCH_AMQP_EVENTS ?? 20_000)
const WINDOW = Number(process.env.BENCH_AMQP_WINDOW ?? 1_000)
const ROUNDS = Number(process.env.BENCH_AMQP_ROUNDS ?? 3)
const TARGET_PER_S = 5_000

export interface AmqpFigures {
  events: number
  window: number
  /** Events per second of each round, first publish to last confirm. */
  rounds: number[]
  medianPerS: number
  bootMs: number
}

/** A webhook envelope as wagate writes one (about 600 bytes), numbered. */
function envelope(i: number): string {
  return JSON.stringify({
    id: `evt_${String(i).padStart(26, "0")}`,
    type: "message.received",
    createdAt: "2026-11-28T10:00:00.000Z",
    accountId: "acc_01JBENCHACCOUNT0000000000",
    environment: "live",
    data: { message: { id: `msg_${i}`, from: "+14155550100", to: "+14155550123", type: "text", text: { body: "Hello from the bench, a message of ordinary length with some words in it." } } },
  })
}

export async function benchAmqp(progress: (line: string) => void): Promise<AmqpFigures> {
  const booted = performance.now()
  const broker = await startRabbitmq()
  const bootMs = performance.now() - booted
  try {
    const connection = await amqpConnect(broker.url, 30_000)
    try {
      const rounds: number[] = []
      for (let r = 0; r < ROUNDS; r++) {
        const queue = `bench-${r}`
        await connection.declareQueue(queue)
        const started = performance.now()
        await connection.publishMany(queue, EVENTS, envelope, WINDOW)
        const perS = EVENTS / ((performance.now() - started) / 1000)
        rounds.push(perS)
        progress(`amqp round ${r + 1}: ${perS.toFixed(0)} events/s`)
      }
      // Every confirmed message must be in its queue, or the figure measured nothing.
      const listed = await broker.ctl("list_queues", "--quiet", "--no-table-headers", "name", "messages")
      for (let r = 0; r < ROUNDS; r++) {
        if (!new RegExp(`^bench-${r}\\s+${EVENTS}$`, "m").test(listed)) throw new Error(`queue bench-${r} does not hold ${EVENTS} messages: ${listed}`)
      }
      const sorted = [...rounds].sort((a, b) => a - b)
      return { events: EVENTS, window: WINDOW, rounds, medianPerS: sorted[Math.floor(sorted.length / 2)]!, bootMs }
    } finally {
      connection.close()
    }
  } finally {
    await broker.remove()
  }
}

export function amqpLines(f: AmqpFigures): string[] {
  const rounds = f.rounds.map((n) => n.toFixed(0)).join(", ")
  return [
    `RabbitMQ with confirms, ${f.events.toLocaleString("en-US")} persistent events a round, ${f.window} unconfirmed at most: median ${f.medianPerS.toFixed(0)} events/s ` +
      `(target ≥ ${TARGET_PER_S.toLocaleString("en-US")}${f.medianPerS >= TARGET_PER_S ? ", met" : ", MISSED"}); rounds ${rounds}; broker boot ${(f.bootMs / 1000).toFixed(1)} s`,
  ]
}
