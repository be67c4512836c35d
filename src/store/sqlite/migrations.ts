import type { Database } from "bun:sqlite"
import { CALLS_SQL } from "./migration-24-calls"
import { CALL_ENVIRONMENTS_SQL } from "./migration-27-call-environments"
import { CHATS_SQL } from "./migration-28-chats"
import { CHAT_ALIASES_SQL } from "./migration-31-chat-aliases"
import { HISTORY_SETTINGS_SQL } from "./history-settings"
import { CHAT_INBOX_INDEXES_SQL } from "../chat-inbox-indexes"

/** One forward-only schema change, shipped inside the binary. */
export interface Migration {
  version: number
  name: string
  up(db: Database): void
}

/*
 * Conventions: epoch milliseconds in INTEGER columns named *_ms, snake_case, STRICT tables.
 * Every query filters by (account_id, env), so every index starts with those two columns.
 */
const INITIAL = `
CREATE TABLE settings (
  key TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

CREATE TABLE accounts (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL,
  email TEXT NOT NULL,
  subscription_status TEXT NOT NULL DEFAULT 'active' CHECK (subscription_status IN ('active', 'inactive')),
  rate_limit_per_minute INTEGER,
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL
) STRICT;

CREATE TABLE api_keys (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  env TEXT NOT NULL CHECK (env IN ('test', 'live')),
  key_hash TEXT NOT NULL UNIQUE,
  prefix TEXT NOT NULL,
  last4 TEXT NOT NULL,
  name TEXT NOT NULL,
  scopes TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL,
  last_used_at_ms INTEGER,
  expires_at_ms INTEGER,
  revoked_at_ms INTEGER
) STRICT;
CREATE INDEX api_keys_account ON api_keys (account_id, created_at_ms);

CREATE TABLE phones (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  phone_number TEXT NOT NULL UNIQUE,
  display_name TEXT NOT NULL,
  connection_status TEXT NOT NULL DEFAULT 'unpaired',
  last_connected_at_ms INTEGER,
  last_disconnected_at_ms INTEGER,
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX phones_account ON phones (account_id, created_at_ms);

-- seq numbers an account's messages per environment densely from 1, so that a page of the
-- unfiltered list is an index seek on seq instead of an OFFSET walk (docs/performance.md § "What the numbers say").
CREATE TABLE messages (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  env TEXT NOT NULL CHECK (env IN ('test', 'live')),
  seq INTEGER NOT NULL,
  phone_id TEXT NOT NULL,
  api_key_id TEXT NOT NULL,
  from_number TEXT NOT NULL,
  to_address TEXT NOT NULL,
  is_group INTEGER NOT NULL,
  content TEXT NOT NULL,
  media_urls TEXT NOT NULL,
  status TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'delivered', 'read', 'failed')),
  idempotency_key TEXT,
  request_fingerprint TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL,
  sent_at_ms INTEGER,
  delivered_at_ms INTEGER,
  read_at_ms INTEGER,
  failed_at_ms INTEGER,
  error_code TEXT,
  error_message TEXT,
  updated_at_ms INTEGER NOT NULL
) STRICT;
CREATE UNIQUE INDEX messages_seq ON messages (account_id, env, seq);
CREATE INDEX messages_status ON messages (account_id, env, status, seq);
CREATE INDEX messages_phone ON messages (account_id, env, phone_id, seq);
CREATE UNIQUE INDEX messages_idempotency ON messages (account_id, env, idempotency_key) WHERE idempotency_key IS NOT NULL;

-- Counters kept in the same transaction as the rows they count, so no request ever runs COUNT(*).
CREATE TABLE message_sequences (
  account_id TEXT NOT NULL,
  env TEXT NOT NULL,
  last_seq INTEGER NOT NULL,
  PRIMARY KEY (account_id, env)
) STRICT, WITHOUT ROWID;

CREATE TABLE message_counts (
  account_id TEXT NOT NULL,
  env TEXT NOT NULL,
  phone_id TEXT NOT NULL,
  status TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (account_id, env, phone_id, status)
) STRICT, WITHOUT ROWID;

CREATE TABLE message_daily_counts (
  account_id TEXT NOT NULL,
  env TEXT NOT NULL,
  day_ms INTEGER NOT NULL,
  status TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (account_id, env, day_ms, status)
) STRICT, WITHOUT ROWID;

CREATE TABLE api_request_daily_counts (
  account_id TEXT NOT NULL,
  env TEXT NOT NULL,
  day_ms INTEGER NOT NULL,
  successful INTEGER NOT NULL,
  failed INTEGER NOT NULL,
  PRIMARY KEY (account_id, env, day_ms)
) STRICT, WITHOUT ROWID;

-- Status changes the sandbox has promised (delivered/read at a fixed delay); rows survive a
-- restart and are deleted when applied.
CREATE TABLE sandbox_transitions (
  message_id TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  status TEXT NOT NULL CHECK (status IN ('delivered', 'read')),
  due_at_ms INTEGER NOT NULL,
  PRIMARY KEY (message_id, status)
) STRICT, WITHOUT ROWID;
CREATE INDEX sandbox_transitions_due ON sandbox_transitions (due_at_ms);

CREATE TABLE inbound_messages (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  env TEXT NOT NULL CHECK (env IN ('test', 'live')),
  seq INTEGER NOT NULL,
  phone_id TEXT NOT NULL,
  wa_message_id TEXT NOT NULL,
  from_address TEXT NOT NULL,
  to_number TEXT NOT NULL,
  content TEXT NOT NULL,
  type TEXT NOT NULL,
  is_group INTEGER NOT NULL,
  group_id TEXT,
  received_at_ms INTEGER NOT NULL,
  created_at_ms INTEGER NOT NULL
) STRICT;
CREATE UNIQUE INDEX inbound_seq ON inbound_messages (account_id, env, seq);
CREATE INDEX inbound_phone ON inbound_messages (account_id, env, phone_id, seq);
CREATE UNIQUE INDEX inbound_dedupe ON inbound_messages (phone_id, wa_message_id);

CREATE TABLE inbound_counts (
  account_id TEXT NOT NULL,
  env TEXT NOT NULL,
  phone_id TEXT NOT NULL,
  n INTEGER NOT NULL,
  PRIMARY KEY (account_id, env, phone_id)
) STRICT, WITHOUT ROWID;
`

