import { Connection } from "rabbitmq-client"
import type { BrokerMessage, BrokerPort } from "./port"

/*
 * The broker port over rabbitmq-client (docs/webhooks.md § "RabbitMQ" says why this library):
 * the only module that imports it (test/architecture.test.ts). The client reconnects by itself
 * with its own backoff; a publisher on it declares the durable topic exchange on every
 * (re)connection and waits for the broker's confirm of each message. `maxAttempts: 1` leaves
 * retries to the loop in publisher.ts, which resends a whole page from the stored cursor.
 */

/** How long a publish waits for a connection before it fails and the loop backs off. */
const ACQUIRE_TIMEOUT_MS = 5_000
const CONNECTION_TIMEOUT_MS = 10_000

/** A connect or publish failure as a sentence, without the URL (it may hold the password). */
function reasonOf(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code
    return typeof code === "string" && !err.message.includes(code) ? `${code}: ${err.message}` : err.message
  }
  return String(err)
}

export function createRabbitmqPort(options: { url: string; exchange: string; connectionName: string }): BrokerPort {
  const connection = new Connection({
    url: options.url,
    connectionName: options.connectionName,
    acquireTimeout: ACQUIRE_TIMEOUT_MS,
    connectionTimeout: CONNECTION_TIMEOUT_MS,
    retryLow: 1_000,
    retryHigh: 30_000,
  })
  const publisher = connection.createPublisher({
    confirm: true,
    maxAttempts: 1,
    exchanges: [{ exchange: options.exchange, type: "topic", durable: true }],
  })
  const listeners: ((change: { connected: true } | { connected: false; reason: string }) => void)[] = []
  connection.on("connection", () => {
    for (const fn of listeners) fn({ connected: true })
  })
  // Without a listener an "error" event would be thrown; each failed (re)connection emits one.
  connection.on("error", (err) => {
    for (const fn of listeners) fn({ connected: false, reason: reasonOf(err) })
  })
  return {
    async publish(messages: readonly BrokerMessage[]) {
      // All are sent at once and confirmed as the broker goes; the channel keeps their order.
      // The first failure is kept (and the others swallowed) while every send settles, without
      // a settled-result object per message.
      let failure: unknown = null
      const noteFailure = (err: unknown) => {
        failure ??= err
      }
      const sends = new Array<Promise<void>>(messages.length)
      for (let i = 0; i < messages.length; i++) {
        const m = messages[i]!
        const props = { exchange: options.exchange, routingKey: m.routingKey, durable: true, messageId: m.messageId, contentType: "application/json", timestamp: Math.floor(m.occurredAtMs / 1000) }
        sends[i] = publisher.send(props, Buffer.from(m.body, "utf8")).catch(noteFailure)
      }
      await Promise.all(sends)
      if (failure !== null) throw new Error(reasonOf(failure))
    },
    onChange(fn) {
      listeners.push(fn)
    },
    async close() {
      await publisher.close().catch(() => {})
      await connection.close().catch(() => {})
    },
  }
}
