import type { Database } from "bun:sqlite"
import type { SqlParams } from "./db"
import type { Environment } from "../../lib/vocabulary"
import type { ApiRequestCounts } from "../usage"

const ADD = `INSERT INTO api_request_daily_counts (account_id, env, day_ms, successful, failed)
  VALUES ($accountId, $env, $dayMs, $successful, $failed)
  ON CONFLICT (account_id, env, day_ms) DO UPDATE SET successful = successful + excluded.successful,
  failed = failed + excluded.failed`

/** Adds request counts to their day. */
export function addApiRequestCounts(db: Database, counts: ApiRequestCounts): void {
  db.query(ADD).run({ ...counts })
}

const SUM_SINCE = `SELECT COALESCE(SUM(successful), 0) AS successful, COALESCE(SUM(failed), 0) AS failed
  FROM api_request_daily_counts WHERE account_id = $accountId AND env = $env AND day_ms >= $fromDayMs`

/** Requests since `fromDayMs` (a UTC day start). */
export function sumApiRequestsSince(
  db: Database,
  accountId: string,
  env: Environment,
  fromDayMs: number,
): { successful: number; failed: number } {
  return db.query<{ successful: number; failed: number }, SqlParams>(SUM_SINCE).get({ accountId, env, fromDayMs })!
}
