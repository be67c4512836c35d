/** Default retry offsets: 1, 5 and 15 minutes after the first attempt (spec, Delivery and retries). */
export const DEFAULT_RETRY_OFFSETS_MS: readonly number[] = [60_000, 300_000, 900_000]

/**
 * When to make the next attempt after attempt number `attemptNumber` (1-based) failed, or null
 * when none is left. Offsets count from the first attempt, not from the previous one, as the
 * spec words it ("1 minute, 5 minutes, then 15 minutes after the initial attempt"); a retry
 * whose time has already passed (a long outage, a slow attempt) goes out at once.
 */
export function nextAttemptAtMs(
  firstAttemptAtMs: number,
  attemptNumber: number,
  offsetsMs: readonly number[],
  nowMs: number,
): number | null {
  const offset = offsetsMs[attemptNumber - 1]
  if (offset === undefined) return null
  return Math.max(nowMs, firstAttemptAtMs + offset)
}
