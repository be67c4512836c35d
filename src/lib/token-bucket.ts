/** The state of one token bucket: tokens available at `updatedAtMs`. */
export interface BucketState {
  tokens: number
  updatedAtMs: number
}

/** What one attempt to take a token decided. */
export interface TakeResult {
  allowed: boolean
  state: BucketState
  /** Whole tokens left after this request (0 when refused). */
  remaining: number
  /** Milliseconds until one token is available (0 when allowed). */
  retryAfterMs: number
  /** Milliseconds until the bucket is full again. */
  resetAfterMs: number
}

/**
 * Token bucket with capacity = `limitPerMinute`, refilled continuously at limit/60 per second
 * (docs/decisions.md § "Rate limits"). Pure: the caller owns the state and the time. A refused request takes
 * no token, so clients that respect Retry-After are served as soon as it elapses.
 */
export function takeToken(previous: BucketState | undefined, limitPerMinute: number, nowMs: number): TakeResult {
  const capacity = limitPerMinute
  const refillPerMs = limitPerMinute / 60_000
  const base = previous ?? { tokens: capacity, updatedAtMs: nowMs }
  const elapsedMs = Math.max(0, nowMs - base.updatedAtMs)
  const tokens = Math.min(capacity, base.tokens + elapsedMs * refillPerMs)
  if (tokens >= 1) {
    const left = tokens - 1
    return {
      allowed: true,
      state: { tokens: left, updatedAtMs: nowMs },
      remaining: Math.floor(left),
      retryAfterMs: 0,
      resetAfterMs: Math.ceil((capacity - left) / refillPerMs),
    }
  }
  return {
    allowed: false,
    state: { tokens, updatedAtMs: nowMs },
    remaining: 0,
    retryAfterMs: Math.ceil((1 - tokens) / refillPerMs),
    resetAfterMs: Math.ceil((capacity - tokens) / refillPerMs),
  }
}
