import type { Clock } from "../lib/clock"
import { takeToken, type BucketState, type TakeResult } from "../lib/token-bucket"
import type { CredentialKind } from "../lib/vocabulary"

/**
 * Failed authentications allowed per client IP and minute, for each kind of credential
 * (docs/decisions.md § "API keys and scopes").
 */
export const FAILED_AUTH_PER_MINUTE = 30
const MAX_IP_BUCKETS = 10_000

/**
 * The limiters: one token bucket per API key, and per kind of credential one per client IP for
 * failed authentications. The kinds are kept apart so that an application retrying a stale API
 * key cannot spend the budget the operator needs for the admin token from the same address
 * (behind a proxy every client shares one). The in-memory one below keeps every bucket in this
 * process (one node: exact, and a restart refills them, which errs on the side of the client);
 * on several nodes the keys' buckets are shared through the database
 * (src/domain/shared-rate-limits.ts).
 */
export interface RateLimiter {
  /**
   * Takes a token from a key's bucket. A promise only when the answer needs the database (a
   * shared limiter's draw); callers use a plain result at once.
   */
  takeForKey(keyId: string, limitPerMinute: number): TakeResult | Promise<TakeResult>
  /** Checks, without taking, whether this IP may still attempt authentication with this kind of credential. */
  peekFailedAuth(kind: CredentialKind, ip: string): TakeResult
  /** Records one failed authentication of this kind for this IP. */
  recordFailedAuth(kind: CredentialKind, ip: string): void
}

/** The in-memory limiter, which always answers at once. */
export interface LocalRateLimiter extends RateLimiter {
  takeForKey(keyId: string, limitPerMinute: number): TakeResult
}

export function createRateLimiter(clock: Clock): LocalRateLimiter {
  const keyBuckets = new Map<string, BucketState>()
  const failedBuckets: Record<CredentialKind, Map<string, BucketState>> = { api_key: new Map(), admin_token: new Map() }

  function pruneIpBuckets(ipBuckets: Map<string, BucketState>, nowMs: number): void {
    if (ipBuckets.size < MAX_IP_BUCKETS) return
    // Buckets that have refilled carry no information; drop them to bound memory.
    for (const [ip, state] of ipBuckets) {
      if (takeToken(state, FAILED_AUTH_PER_MINUTE, nowMs).remaining >= FAILED_AUTH_PER_MINUTE - 1) ipBuckets.delete(ip)
    }
  }

  return {
    takeForKey(keyId, limitPerMinute) {
      const result = takeToken(keyBuckets.get(keyId), limitPerMinute, clock.nowMs())
      keyBuckets.set(keyId, result.state)
      return result
    },
    peekFailedAuth(kind, ip) {
      return takeToken(failedBuckets[kind].get(ip), FAILED_AUTH_PER_MINUTE, clock.nowMs())
    },
    recordFailedAuth(kind, ip) {
      const nowMs = clock.nowMs()
      const ipBuckets = failedBuckets[kind]
      pruneIpBuckets(ipBuckets, nowMs)
      ipBuckets.set(ip, takeToken(ipBuckets.get(ip), FAILED_AUTH_PER_MINUTE, nowMs).state)
    },
  }
}
