/* PostgreSQL migration 15: calls and the call policy's replies belong to an environment, as SQLite migration 27 (src/store/sqlite/migration-27-call-environments.ts says why). */
export const CALL_ENVIRONMENTS_SQL = `ALTER TABLE calls ADD COLUMN env text COLLATE "C" NOT NULL DEFAULT 'live' CHECK (env IN ('test', 'live'));
ALTER TABLE call_replies ADD COLUMN env text COLLATE "C" NOT NULL DEFAULT 'live' CHECK (env IN ('test', 'live'));
ALTER TABLE call_replies DROP CONSTRAINT call_replies_pkey;
ALTER TABLE call_replies ADD PRIMARY KEY (phone_id, env, caller);`
