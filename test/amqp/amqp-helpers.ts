import { Connection } from "rabbitmq-client"
import type { Logger } from "../../src/lib/logger"
import { afterAll, afterEach, beforeAll } from "bun:test"
import { createHarness, type Harness } from "../helpers/harness"
import { startRabbitmq, type ThrowawayRabbitmq } from "../helpers/rabbitmq"
import { SLOW_HOOK_TIMEOUT_MS } from "../helpers/timeouts"

/** A message as a test consumer took it from its queue. */
export interface Taken {
  routingKey: string
  exchange: string
  messageId: string | undefined
  contentType: string | undefined
  durable: boolean | undefined
  /** The body as JSON text (rabbitmq-client parses application/json bodies; re-encoded here). */
  body: string
}

/**
 * Declares a durable queue bound to the exchange for every routing key (declaring the exchange
 * as wagate does, so binding works before wagate's first publish), then closes.
 */
export async function bindQueue(url: string, exchange: string, queue: string, routingKey = "#"): Promise<void> {
  const rabbit = new Connection({ url, retryLow: 100, retryHigh: 500 })
  rabbit.on("error", () => {})
  try {
    await rabbit.exchangeDeclare({ exchange, type: "topic", durable: true })
    await rabbit.queueDeclare({ queue, durable: true })
    await rabbit.queueBind({ queue, exchange, routingKey })
  } finally {
    await rabbit.close()
  }
}

/** Takes every message waiting in the queue now (basic.get until it is empty), acknowledged. */
export async function drain(url: string, queue: string): Promise<Taken[]> {
  const rabbit = new Connection({ url, retryLow: 100, retryHigh: 500 })
  rabbit.on("error", () => {})
  const out: Taken[] = []
  try {
    for (;;) {
      const m = await rabbit.basicGet({ queue, noAck: true })
      if (!m) break
      const body = Buffer.isBuffer(m.body) ? m.body.toString("utf8") : typeof m.body === "string" ? m.body : JSON.stringify(m.body)
      out.push({ routingKey: m.routingKey, exchange: m.exchange, messageId: m.messageId, contentType: m.contentType, durable: m.durable, body })
    }
  } finally {
    await rabbit.close()
  }
  return out
}

/** Drains the queue until `n` messages in all were taken, or throws after `timeoutMs` (real time: the broker is real). */
export async function takeAtLeast(url: string, queue: string, n: number, timeoutMs = 20_000, between?: () => Promise<void>): Promise<Taken[]> {
  const taken: Taken[] = []
  const deadline = performance.now() + timeoutMs
  while (taken.length < n) {
    taken.push(...(await drain(url, queue)))
    if (taken.length >= n) break
    if (performance.now() > deadline) throw new Error(`only ${taken.length} of ${n} messages arrived in ${timeoutMs} ms`)
    await between?.()
    await Bun.sleep(50)
  }
  return taken
}

/** A logger that keeps what was logged at info and above. */
export function recordingLogger(): Logger & { lines: { level: string; msg: string; fields?: Record<string, unknown> }[] } {
  const lines: { level: string; msg: string; fields?: Record<string, unknown> }[] = []
  return {
    lines,
    debug() {},
    info: (msg, fields) => void lines.push({ level: "info", msg, fields }),
    warn: (msg, fields) => void lines.push({ level: "warn", msg, fields }),
    error: (msg, fields) => void lines.push({ level: "error", msg, fields }),
  }
}

/** A wagate on the test clock publishing to `url` (an exchange of its own per test). */
export async function publishingHarness(url: string, exchange: string, options: { logger?: Logger; database?: "sqlite" | "postgres" } = {}): Promise<Harness> {
  return createHarness({ env: { WAGATE_AMQP_URL: url, WAGATE_AMQP_EXCHANGE: exchange }, logger: options.logger, database: options.database })
}

/**
 * A describe block's throwaway broker, started once for the block, and each test's publishing
 * harness, closed after the test; a test that stopped the broker has it started again. Call
 * inside `describeWithRabbitmq`.
 */
export function rabbitmqSuite(): { readonly broker: ThrowawayRabbitmq; publishing: typeof publishingHarness } {
  let broker: ThrowawayRabbitmq | undefined
  let h: Harness | undefined
  beforeAll(async () => {
    broker = await startRabbitmq()
  }, SLOW_HOOK_TIMEOUT_MS * 2)
  afterAll(() => broker?.remove(), SLOW_HOOK_TIMEOUT_MS)
  afterEach(async () => {
    await h?.close()
    h = undefined
    if (broker && !broker.running) await broker.start()
  }, SLOW_HOOK_TIMEOUT_MS * 2)
  return {
    get broker() {
      if (!broker) throw new Error("the broker starts in beforeAll")
      return broker
    },
    async publishing(url, exchange, options) {
      h = await publishingHarness(url, exchange, options)
      return h
    },
  }
}
