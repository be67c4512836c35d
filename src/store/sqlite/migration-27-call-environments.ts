/*
 * SQLite migration 27: calls and the call policy's replies belong to an environment, as
 * PostgreSQL migration 15. The sandbox simulates incoming calls (docs/api.md § "Sandbox inbound
 * and calls"), so a test key's call must stay invisible to live keys and a live key's to test
 * keys (docs/decisions.md § "Environments"), and a simulated caller's reply window must not hold
 * back a real caller's reply. Every call recorded before was a live phone's. `call_replies` is
 * rebuilt because its key gains the environment.
 */
export const CALL_ENVIRONMENTS_SQL = `
ALTER TABLE calls ADD COLUMN env TEXT NOT NULL DEFAULT 'live' CHECK (env IN ('test', 'live'));
CREATE TABLE call_replies_by_env (
  phone_id TEXT NOT NULL REFERENCES phones(id) ON DELETE CASCADE,
  env TEXT NOT NULL CHECK (env IN ('test', 'live')),
  caller TEXT NOT NULL,
  replied_at_ms INTEGER NOT NULL,
  PRIMARY KEY (phone_id, env, caller)
) STRICT;
INSERT INTO call_replies_by_env (phone_id, env, caller, replied_at_ms) SELECT phone_id, 'live', caller, replied_at_ms FROM call_replies;
DROP TABLE call_replies;
ALTER TABLE call_replies_by_env RENAME TO call_replies;
`
