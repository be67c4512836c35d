import type { SQL } from "bun"
import type { UsageQueries } from "../store"
import { toNumber } from "./rows"

/*
 * API request counts are append-only on PostgreSQL (migration 1): each flush of a node's buffer
 * inserts a row and a report sums them, so nodes never wait on each other's counter row.
 */
const ADD = "INSERT INTO api_request_counts (account_id, env, day_ms, successful, failed) VALUES ($1, $2, $3, $4, $5)"
const SUM_SINCE = `SELECT COALESCE(SUM(successful), 0) AS successful, COALESCE(SUM(failed), 0) AS failed
  FROM api_request_counts WHERE account_id = $1 AND env = $2 AND day_ms >= $3`

/** src/store/sqlite/usage.ts on PostgreSQL. */
export function pgUsageQueries(sql: SQL): UsageQueries {
  return {
    async addApiRequestCounts(c) {
      await sql.unsafe(ADD, [c.accountId, c.env, c.dayMs, c.successful, c.failed])
    },
    async sumApiRequestsSince(accountId, env, fromDayMs) {
      const [row] = await sql.unsafe(SUM_SINCE, [accountId, env, fromDayMs])
      return { successful: toNumber(row.successful), failed: toNumber(row.failed) }
    },
  }
}
