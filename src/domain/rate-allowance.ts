import type { TakeResult } from "../lib/token-bucket"
import type { RateDrawResult } from "../store/rate-buckets"

/*
 * A node's local allowance of one key's shared bucket (src/domain/shared-rate-limits.ts draws
 * it; docs/api.md § "Rate limits on several nodes" gives the bound). Pure: the caller owns the
 * state and the time.
 *
 * A draw asks for DRAW_SHARE of the limit. A node spends one token of it on the request that
 * drew and holds the rest, so each node holds fewer than DRAW_SHARE × limit tokens that no other
 * node can use. Those are the only error: every token a node spends was drawn from the one
 * shared bucket, so in any window the cluster admits at most Σ held more than one exact bucket
 * would, and, counting the batch a dry bucket refills to before a node draws again, at most
 * (nodes + 1) × DRAW_SHARE × limit fewer. With 2 %, up to four nodes stay within 10 % of the limit.
 */

/** The share of the limit one draw asks for. */
export const DRAW_SHARE = 0.02
/** How long a node may spend tokens it drew; after that it hands them back with its next draw. */
export const ALLOWANCE_TTL_MS = 2_000

/** Tokens one draw asks for: DRAW_SHARE of the limit, at least 1 (below 100 a minute, one a request: exact). */
export function drawSize(limitPerMinute: number): number {
  return Math.max(1, Math.floor(limitPerMinute * DRAW_SHARE))
}

/** What a node knows of one key's shared bucket since its last draw. */
export interface Allowance {
  /** The limit it was drawn under; a changed limit draws afresh. */
  limitPerMinute: number
  /** Whole tokens drawn and not yet spent. */
  held: number
  /** The instant of the last draw, as stamped in the bucket. */
  drawnAtMs: number
  /** When the draw's answer arrived: the tokens held may be spent until this + ALLOWANCE_TTL_MS. */
  receivedAtMs: number
  /** What the shared bucket held after the draw, at `drawnAtMs`. */
  sharedTokens: number
  /** Until this instant the node does not draw again: the bucket was dry and refills to a batch. */
  nextDrawAtMs: number
}

const refillPerMs = (limitPerMinute: number) => limitPerMinute / 60_000

/** The allowance after a draw that asked for `wanted` at `drawnAtMs`. */
export function allowanceAfterDraw(limitPerMinute: number, wanted: number, drawn: RateDrawResult, drawnAtMs: number, receivedAtMs: number): Allowance {
  // A draw short of what it asked found the bucket dry (below one token): drawing again before
  // it holds a batch would cost the database a statement for a token or none.
  const dry = drawn.granted < wanted
  const nextDrawAtMs = dry ? drawnAtMs + Math.ceil((wanted - drawn.tokens) / refillPerMs(limitPerMinute)) : drawnAtMs
  return { limitPerMinute, held: drawn.granted, drawnAtMs, receivedAtMs, sharedTokens: drawn.tokens, nextDrawAtMs }
}

/** Whether the allowance's held tokens may be spent at `nowMs` under this limit. */
export function spendable(a: Allowance, limitPerMinute: number, nowMs: number): boolean {
  return a.held >= 1 && a.limitPerMinute === limitPerMinute && nowMs - a.receivedAtMs < ALLOWANCE_TTL_MS
}

/**
 * Takes one token from the allowance, or refuses while the bucket refills to a batch; null when
 * only a draw can tell. The headers' figures are this node's best estimate of the shared bucket:
 * what it held after the last draw, refilled since, plus what this node holds.
 */
export function takeFromAllowance(a: Allowance | undefined, limitPerMinute: number, nowMs: number): TakeResult | null {
  if (!a || a.limitPerMinute !== limitPerMinute) return null
  const spend = spendable(a, limitPerMinute, nowMs)
  if (!spend && (a.held >= 1 || nowMs >= a.nextDrawAtMs)) return null
  const rate = refillPerMs(limitPerMinute)
  const shared = Math.min(limitPerMinute, a.sharedTokens + Math.max(0, nowMs - a.drawnAtMs) * rate)
  if (spend) {
    a.held -= 1
    const left = Math.min(limitPerMinute, a.held + shared)
    return { allowed: true, state: { tokens: left, updatedAtMs: nowMs }, remaining: Math.floor(left), retryAfterMs: 0, resetAfterMs: Math.ceil((limitPerMinute - left) / rate) }
  }
  return {
    allowed: false,
    state: { tokens: shared, updatedAtMs: nowMs },
    remaining: 0,
    retryAfterMs: a.nextDrawAtMs - nowMs,
    resetAfterMs: Math.ceil((limitPerMinute - shared) / rate),
  }
}
