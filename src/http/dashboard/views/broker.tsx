import { boundedOutsideText } from "../../../lib/outside-text"
import { Time } from "./parts"

/** The message broker's state as the overview shows it (null when no broker is configured). */
export interface BrokerView {
  state: "connected" | "connecting" | "down"
  /** When the broker entered this state. */
  sinceMs: number
  /** The latest connection or publish failure in the broker's or the network's words. */
  lastError: string | null
  /** Events written but not yet confirmed by the broker. */
  backlog: number
  /** The backlog's count stopped at its limit: at least `backlog` events wait. */
  backlogAtLeast?: boolean
}

const WORDS: Record<BrokerView["state"], { text: string; badge: string }> = {
  connected: { text: "Connected", badge: "ok" },
  connecting: { text: "Connecting", badge: "warn" },
  down: { text: "Down", badge: "bad" },
}

/**
 * The overview's RabbitMQ card: the state and since when, the backlog waiting for the broker, and
 * the latest failure, which comes from outside (the broker's close reason, a socket error) and
 * is bounded and stripped of control characters before it is shown (JSX escapes the markup).
 */
export function BrokerStatus(props: { broker: BrokerView | null }) {
  const broker = props.broker
  if (!broker) return null
  const words = WORDS[broker.state]
  return (
    <section aria-labelledby="broker">
      <h2 id="broker">RabbitMQ</h2>
      <dl class="facts stack-narrow">
        <dt>State</dt>
        <dd>
          <span class={`badge ${words.badge}`} data-broker-state={broker.state}>
            {words.text}
          </span>{" "}
          since <Time ms={broker.sinceMs} />
        </dd>
        <dt>Backlog</dt>
        <dd data-broker-backlog={String(broker.backlog)}>
          {broker.backlog === 0 ? "none: every event is confirmed" : `${broker.backlog.toLocaleString("en-US")}${broker.backlogAtLeast ? " or more events" : broker.backlog === 1 ? " event" : " events"} waiting`}
        </dd>
        {broker.lastError ? (
          <>
            <dt>Last error</dt>
            <dd class="broker-error">{boundedOutsideText(broker.lastError)}</dd>
          </>
        ) : null}
      </dl>
    </section>
  )
}
