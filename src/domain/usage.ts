import type { TimerHandle } from "../lib/clock"
import { DAY_MS, utcDayStartMs, utcMonthStartMs, utcWeekStartMs } from "../lib/time"
import type { Environment } from "../store/api-keys"
import type { MessageStatus } from "../lib/vocabulary"
import { type ApiRequestCounts } from "../store/usage"
import type { Principal } from "./api-keys"
import type { DomainContext } from "./context"

export type UsagePeriod = "day" | "week" | "month"

/** How often buffered request counts are written to the database. */
export const USAGE_FLUSH_INTERVAL_MS = 1_000

/** The spec's Usage resource, times in epoch ms. */
export interface UsageReport {
  period: UsagePeriod
  startMs: number
  endMs: number
  messages: { total: number; pending: number; sent: number; failed: number }
  apiRequests: { total: number; successful: number; failed: number }
}

/**
 * Counts authenticated requests per account, environment and UTC day, and remembers when each
 * key was last used. Counting happens in memory and is written in one transaction a second
 * (a write per GET would cost a disk sync per request); reports add the unwritten counts, so
 * they are exact. A crash loses at most the last second of request counts, never messages.
 */
export interface UsageRecorder {
  recordRequest(principal: Principal, statusCode: number): void
  /**
   * Remembers that a key was used without an API request (the dashboard's sandbox sends as a
   * key): its last use moves, the request counts do not.
   */
  recordKeyUse(principal: Principal): void
  report(principal: Principal, period: UsagePeriod): Promise<UsageReport>
  /** The same report for an account and environment (the operator's dashboard). */
  reportFor(accountId: string, env: Environment, period: UsagePeriod): Promise<UsageReport>
  /** Writes everything buffered; resolves when committed. */
  flush(): Promise<void>
  stop(): Promise<void>
}

export function createUsageRecorder(ctx: DomainContext): UsageRecorder {
  let counts = new Map<string, ApiRequestCounts>()
  let lastUsed = new Map<string, number>()
  let timer: TimerHandle | null = null

  function flush(): Promise<void> {
    timer?.cancel()
    timer = null
    if (counts.size === 0 && lastUsed.size === 0) return Promise.resolve()
    const pendingCounts = counts
    const pendingLastUsed = lastUsed
    counts = new Map()
    lastUsed = new Map()
    return ctx.store.write(async (q) => {
        for (const c of pendingCounts.values()) await q.addApiRequestCounts(c)
        for (const [keyId, atMs] of pendingLastUsed) await q.touchApiKey(keyId, atMs)
      })
      .catch((err) => {
        // Put the counts back so the next flush retries them.
        for (const [k, c] of pendingCounts) mergeCounts(counts, k, c)
        ctx.logger.error("writing usage counters failed", { err })
      })
  }

  return {
    recordRequest(principal, statusCode) {
      const nowMs = ctx.clock.nowMs()
      const dayMs = utcDayStartMs(nowMs)
      const ok = statusCode < 400
      mergeCounts(counts, `${principal.accountId}|${principal.env}|${dayMs}`, {
        accountId: principal.accountId,
        env: principal.env,
        dayMs,
        successful: ok ? 1 : 0,
        failed: ok ? 0 : 1,
      })
      lastUsed.set(principal.keyId, nowMs)
      timer ??= ctx.clock.setTimer(USAGE_FLUSH_INTERVAL_MS, () => void flush())
    },
    recordKeyUse(principal) {
      lastUsed.set(principal.keyId, ctx.clock.nowMs())
      timer ??= ctx.clock.setTimer(USAGE_FLUSH_INTERVAL_MS, () => void flush())
    },
    report(principal, period) {
      return this.reportFor(principal.accountId, principal.env, period)
    },
    async reportFor(accountId, env, period) {
      const endMs = ctx.clock.nowMs()
      const startMs = periodStartMs(period, endMs)
      const m = await ctx.store.countMessagesSince(accountId, env, startMs)
      const stored = await ctx.store.sumApiRequestsSince(accountId, env, startMs)
      let successful = stored.successful
      let failed = stored.failed
      for (const c of counts.values()) {
        if (c.accountId === accountId && c.env === env && c.dayMs >= startMs) {
          successful += c.successful
          failed += c.failed
        }
      }
      return {
        period,
        startMs,
        endMs,
        messages: {
          total: m.pending + m.sent + m.delivered + m.read + m.failed,
          pending: m.pending,
          // "sent" counts every message that reached WhatsApp (docs/decisions.md § "Phones, groups, account and usage").
          sent: m.sent + m.delivered + m.read,
          failed: m.failed,
        },
        apiRequests: { total: successful + failed, successful, failed },
      }
    },
    flush,
    stop: flush,
  }
}

function mergeCounts(into: Map<string, ApiRequestCounts>, key: string, add: ApiRequestCounts): void {
  const current = into.get(key)
  if (current) {
    current.successful += add.successful
    current.failed += add.failed
  } else {
    into.set(key, { ...add })
  }
}

/** Start of the calendar period (UTC) that contains `nowMs` (docs/decisions.md § "Phones, groups, account and usage"). */
export function periodStartMs(period: UsagePeriod, nowMs: number): number {
  if (period === "day") return utcDayStartMs(nowMs)
  if (period === "week") return utcWeekStartMs(nowMs)
  return utcMonthStartMs(nowMs)
}


/** One UTC day of messages, by current status. */
export interface DailyMessages {
  dayMs: number
  counts: Record<MessageStatus, number>
}

/** Messages per UTC day for the last `days` days (today included, oldest first), from the daily counters. */
export async function dailyMessages(ctx: DomainContext, accountId: string, env: Environment, days: number): Promise<DailyMessages[]> {
  const todayMs = utcDayStartMs(ctx.clock.nowMs())
  const fromDayMs = todayMs - (days - 1) * DAY_MS
  const out: DailyMessages[] = []
  for (let dayMs = fromDayMs; dayMs <= todayMs; dayMs += DAY_MS) {
    out.push({ dayMs, counts: { pending: 0, sent: 0, delivered: 0, read: 0, failed: 0 } })
  }
  for (const row of await ctx.store.dailyMessageCounts(accountId, env, fromDayMs)) {
    const day = out[Math.round((row.dayMs - fromDayMs) / DAY_MS)]
    if (day) day.counts[row.status] += row.n
  }
  return out
}