const WEBHOOKS = `
-- The signing secret is kept in clear: an HMAC cannot be computed from a hash. During a
-- rotation the previous secret keeps signing beside the new one until its expiry.
CREATE TABLE webhook_endpoints (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  env TEXT NOT NULL CHECK (env IN ('test', 'live')),
  url TEXT NOT NULL,
  events TEXT NOT NULL,
  enabled INTEGER NOT NULL,
  secret TEXT NOT NULL,
  previous_secret TEXT,
  previous_secret_expires_at_ms INTEGER,
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX webhook_endpoints_account ON webhook_endpoints (account_id, env);

-- The outbox: one row per event, written in the transaction of the change that caused it. The
-- body is stored as sent, so every attempt carries the same bytes (only the signature changes).
CREATE TABLE events (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  env TEXT NOT NULL,
  type TEXT NOT NULL,
  body TEXT NOT NULL,
  occurred_at_ms INTEGER NOT NULL
) STRICT;

CREATE TABLE webhook_deliveries (
  id TEXT PRIMARY KEY,
  event_id TEXT NOT NULL REFERENCES events(id) ON DELETE CASCADE,
  endpoint_id TEXT NOT NULL REFERENCES webhook_endpoints(id) ON DELETE CASCADE,
  status TEXT NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  attempt_count INTEGER NOT NULL,
  first_attempt_at_ms INTEGER,
  next_attempt_at_ms INTEGER,
  last_status_code INTEGER,
  last_error TEXT,
  resent_from TEXT,
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at_ms) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_endpoint ON webhook_deliveries (endpoint_id, created_at_ms, id);

CREATE TABLE webhook_attempts (
  delivery_id TEXT NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
  attempt_number INTEGER NOT NULL,
  attempted_at_ms INTEGER NOT NULL,
  status_code INTEGER,
  error TEXT,
  latency_ms INTEGER NOT NULL,
  response_body TEXT,
  PRIMARY KEY (delivery_id, attempt_number)
) STRICT, WITHOUT ROWID;
`

