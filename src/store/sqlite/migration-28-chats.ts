import { backfillChats, backfillContacts, chatOfChatMessage, chatOfInboundMessage, chatOfSentMessage, chatReadOfInbound, contactOfInboundMessage, contactOfWaContact, type ChatSqlDialect } from "../chat-sql"

/*
 * SQLite migration 28, as PostgreSQL migration 16: chats, the phone's own and history messages,
 * and contacts (src/store/chats.ts). Triggers keep `chats` and `contacts` in step with every
 * insert into the message tables; the indexes serve a chat's timeline as three index seeks
 * (one per message table) and the chat list as one. The backfill gives an upgraded install its
 * chats and contacts from what it already holds.
 */

const SQLITE: ChatSqlDialect = {
  greatest: "max",
  no: "0",
  yes: "1",
  hasKey: (json, key) => `json_extract(${json}, '$.${key}') IS NOT NULL`,
}

const TABLES = `
CREATE TABLE chats (
  phone_id TEXT NOT NULL,
  env TEXT NOT NULL CHECK (env IN ('test', 'live')),
  chat_id TEXT NOT NULL,
  name TEXT,
  is_group INTEGER NOT NULL,
  unread_count INTEGER NOT NULL DEFAULT 0,
  last_activity_ms INTEGER NOT NULL,
  last_message_id TEXT,
  last_direction TEXT,
  last_type TEXT,
  last_preview TEXT,
  archived INTEGER NOT NULL DEFAULT 0,
  pinned INTEGER NOT NULL DEFAULT 0,
  muted_until_ms INTEGER,
  labels TEXT NOT NULL DEFAULT '[]',
  updated_at_ms INTEGER NOT NULL,
  PRIMARY KEY (phone_id, env, chat_id)
) STRICT, WITHOUT ROWID;
CREATE INDEX chats_activity ON chats (phone_id, env, last_activity_ms, chat_id);

CREATE TABLE chat_messages (
  id TEXT PRIMARY KEY,
  account_id TEXT NOT NULL,
  env TEXT NOT NULL CHECK (env IN ('test', 'live')),
  phone_id TEXT NOT NULL,
  wa_message_id TEXT NOT NULL,
  chat_id TEXT NOT NULL,
  origin TEXT NOT NULL CHECK (origin IN ('phone', 'history')),
  direction TEXT NOT NULL CHECK (direction IN ('in', 'out')),
  from_address TEXT NOT NULL,
  type TEXT NOT NULL,
  content TEXT NOT NULL,
  media_json TEXT,
  location_json TEXT,
  contact_json TEXT,
  poll_json TEXT,
  reply_to_id TEXT,
  status TEXT,
  edited_at_ms INTEGER,
  revoked_at_ms INTEGER,
  at_ms INTEGER NOT NULL,
  created_at_ms INTEGER NOT NULL
) STRICT;
CREATE UNIQUE INDEX chat_messages_wa ON chat_messages (phone_id, wa_message_id);
CREATE INDEX chat_messages_chat ON chat_messages (phone_id, env, chat_id, at_ms, id);

CREATE TABLE contacts (
  phone_id TEXT NOT NULL,
  env TEXT NOT NULL CHECK (env IN ('test', 'live')),
  contact_id TEXT NOT NULL,
  phone_number TEXT,
  lid TEXT,
  name TEXT,
  push_name TEXT,
  is_business INTEGER NOT NULL DEFAULT 0,
  blocked INTEGER NOT NULL DEFAULT 0,
  updated_at_ms INTEGER NOT NULL,
  PRIMARY KEY (phone_id, env, contact_id)
) STRICT, WITHOUT ROWID;

CREATE INDEX messages_chat ON messages (phone_id, env, to_address, created_at_ms, id);
CREATE INDEX inbound_chat ON inbound_messages (phone_id, env, COALESCE(group_id, from_address), received_at_ms, id);
`

const TRIGGERS = `
CREATE TRIGGER messages_chat_touch AFTER INSERT ON messages BEGIN
  ${chatOfSentMessage(SQLITE)};
END;
CREATE TRIGGER inbound_chat_touch AFTER INSERT ON inbound_messages BEGIN
  ${chatOfInboundMessage(SQLITE)};
  ${contactOfInboundMessage()};
END;
CREATE TRIGGER inbound_chat_read AFTER UPDATE OF read_at_ms ON inbound_messages
  WHEN OLD.read_at_ms IS NULL AND NEW.read_at_ms IS NOT NULL BEGIN
  ${chatReadOfInbound(SQLITE)};
END;
CREATE TRIGGER chat_messages_chat_touch AFTER INSERT ON chat_messages BEGIN
  ${chatOfChatMessage(SQLITE)};
END;
CREATE TRIGGER wa_contacts_contact_insert AFTER INSERT ON wa_contacts BEGIN
  ${contactOfWaContact(SQLITE)};
END;
CREATE TRIGGER wa_contacts_contact_update AFTER UPDATE ON wa_contacts BEGIN
  ${contactOfWaContact(SQLITE)};
END;
`

/** The whole migration: tables, the backfill of what the install holds, then the triggers. */
export const CHATS_SQL = `${TABLES}
${backfillChats(SQLITE)};
${backfillContacts()};
${TRIGGERS}`
