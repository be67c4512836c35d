/*
 * PostgreSQL migration 11, as SQLite migration 23: the groups a test key's sandbox holds
 * (src/store/sandbox-groups.ts), one row per account and group, the state as one JSON document.
 */
export const SANDBOX_GROUPS_SQL = `CREATE TABLE sandbox_groups (
  account_id text COLLATE "C" NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  group_id text COLLATE "C" NOT NULL,
  state text COLLATE "C" NOT NULL,
  idempotency_key text COLLATE "C",
  request_fingerprint text COLLATE "C",
  created_at_ms int8 NOT NULL,
  updated_at_ms int8 NOT NULL,
  PRIMARY KEY (account_id, group_id)
);
CREATE UNIQUE INDEX sandbox_groups_idempotency ON sandbox_groups (account_id, idempotency_key) WHERE idempotency_key IS NOT NULL;`