const LIVE = `
-- Baileys credentials and Signal keys, per phone, so the data directory is the whole state.
CREATE TABLE wa_creds (
  phone_id TEXT PRIMARY KEY,
  data TEXT NOT NULL,
  updated_at_ms INTEGER NOT NULL
) STRICT;

CREATE TABLE wa_keys (
  phone_id TEXT NOT NULL,
  type TEXT NOT NULL,
  id TEXT NOT NULL,
  data TEXT NOT NULL,
  PRIMARY KEY (phone_id, type, id)
) STRICT, WITHOUT ROWID;

-- One WhatsApp message per part of a live message (the text, or each media URL). The WhatsApp
-- id is derived from the msg_ id, so a part re-sent after a crash keeps it.
CREATE TABLE message_parts (
  message_id TEXT NOT NULL REFERENCES messages(id) ON DELETE CASCADE,
  part_index INTEGER NOT NULL,
  wa_message_id TEXT NOT NULL UNIQUE,
  media_url TEXT,
  status TEXT NOT NULL CHECK (status IN ('pending', 'sent', 'delivered', 'read', 'failed')),
  sent_at_ms INTEGER,
  delivered_at_ms INTEGER,
  read_at_ms INTEGER,
  failed_at_ms INTEGER,
  error_code TEXT,
  error_message TEXT,
  PRIMARY KEY (message_id, part_index)
) STRICT, WITHOUT ROWID;

-- The live send queue: one row per accepted live message until it is handed to WhatsApp.
CREATE TABLE send_jobs (
  message_id TEXT PRIMARY KEY REFERENCES messages(id) ON DELETE CASCADE,
  phone_id TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX send_jobs_phone ON send_jobs (phone_id, created_at_ms, message_id);
`

const PART_KINDS = `
-- The media kind of a part, recorded when it is first handed to WhatsApp. A re-send after a
-- reconnect or a restart places the caption (or the separate text message) from the kinds of
-- every part, the acknowledged ones included, so the text goes out exactly once.
ALTER TABLE message_parts ADD COLUMN media_kind TEXT;
`

const WEBHOOK_RETENTION = `
-- Retention finds old events by when they occurred, and deleting an event reaches its
-- deliveries through event_id (the foreign key's cascade and the "still pending?" check).
CREATE INDEX events_occurred ON events (occurred_at_ms);
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (event_id);
`

const PHONES_STAY_OFFLINE = `
-- Set while a phone is disconnected with no reconnect coming (the operator disconnected it, or
-- WhatsApp closed it for a reason retrying cannot fix), so a restart does not connect it again.
ALTER TABLE phones ADD COLUMN stays_offline INTEGER NOT NULL DEFAULT 0 CHECK (stays_offline IN (0, 1));
`

const PHONES_LAST_ERROR = `
-- Why the phone's last connect or pairing attempt failed (docs/live-whatsapp.md lists the codes);
-- all three are NULL once it connects.
ALTER TABLE phones ADD COLUMN last_error_code TEXT;
ALTER TABLE phones ADD COLUMN last_error_message TEXT;
ALTER TABLE phones ADD COLUMN last_error_at_ms INTEGER;
`

const DASHBOARD_SESSIONS = `
-- Signed-in dashboard sessions. Only the SHA-256 of the session id is stored, so a copy of the
-- database does not sign anyone in; the CSRF token is per session. admin_fingerprint names the
-- admin token the session was opened with: once the token changes, the session is over.
CREATE TABLE dashboard_sessions (
  id_hash TEXT PRIMARY KEY,
  csrf_token TEXT NOT NULL,
  admin_fingerprint TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL,
  last_seen_at_ms INTEGER NOT NULL
) STRICT, WITHOUT ROWID;
CREATE INDEX dashboard_sessions_last_seen ON dashboard_sessions (last_seen_at_ms);
`

