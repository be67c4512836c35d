import type { Clock } from "../../lib/clock"
import type { Logger } from "../../lib/logger"
import { boundedOutsideText } from "../../lib/outside-text"

export type BrokerState = "connecting" | "connected" | "down"

/**
 * The broker's state as the publisher sees it, and the one warning per outage: the first failure
 * after a connection (or at start) is logged at warn with its reason, the later ones of the same
 * outage only update `lastError`, and the return is logged at info (CONTRIBUTING.md: an
 * operator-actionable failure is logged once). The reason comes from the broker or the network,
 * so it is bounded and escaped (src/lib/outside-text.ts).
 */
export interface LinkState {
  readonly state: BrokerState
  readonly sinceMs: number
  readonly lastError: string | null
  up(): void
  down(reason: string): void
}

export function createLinkState(deps: { clock: Clock; logger: Logger; exchange: string }): LinkState {
  let state: BrokerState = "connecting"
  let sinceMs = deps.clock.nowMs()
  let lastError: string | null = null
  return {
    get state() {
      return state
    },
    get sinceMs() {
      return sinceMs
    },
    get lastError() {
      return lastError
    },
    up() {
      if (state === "connected") return
      if (state === "down") deps.logger.info("RabbitMQ is reachable again: publishing the events that waited", { downForMs: deps.clock.nowMs() - sinceMs })
      state = "connected"
      sinceMs = deps.clock.nowMs()
    },
    down(reason) {
      lastError = boundedOutsideText(reason)
      if (state === "down") return
      deps.logger.warn("RabbitMQ is unreachable or refuses wagate: events wait in the store until it is back", {
        reason: lastError,
        exchange: deps.exchange,
      })
      state = "down"
      sinceMs = deps.clock.nowMs()
    },
  }
}
