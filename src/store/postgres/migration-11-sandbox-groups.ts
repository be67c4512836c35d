/*
 * PostgreSQL migration 11, as SQLite migration 23: the groups a test key's sandbox holds
 * (src/store/sandbox-groups.ts), one row per account and group, the state as one JSON document;
 * and the live group creates made with an idempotency key, with the group and results they answered.
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
CREATE UNIQUE INDEX sandbox_groups_idempotency ON sandbox_groups (account_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE TABLE group_creations (
  account_id text COLLATE "C" NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  idempotency_key text COLLATE "C" NOT NULL,
  request_fingerprint text COLLATE "C" NOT NULL,
  phone_id text COLLATE "C" NOT NULL REFERENCES phones(id) ON DELETE CASCADE,
  group_id text COLLATE "C" NOT NULL,
  results text COLLATE "C" NOT NULL,
  created_at_ms int8 NOT NULL,
  PRIMARY KEY (account_id, idempotency_key)
);`