const WA_RESEND_MESSAGES = `
-- The WhatsApp message (protobuf, as Baileys built and sent it) of each outbound part, so a
-- recipient device that could not decrypt it and sends a retry receipt gets it re-encrypted, from
-- its number or its LID, after a restart, however late (docs/live-whatsapp.md, "Retry receipts").
-- Kept WAGATE_WA_RESEND_RETENTION_DAYS after the send, then pruned oldest first.
CREATE TABLE wa_resend_messages (
  phone_id TEXT NOT NULL,
  wa_message_id TEXT NOT NULL,
  message BLOB NOT NULL,
  sent_at_ms INTEGER NOT NULL,
  PRIMARY KEY (phone_id, wa_message_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX wa_resend_messages_sent ON wa_resend_messages (sent_at_ms);
`

const SANDBOX_DUE_ON_MESSAGES = `
-- The sandbox's promised status changes move onto the message row: a send writes one row
-- instead of three, and the scheduler applies whatever is due in one sweep per tick
-- (docs/performance.md, "What the numbers say"). A column is NULL once its change is applied, or
-- if none was promised. Read is never due before delivered (the configuration refuses it), so
-- the COALESCE of the two is the earliest pending change, which the partial index orders.
ALTER TABLE messages ADD COLUMN sandbox_delivered_due_ms INTEGER;
ALTER TABLE messages ADD COLUMN sandbox_read_due_ms INTEGER;
UPDATE messages SET
  sandbox_delivered_due_ms = (SELECT due_at_ms FROM sandbox_transitions t WHERE t.message_id = messages.id AND t.status = 'delivered'),
  sandbox_read_due_ms = (SELECT due_at_ms FROM sandbox_transitions t WHERE t.message_id = messages.id AND t.status = 'read')
  WHERE id IN (SELECT message_id FROM sandbox_transitions);
DROP TABLE sandbox_transitions;
CREATE INDEX messages_sandbox_due ON messages (COALESCE(sandbox_delivered_due_ms, sandbox_read_due_ms))
  WHERE COALESCE(sandbox_delivered_due_ms, sandbox_read_due_ms) IS NOT NULL;
`

const MESSAGE_KINDS = `
-- A message may quote another (reply_to: a msg_ or inmsg_ id of the same account and
-- environment) and carry more than text and media: extras is JSON with its mentions, location,
-- contact card or voice-note flag (docs/api.md, "Send"), NULL for a plain text or media message,
-- so every row written before this migration reads as it did.
ALTER TABLE messages ADD COLUMN reply_to TEXT;
ALTER TABLE messages ADD COLUMN extras TEXT;
`

const MESSAGE_ACTIONS = `
-- Edits and revokes of our own messages (docs/api.md § "Act on a message"): when each happened;
-- the row and its content stay (an edit replaces the content). Inbound messages remember when a
-- read receipt covered them, so marking a chat read sends receipts only for what is still unread;
-- the partial index holds only unread rows, by chat, for that lookup.
ALTER TABLE messages ADD COLUMN edited_at_ms INTEGER;
ALTER TABLE messages ADD COLUMN revoked_at_ms INTEGER;
ALTER TABLE inbound_messages ADD COLUMN read_at_ms INTEGER;
CREATE INDEX inbound_unread_chat ON inbound_messages (phone_id, COALESCE(group_id, from_address), seq)
  WHERE read_at_ms IS NULL;
`

const INBOUND_RICHER = `
-- Inbound messages keep what they quote, their attachment (what the API shows and the adapter's
-- descriptor to fetch it again), a location or contact card, and whether the sender edited or
-- deleted them. media_gone_at_ms is set once WhatsApp no longer has the file (after one re-upload
-- request), so later requests answer 410 without asking again.
ALTER TABLE inbound_messages ADD COLUMN reply_to_id TEXT;
ALTER TABLE inbound_messages ADD COLUMN media_json TEXT;
ALTER TABLE inbound_messages ADD COLUMN media_gone_at_ms INTEGER;
ALTER TABLE inbound_messages ADD COLUMN location_json TEXT;
ALTER TABLE inbound_messages ADD COLUMN contact_json TEXT;
ALTER TABLE inbound_messages ADD COLUMN edited_at_ms INTEGER;
ALTER TABLE inbound_messages ADD COLUMN revoked_at_ms INTEGER;

-- One reaction per person per message (a new one replaces it; an empty emoji removes it).
-- target_id is a msg_ or inmsg_ id.
CREATE TABLE message_reactions (
  target_id TEXT NOT NULL,
  from_address TEXT NOT NULL,
  emoji TEXT NOT NULL,
  at_ms INTEGER NOT NULL,
  PRIMARY KEY (target_id, from_address)
) STRICT, WITHOUT ROWID;
`

