import type { LoggedEvent } from "../../store/event-streams"

/*
 * What the RabbitMQ publisher (publisher.ts) needs of a broker client: the port keeps the loop
 * free of any AMQP library, so its tests pass a fake one in, and the one implementation
 * (rabbitmq.ts, over the rabbitmq-client package) stays the only module that knows the library.
 */

/** One event as a message (docs/webhooks.md § "RabbitMQ"). */
export interface BrokerMessage {
  routingKey: string
  /** The event id. */
  messageId: string
  /** The webhook envelope's bytes, as the log holds them. */
  body: string
  /** When the event occurred (ms), the message's `timestamp` property (in seconds on the wire). */
  occurredAtMs: number
}

export interface BrokerPort {
  /**
   * Publishes the messages in order as persistent messages to the exchange and resolves once the
   * broker has confirmed every one; rejects when any is refused or the connection fails before
   * all are confirmed (some may then be in the broker: the caller publishes them again).
   */
  publish(messages: readonly BrokerMessage[]): Promise<void>
  /** Calls `fn` each time the client (re)connects, with the reason of each failure in between. */
  onChange(fn: (change: { connected: true } | { connected: false; reason: string }) => void): void
  /** Closes the connection; a publish in flight rejects. */
  close(): Promise<void>
}

export function routingKeyOf(event: Pick<LoggedEvent, "env" | "accountId" | "type">): string {
  return `${event.env}.${event.accountId}.${event.type}`
}

/** A logged event as its message: the envelope's stored bytes go out as they are, never re-serialised. */
export function messageOf(event: LoggedEvent): BrokerMessage {
  return { routingKey: routingKeyOf(event), messageId: event.id, body: event.body, occurredAtMs: event.occurredAtMs }
}
