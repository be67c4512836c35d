/*
 * SQLite migration 24: incoming calls and the per-phone call policy (docs/api.md § "Calls"), as
 * PostgreSQL migration 12. `calls` holds each call a phone was offered until it is pruned (30 days,
 * src/domain/calls.ts), so a reject by API and the call's end are judged from the row on any node;
 * `call_policies` one row per phone that has a policy; `call_replies` when each caller last got the
 * policy's reply text, so it goes out at most once an hour across restarts and nodes.
 */
export const CALLS_SQL = `
CREATE TABLE calls (
  phone_id TEXT NOT NULL REFERENCES phones(id) ON DELETE CASCADE,
  call_id TEXT NOT NULL,
  caller TEXT NOT NULL,
  caller_jid TEXT NOT NULL,
  is_video INTEGER NOT NULL,
  is_group INTEGER NOT NULL,
  offered_at_ms INTEGER NOT NULL,
  ended_at_ms INTEGER,
  outcome TEXT,
  PRIMARY KEY (phone_id, call_id)
) STRICT;
CREATE INDEX calls_offered ON calls (phone_id, offered_at_ms);
CREATE TABLE call_policies (
  phone_id TEXT PRIMARY KEY REFERENCES phones(id) ON DELETE CASCADE,
  reject_calls INTEGER NOT NULL,
  reply_text TEXT,
  updated_at_ms INTEGER NOT NULL
) STRICT;
CREATE TABLE call_replies (
  phone_id TEXT NOT NULL REFERENCES phones(id) ON DELETE CASCADE,
  caller TEXT NOT NULL,
  replied_at_ms INTEGER NOT NULL,
  PRIMARY KEY (phone_id, caller)
) STRICT;
`