const REPLY_INDEXES = `
-- A message's page lists the messages that quote it (docs/dashboard.md, "Messages"). Partial:
-- only rows that are replies are indexed, so a send without replyTo writes no index entry.
CREATE INDEX messages_reply_to ON messages (reply_to) WHERE reply_to IS NOT NULL;
CREATE INDEX inbound_reply_to ON inbound_messages (reply_to_id) WHERE reply_to_id IS NOT NULL;
`

const DELIVERY_CLAIMS = `
-- Claims on webhook deliveries (src/store/delivery-claims.ts): the node that holds one and when
-- it expires. A claim reads the due rows through webhook_deliveries_due, so no index of its own.
ALTER TABLE webhook_deliveries ADD COLUMN claimed_by TEXT;
ALTER TABLE webhook_deliveries ADD COLUMN claim_expires_at_ms INTEGER;
`

// Nodes and phone leases (src/store/leases.ts, docs/architecture.md § "Nodes and leases"). A
// lease row outlives its owner (node_id NULL once released) so that the fencing token keeps
// growing across owners; it goes with its phone.
const NODES_AND_LEASES = `
CREATE TABLE nodes (
  node_id TEXT PRIMARY KEY,
  instance_id TEXT NOT NULL,
  started_at_ms INTEGER NOT NULL,
  heartbeat_at_ms INTEGER NOT NULL,
  max_phones INTEGER NOT NULL,
  stopping INTEGER NOT NULL DEFAULT 0 CHECK (stopping IN (0, 1))
) STRICT;

CREATE TABLE phone_leases (
  phone_id TEXT PRIMARY KEY REFERENCES phones(id) ON DELETE CASCADE,
  node_id TEXT,
  token INTEGER NOT NULL,
  acquired_at_ms INTEGER NOT NULL,
  expires_at_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX phone_leases_node ON phone_leases (node_id) WHERE node_id IS NOT NULL;

-- Every phone has its lease row from its insert on (token 0, no owner), as on PostgreSQL.
CREATE TRIGGER phones_lease_row AFTER INSERT ON phones BEGIN
  INSERT INTO phone_leases (phone_id, node_id, token, acquired_at_ms, expires_at_ms) VALUES (NEW.id, NULL, 0, 0, 0)
  ON CONFLICT (phone_id) DO NOTHING;
END;
INSERT INTO phone_leases (phone_id, node_id, token, acquired_at_ms, expires_at_ms) SELECT id, NULL, 0, 0, 0 FROM phones;
`

// Shared token buckets of the keys' rate limits (src/store/rate-buckets.ts), as PostgreSQL
// migration 5. One process keeps its buckets in memory, so on SQLite the table stays empty
// outside the contract tests; it exists so that both stores have one meaning.
const RATE_BUCKETS = `
CREATE TABLE rate_buckets (
  key_id TEXT PRIMARY KEY REFERENCES api_keys(id) ON DELETE CASCADE,
  tokens REAL NOT NULL,
  granted INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL
) STRICT;
`

// The URL other nodes forward a request to when this node holds the phone it needs
// (WAGATE_NODE_URL, docs/operations.md § "Running several nodes"), as PostgreSQL migration 6.
// NULL: the node does not take forwarded requests. One process on SQLite registers no node row,
// so the column stays empty outside the contract tests.
const NODE_URLS = `ALTER TABLE nodes ADD COLUMN url TEXT;`

