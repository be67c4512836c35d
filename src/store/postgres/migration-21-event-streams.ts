/*
 * PostgreSQL migration 21, as SQLite migration 33: event streams (docs/webhooks.md § "Streams").
 * Each event gets a sequence number and its writing transaction's id from column defaults, so the
 * insert statements stay as they are; streams read by (account, environment, xid, seq).
 */
export const EVENT_STREAMS_SQL = `ALTER TABLE events
  ADD COLUMN seq bigserial,
  ADD COLUMN xid xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX events_stream ON events (account_id, env, xid, seq);
CREATE TABLE event_consumers (
  account_id text COLLATE "C" NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  env text COLLATE "C" NOT NULL,
  last_seen_at_ms int8 NOT NULL,
  PRIMARY KEY (account_id, env)
);`
