import type { Database } from "bun:sqlite"
import type { RateDraw, RateDrawResult } from "../rate-buckets"

/*
 * Shared token buckets of the API keys' rate limits, so that several nodes on one database hold
 * a key to one limit (docs/api.md § "Rate limits"; src/domain/shared-rate-limits.ts draws from
 * them). A bucket is one row per key: the tokens it held at `updated_at_ms`. A draw, in one
 * statement, refills the bucket for the time since at limit/60 000 tokens per millisecond, adds
 * back what the caller hands back, caps the sum at the limit, grants as many whole tokens as
 * were wanted and are there, and stores the rest. A new bucket starts full, like the in-memory
 * one (src/lib/token-bucket.ts), and uses the same arithmetic in the same order, so a bucket
 * drawn one token at a time holds exactly what the in-memory bucket would.
 *
 * The row's `granted` column holds what the last draw granted: RETURNING sees only the new row,
 * and the grant cannot be told from the tokens left. Time only moves forward: a node whose clock
 * lags another's refills nothing until it catches up, so clock skew never refills twice.
 *
 * These are the SQLite statements (one process, where wagate keeps its buckets in memory: they
 * serve the contract tests, so both stores keep one meaning); the PostgreSQL ones are in
 * src/store/postgres/rate-buckets.ts.
 */

const available = (tokens: string, updatedAtMs: string) =>
  `MIN($cap, ${tokens} + MAX(0, $nowMs - ${updatedAtMs}) * ($cap / 60000.0) + $returned)`
const AVAILABLE = available("tokens", "updated_at_ms")
const GRANT = `MIN($wanted, CAST(${AVAILABLE} AS INTEGER))`

const DRAW = `INSERT INTO rate_buckets (key_id, tokens, granted, updated_at_ms)
  VALUES ($keyId, $cap - MIN($wanted, $cap), MIN($wanted, $cap), $nowMs)
  ON CONFLICT (key_id) DO UPDATE SET tokens = ${AVAILABLE} - ${GRANT}, granted = ${GRANT},
    updated_at_ms = MAX(updated_at_ms, excluded.updated_at_ms)
  RETURNING granted, tokens`

/** Draws from a key's bucket (see above). */
export function drawRateTokens(db: Database, d: RateDraw): RateDrawResult {
  const row = db
    .query<RateDrawResult, Record<string, string | number>>(DRAW)
    .get({ keyId: d.keyId, cap: d.limitPerMinute, wanted: d.wanted, returned: d.returned, nowMs: d.nowMs })
  return { granted: row!.granted, tokens: row!.tokens }
}