// Polls (src/store/polls.ts, docs/api.md § "Polls"): a poll by the message that carries it and by
// its WhatsApp id; votes by the poll's WhatsApp id, since a vote can be read before its poll is
// recorded, newest per voter; and votes kept encrypted until their poll's secret arrives, so no
// vote is lost to a restart, a failover or an order WhatsApp did not keep.
const POLLS = `
CREATE TABLE polls (
  message_id TEXT PRIMARY KEY,
  phone_id TEXT NOT NULL,
  wa_message_id TEXT NOT NULL,
  question TEXT NOT NULL,
  options TEXT NOT NULL,
  option_hashes TEXT NOT NULL,
  multiple_answers INTEGER NOT NULL CHECK (multiple_answers IN (0, 1)),
  created_at_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX polls_wa ON polls (phone_id, wa_message_id);
CREATE TABLE poll_votes (
  phone_id TEXT NOT NULL,
  poll_wa_message_id TEXT NOT NULL,
  voter TEXT NOT NULL,
  option_hashes TEXT NOT NULL,
  voted_at_ms INTEGER NOT NULL,
  PRIMARY KEY (phone_id, poll_wa_message_id, voter)
) STRICT, WITHOUT ROWID;
CREATE TABLE poll_pending_votes (
  phone_id TEXT NOT NULL,
  poll_wa_message_id TEXT NOT NULL,
  vote_wa_message_id TEXT NOT NULL,
  descriptor TEXT NOT NULL,
  received_at_ms INTEGER NOT NULL,
  PRIMARY KEY (phone_id, poll_wa_message_id, vote_wa_message_id)
) STRICT, WITHOUT ROWID;
`

const MESSAGE_SECRETS = `
-- The messageContextInfo.messageSecret of every WhatsApp message a phone sends or receives: an
-- edit that arrives as secretEncryptedMessage is encrypted with a key derived from the secret of
-- the message it edits (docs/live-whatsapp.md, "Encrypted edits"), and poll votes use the same.
-- A WhatsApp id is chosen by its sender, so chat and sender are part of the key; sender_alt_jid is
-- the sender's other identity (LID or number) when the message named both. Pruned 30 days after it
-- was stored, by the pass that prunes wa_resend_messages (src/domain/wa-resend-retention.ts).
CREATE TABLE wa_message_secrets (
  phone_id TEXT NOT NULL,
  chat_jid TEXT NOT NULL,
  wa_message_id TEXT NOT NULL,
  sender_jid TEXT NOT NULL,
  sender_alt_jid TEXT,
  secret BLOB NOT NULL,
  created_at_ms INTEGER NOT NULL,
  PRIMARY KEY (phone_id, wa_message_id, chat_jid, sender_jid)
) STRICT, WITHOUT ROWID;
CREATE INDEX wa_message_secrets_created ON wa_message_secrets (created_at_ms);
`
// When the offline-marker watchdog last released a phone's held inbound events because WhatsApp's
// <ib><offline> marker had not come (docs/live-whatsapp.md § "Receiving stalls"); NULL when never.
// PostgreSQL migration 9 adds the same column.
const PHONES_OFFLINE_WATCHDOG = `ALTER TABLE phones ADD COLUMN offline_watchdog_at_ms INTEGER;`
// What WhatsApp tells about the senders a phone hears from (docs/live-whatsapp.md § "Usernames and
// LID-only senders"), as PostgreSQL migration 8: the username a message carried, on the inbound
// message, and one row per sender and phone with the identities and names last seen. A sender is
// keyed by the address wagate records as `from` (E.164, or its `…@lid` when WhatsApp hid the
// number); a contacts API can grow from this table.
/** A phone's WhatsApp Business labels (src/store/labels.ts), as PostgreSQL migration 18. */
// Event streams (docs/webhooks.md § "Streams"): an account and environment with a stream seen
// lately keeps its events in the log even without a webhook endpoint. Streams read the log in
// rowid order, which is commit order with one writer, so events need no new column.
const EVENT_STREAMS = `
CREATE TABLE event_consumers (
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  env TEXT NOT NULL,
  last_seen_at_ms INTEGER NOT NULL,
  PRIMARY KEY (account_id, env)
) STRICT;
`

