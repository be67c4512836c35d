import type { Clock } from "../lib/clock"
import { withDeadline } from "../lib/deadline"
import type { Logger } from "../lib/logger"
import type { TakeResult } from "../lib/token-bucket"
import type { RateBucketsQueries } from "../store/store"
import { allowanceAfterDraw, drawSize, takeFromAllowance, type Allowance } from "./rate-allowance"
import type { LocalRateLimiter, RateLimiter } from "./rate-limits"

/*
 * The rate limiter of nodes that share one database (docs/api.md § "Rate limits on several
 * nodes"): each key's bucket lives in the database (src/store/rate-buckets.ts), and each node
 * draws small batches from it into a local allowance (src/domain/rate-allowance.ts, where the
 * bound is). A request the allowance can answer is answered at once, with no I/O; only a draw
 * awaits the database, and the requests of one key that arrive meanwhile wait for that same
 * draw instead of each sending their own.
 *
 * Failed authentications stay per node, in the in-memory limiter: they are keyed by client
 * address, and a guesser spreading over N nodes gets at most N times the budget, which still
 * bounds guessing. So does the fallback: when a draw fails (the database is unreachable), the
 * node limits each key with its own in-memory bucket of the full limit for
 * UNREACHABLE_RETRY_MS and then tries the database again. The cluster then admits at most N
 * times the limit; failing open keeps a limiter outage from refusing requests that need nothing
 * else from the database, and every other request fails on its own anyway.
 */

/** After a failed draw, how long the node limits per node before it asks the database again. */
export const UNREACHABLE_RETRY_MS = 5_000
/** How long a draw may take before the node counts the database unreachable (as `/readyz`'s ping does). */
export const DRAW_TIMEOUT_MS = 2_000

export interface SharedRateLimiterDeps {
  store: RateBucketsQueries
  clock: Clock
  logger: Logger
  /** This node's in-memory limiter: failed authentications, and keys while the database is unreachable. */
  local: LocalRateLimiter
}

export function createSharedRateLimiter(deps: SharedRateLimiterDeps): RateLimiter {
  const { store, clock, logger, local } = deps
  const allowances = new Map<string, Allowance>()
  const drawing = new Map<string, Promise<void>>()
  let unreachableUntilMs = Number.NEGATIVE_INFINITY
  let unreachable = false

  /** Draws a batch for the key, handing back what the node still holds, and records the answer. */
  async function draw(keyId: string, limitPerMinute: number): Promise<void> {
    const previous = allowances.get(keyId)
    const returned = previous?.held ?? 0
    // Handed back now: no request may spend them while the draw is under way.
    if (previous) previous.held = 0
    const wanted = drawSize(limitPerMinute)
    const drawnAtMs = clock.nowMs()
    try {
      const drawn = await withTimeout(store.drawRateTokens({ keyId, limitPerMinute, wanted, returned, nowMs: drawnAtMs }))
      allowances.set(keyId, allowanceAfterDraw(limitPerMinute, wanted, drawn, drawnAtMs, clock.nowMs()))
      if (unreachable) {
        unreachable = false
        logger.info("rate-limit draws reach the database again; keys are limited across the cluster again")
      }
    } catch (err) {
      unreachableUntilMs = clock.nowMs() + UNREACHABLE_RETRY_MS
      if (!unreachable) {
        unreachable = true
        logger.warn("cannot draw rate-limit tokens from the database; each node limits keys on its own until it answers", { err, retryInMs: UNREACHABLE_RETRY_MS })
      }
    }
  }

  /**
   * A database that stopped answering must not hold a key's requests until the connection gives
   * up: after DRAW_TIMEOUT_MS the draw counts as failed, and what it grants later is dropped.
   */
  function withTimeout<T>(work: Promise<T>): Promise<T> {
    return withDeadline(clock, DRAW_TIMEOUT_MS, `the database did not answer a rate-limit draw within ${DRAW_TIMEOUT_MS} ms`, work)
  }

  /**
   * Waits for the key's draw (starting one if none is under way), then takes from what it
   * brought. Each round either serves a request or finds the bucket dry, so waiters are served
   * in turn: they resume in the order they came, before any new request can run.
   */
  async function drawThenTake(keyId: string, limitPerMinute: number): Promise<TakeResult> {
    for (;;) {
      let pending = drawing.get(keyId)
      if (!pending) {
        pending = draw(keyId, limitPerMinute).finally(() => drawing.delete(keyId))
        drawing.set(keyId, pending)
      }
      await pending
      const nowMs = clock.nowMs()
      if (nowMs < unreachableUntilMs) return local.takeForKey(keyId, limitPerMinute)
      const taken = takeFromAllowance(allowances.get(keyId), limitPerMinute, nowMs)
      if (taken) return taken
    }
  }

  return {
    takeForKey(keyId, limitPerMinute) {
      const nowMs = clock.nowMs()
      if (nowMs < unreachableUntilMs) return local.takeForKey(keyId, limitPerMinute)
      return takeFromAllowance(allowances.get(keyId), limitPerMinute, nowMs) ?? drawThenTake(keyId, limitPerMinute)
    },
    peekFailedAuth: (kind, ip) => local.peekFailedAuth(kind, ip),
    recordFailedAuth: (kind, ip) => local.recordFailedAuth(kind, ip),
  }
}
