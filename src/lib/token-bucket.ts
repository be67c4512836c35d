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
  return takeTokens(previous, { capacity: limitPerMinute, periodMs: 60_000 }, 1, nowMs)
}

/**
 * Takes `count` tokens at once from a bucket of `capacity` tokens that refills completely over
 * `periodMs`, or none: a refused request takes nothing, and `retryAfterMs` says when `count`
 * tokens will be there. `count` must not exceed the capacity (the caller refuses such a request).
 */
export function takeTokens(previous: BucketState | undefined, bucket: { capacity: number; periodMs: number }, count: number, nowMs: number): TakeResult {
  const { capacity } = bucket
  const refillPerMs = capacity / bucket.periodMs
  const base = previous ?? { tokens: capacity, updatedAtMs: nowMs }
  const elapsedMs = Math.max(0, nowMs - base.updatedAtMs)
  const tokens = Math.min(capacity, base.tokens + elapsedMs * refillPerMs)
  if (tokens >= count) {
    const left = tokens - count
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
    retryAfterMs: Math.ceil((count - tokens) / refillPerMs),
    resetAfterMs: Math.ceil((capacity - tokens) / refillPerMs),
  }
}