// The RabbitMQ publisher's row (src/store/amqp-publisher.ts), as PostgreSQL migration 22.
const AMQP_PUBLISHER = `
CREATE TABLE amqp_publisher (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  position TEXT,
  holder TEXT,
  lease_expires_at_ms INTEGER NOT NULL DEFAULT 0
) STRICT;
`

const LABELS = `
CREATE TABLE labels (
  phone_id TEXT NOT NULL REFERENCES phones(id) ON DELETE CASCADE,
  env TEXT NOT NULL,
  label_id TEXT NOT NULL,
  name TEXT NOT NULL,
  color INTEGER NOT NULL,
  deleted INTEGER NOT NULL DEFAULT 0,
  updated_at_ms INTEGER NOT NULL,
  PRIMARY KEY (phone_id, env, label_id)
) WITHOUT ROWID;
`

/** The sandbox's block lists (src/store/sandbox-blocks.ts). */
const SANDBOX_BLOCKS = `
CREATE TABLE sandbox_blocks (
  phone_id TEXT NOT NULL REFERENCES phones(id) ON DELETE CASCADE,
  contact TEXT NOT NULL,
  blocked_at_ms INTEGER NOT NULL,
  PRIMARY KEY (phone_id, contact)
) WITHOUT ROWID;
`

const WA_CONTACTS = `
ALTER TABLE inbound_messages ADD COLUMN from_username TEXT;
CREATE TABLE wa_contacts (
  phone_id TEXT NOT NULL REFERENCES phones(id) ON DELETE CASCADE,
  address TEXT NOT NULL,
  lid TEXT,
  phone_number TEXT,
  username TEXT,
  push_name TEXT,
  updated_at_ms INTEGER NOT NULL,
  PRIMARY KEY (phone_id, address)
) STRICT;
`
/*
 * Migration 22: what WhatsApp knows of the phone's client build, kept for `wagate doctor` and
 * the pairing state across restarts: the WhatsApp Web version its last connect announced, and
 * the expiry WhatsApp announced for that build (`<ib><client_expiration>`,
 * docs/live-whatsapp.md § "Client expiration"). Both NULL until known.
 */
const PHONES_WA_CLIENT = `
ALTER TABLE phones ADD COLUMN wa_version TEXT;
ALTER TABLE phones ADD COLUMN client_expires_at_ms INTEGER;
`

// Migration 25, as PostgreSQL migration 13: the groups a test key's sandbox holds
// (src/store/sandbox-groups.ts), one row per account and group, the state as one JSON document;
// and the live group creates made with an idempotency key, with the group and results they answered.
const SANDBOX_GROUPS = `
CREATE TABLE sandbox_groups (
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  group_id TEXT NOT NULL,
  state TEXT NOT NULL,
  idempotency_key TEXT,
  request_fingerprint TEXT,
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL,
  PRIMARY KEY (account_id, group_id)
) STRICT;
CREATE UNIQUE INDEX sandbox_groups_idempotency ON sandbox_groups (account_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
CREATE TABLE group_creations (
  account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
  idempotency_key TEXT NOT NULL,
  request_fingerprint TEXT NOT NULL,
  phone_id TEXT NOT NULL REFERENCES phones(id) ON DELETE CASCADE,
  group_id TEXT NOT NULL,
  results TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL,
  PRIMARY KEY (account_id, idempotency_key)
) STRICT;
`

