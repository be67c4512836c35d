/** Formats epoch milliseconds as an ISO 8601 UTC string with milliseconds, as the spec requires. */
export function toIso(ms: number): string {
  return new Date(ms).toISOString()
}

/** Like toIso, for nullable columns. */
export function toIsoOrNull(ms: number | null | undefined): string | null {
  return ms === null || ms === undefined ? null : toIso(ms)
}

export const DAY_MS = 86_400_000

/** Start of the UTC day that contains `ms`. */
export function utcDayStartMs(ms: number): number {
  return Math.floor(ms / DAY_MS) * DAY_MS
}

/** Start of the UTC ISO week (Monday 00:00) that contains `ms`. */
export function utcWeekStartMs(ms: number): number {
  const dayStart = utcDayStartMs(ms)
  // getUTCDay: Sunday = 0; shift so that Monday = 0.
  const daysSinceMonday = (new Date(dayStart).getUTCDay() + 6) % 7
  return dayStart - daysSinceMonday * DAY_MS
}

/** Start of the UTC calendar month that contains `ms`. */
export function utcMonthStartMs(ms: number): number {
  const d = new Date(ms)
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1)
}

/** `2026-12-10`: the day (UTC) of an instant. */
export function isoDay(ms: number): string {
  return toIso(ms).slice(0, 10)
}
