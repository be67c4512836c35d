/*
 * PostgreSQL migration 5: the shared token buckets of the keys' rate limits
 * (src/store/sqlite/rate-buckets.ts, src/store/postgres/rate-buckets.ts), as SQLite migration 17. One
 * narrow row per key, updated in place by every draw; a draw takes a batch of tokens, so a busy
 * key's row is written about once a second per node, not once a request.
 */
export const RATE_BUCKETS_SQL = `
CREATE TABLE rate_buckets (
  key_id text COLLATE "C" PRIMARY KEY REFERENCES api_keys(id) ON DELETE CASCADE,
  tokens float8 NOT NULL,
  granted int4 NOT NULL,
  updated_at_ms int8 NOT NULL
);
`