/** Every migration, in order. Append only; never edit one that has shipped. */
export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: "initial",
    up: (db) => db.exec(INITIAL),
  },
  {
    version: 2,
    name: "webhooks",
    up: (db) => db.exec(WEBHOOKS),
  },
  {
    version: 3,
    name: "live whatsapp",
    up: (db) => db.exec(LIVE),
  },
  {
    version: 4,
    name: "part media kinds",
    up: (db) => db.exec(PART_KINDS),
  },
  {
    version: 5,
    name: "webhook retention",
    up: (db) => db.exec(WEBHOOK_RETENTION),
  },
  {
    version: 6,
    name: "phones stay offline",
    up: (db) => db.exec(PHONES_STAY_OFFLINE),
  },
  {
    version: 7,
    name: "phones last error",
    up: (db) => db.exec(PHONES_LAST_ERROR),
  },
  {
    version: 8,
    name: "dashboard sessions",
    up: (db) => db.exec(DASHBOARD_SESSIONS),
  },
  {
    version: 9,
    name: "sandbox due times on messages",
    up: (db) => db.exec(SANDBOX_DUE_ON_MESSAGES),
  },
  {
    version: 10,
    name: "stored WhatsApp messages for retry receipts",
    up: (db) => db.exec(WA_RESEND_MESSAGES),
  },
  {
    version: 11,
    name: "replies and message kinds",
    up: (db) => db.exec(MESSAGE_KINDS),
  },
  {
    version: 12,
    name: "message edits, revokes and inbound reads",
    up: (db) => db.exec(MESSAGE_ACTIONS),
  },
  {
    version: 13,
    name: "inbound media, replies, locations, contacts, reactions, edits and revokes",
    up: (db) => db.exec(INBOUND_RICHER),
  },
  {
    version: 14,
    name: "indexes of replies",
    up: (db) => db.exec(REPLY_INDEXES),
  },
  {
    version: 15,
    name: "webhook delivery claims",
    up: (db) => db.exec(DELIVERY_CLAIMS),
  },
  {
    version: 16,
    name: "nodes and phone leases",
    up: (db) => db.exec(NODES_AND_LEASES),
  },
  {
    version: 17,
    name: "shared rate-limit buckets",
    up: (db) => db.exec(RATE_BUCKETS),
  },
  {
    version: 18,
    name: "node URLs for forwarded requests",
    up: (db) => db.exec(NODE_URLS),
  },
  {
    version: 19,
    name: "message secrets",
    up: (db) => db.exec(MESSAGE_SECRETS),
  },
  {
    version: 20,
    name: "usernames and WhatsApp contacts",
    up: (db) => db.exec(WA_CONTACTS),
  },
  {
    version: 21,
    name: "offline-marker watchdog on phones",
    up: (db) => db.exec(PHONES_OFFLINE_WATCHDOG),
  },
  {
    version: 22,
    name: "phones' WhatsApp Web version and client expiry",
    up: (db) => db.exec(PHONES_WA_CLIENT),
  },
  {
    version: 23,
    name: "polls and their votes",
    up: (db) => db.exec(POLLS),
  },
  {
    version: 24,
    name: "calls and call policies",
    up: (db) => db.exec(CALLS_SQL),
  },
  {
    version: 25,
    name: "sandbox groups",
    up: (db) => db.exec(SANDBOX_GROUPS),
  },
  {
    version: 26,
    name: "sandbox block lists",
    up: (db) => db.exec(SANDBOX_BLOCKS),
  },
  {
    version: 27,
    name: "calls and call replies by environment",
    up: (db) => db.exec(CALL_ENVIRONMENTS_SQL),
  },
  {
    version: 28,
    name: "chats, the phone's own and history messages, and contacts",
    up: (db) => db.exec(CHATS_SQL),
  },
  {
    version: 29,
    name: "history settings per phone",
    up: (db) => db.exec(HISTORY_SETTINGS_SQL),
  },
  {
    version: 30,
    name: "WhatsApp Business labels",
    up: (db) => db.exec(LABELS),
  },
  {
    version: 31,
    name: "one chat per contact by number and LID, revoked previews, history retention index",
    up: (db) => db.exec(CHAT_ALIASES_SQL),
  },
  {
    version: 32,
    name: "the inbox order's indexes on chats",
    up: (db) => db.exec(CHAT_INBOX_INDEXES_SQL),
  },
  {
    version: 33,
    name: "event stream consumers",
    up: (db) => db.exec(EVENT_STREAMS),
  },
  {
    version: 34,
    name: "the RabbitMQ publisher's cursor and lease",
    up: (db) => db.exec(AMQP_PUBLISHER),
  },
]
