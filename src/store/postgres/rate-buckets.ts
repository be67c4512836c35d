import type { SQL } from "bun"
import type { RateBucketsQueries } from "../store"
import { toNumber } from "./rows"

/*
 * The shared token buckets on PostgreSQL (src/store/sqlite/rate-buckets.ts says what a draw does). A
 * draw is one INSERT … ON CONFLICT DO UPDATE: the first draw of a key inserts its bucket, and a
 * concurrent one waits on that row and then updates it; an update locks the row and computes
 * from its newest committed version. Draws of one key from any number of nodes therefore run
 * one after another and never grant a token twice. The arithmetic is float8, in the order
 * SQLite's statement and src/lib/token-bucket.ts use, so the stores agree to the last bit.
 */

const AVAILABLE = "LEAST($2::float8, b.tokens + GREATEST(0, $5::int8 - b.updated_at_ms) * ($2::float8 / 60000) + $4::float8)"
const GRANT = `LEAST($3::int4, floor(${AVAILABLE})::int4)`

const DRAW = `INSERT INTO rate_buckets AS b (key_id, tokens, granted, updated_at_ms)
  VALUES ($1, $2::float8 - LEAST($3::int4, $2::int4), LEAST($3::int4, $2::int4), $5::int8)
  ON CONFLICT (key_id) DO UPDATE SET tokens = ${AVAILABLE} - ${GRANT}, granted = ${GRANT},
    updated_at_ms = GREATEST(b.updated_at_ms, EXCLUDED.updated_at_ms)
  RETURNING granted, tokens`

/** src/store/sqlite/rate-buckets.ts on PostgreSQL. */
export function pgRateBucketsQueries(sql: SQL): RateBucketsQueries {
  return {
    async drawRateTokens(d) {
      const [row] = await sql.unsafe(DRAW, [d.keyId, d.limitPerMinute, d.wanted, d.returned, d.nowMs])
      return { granted: toNumber(row.granted), tokens: toNumber(row.tokens) }
    },
  }
}
