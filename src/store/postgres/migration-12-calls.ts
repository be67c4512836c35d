/* PostgreSQL migration 12: incoming calls and the per-phone call policy, as SQLite migration 24 (src/store/sqlite/migration-24-calls.ts says why each table). */
export const CALLS_SQL = `CREATE TABLE calls (
  phone_id text COLLATE "C" NOT NULL REFERENCES phones(id) ON DELETE CASCADE,
  call_id text COLLATE "C" NOT NULL,
  caller text COLLATE "C" NOT NULL,
  caller_jid text COLLATE "C" NOT NULL,
  is_video boolean NOT NULL,
  is_group boolean NOT NULL,
  offered_at_ms int8 NOT NULL,
  ended_at_ms int8,
  outcome text COLLATE "C",
  PRIMARY KEY (phone_id, call_id)
);
CREATE INDEX calls_offered ON calls (phone_id, offered_at_ms);
CREATE TABLE call_policies (
  phone_id text COLLATE "C" PRIMARY KEY REFERENCES phones(id) ON DELETE CASCADE,
  reject_calls boolean NOT NULL,
  reply_text text COLLATE "C",
  updated_at_ms int8 NOT NULL
);
CREATE TABLE call_replies (
  phone_id text COLLATE "C" NOT NULL REFERENCES phones(id) ON DELETE CASCADE,
  caller text COLLATE "C" NOT NULL,
  replied_at_ms int8 NOT NULL,
  PRIMARY KEY (phone_id, caller)
);`
