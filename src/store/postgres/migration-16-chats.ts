import { backfillChats, backfillContacts, chatOfChatMessage, chatOfInboundMessage, chatOfSentMessage, chatReadOfInbound, contactOfInboundMessage, contactOfWaContact, type ChatSqlDialect } from "../chat-sql"

/*
 * PostgreSQL migration 16, as SQLite migration 28 (src/store/sqlite/migration-28-chats.ts): chats,
 * the phone's own and history messages, contacts, the timeline's indexes, the backfill, and the
 * trigger functions that keep chats and contacts in step with every insert. An import
 * (src/store/postgres/import.ts) sets `wagate.importing` for its transaction: the imported
 * `chats` and `contacts` rows are the SQLite install's own, so the triggers stand aside.
 */

const PG: ChatSqlDialect = {
  greatest: "GREATEST",
  no: "false",
  yes: "true",
  hasKey: (json, key) => `(${json})::jsonb -> '${key}' IS NOT NULL`,
}

const TABLES = `
CREATE TABLE chats (
  phone_id text COLLATE "C" NOT NULL,
  env text COLLATE "C" NOT NULL CHECK (env IN ('test', 'live')),
  chat_id text COLLATE "C" NOT NULL,
  name text COLLATE "C",
  is_group boolean NOT NULL,
  unread_count int4 NOT NULL DEFAULT 0,
  last_activity_ms int8 NOT NULL,
  last_message_id text COLLATE "C",
  last_direction text COLLATE "C",
  last_type text COLLATE "C",
  last_preview text COLLATE "C",
  archived boolean NOT NULL DEFAULT false,
  pinned boolean NOT NULL DEFAULT false,
  muted_until_ms int8,
  labels text COLLATE "C" NOT NULL DEFAULT '[]',
  updated_at_ms int8 NOT NULL,
  PRIMARY KEY (phone_id, env, chat_id)
);
CREATE INDEX chats_activity ON chats (phone_id, env, last_activity_ms, chat_id);

CREATE TABLE chat_messages (
  id text COLLATE "C" PRIMARY KEY,
  account_id text COLLATE "C" NOT NULL,
  env text COLLATE "C" NOT NULL CHECK (env IN ('test', 'live')),
  phone_id text COLLATE "C" NOT NULL,
  wa_message_id text COLLATE "C" NOT NULL,
  chat_id text COLLATE "C" NOT NULL,
  origin text COLLATE "C" NOT NULL CHECK (origin IN ('phone', 'history')),
  direction text COLLATE "C" NOT NULL CHECK (direction IN ('in', 'out')),
  from_address text COLLATE "C" NOT NULL,
  type text COLLATE "C" NOT NULL,
  content text COLLATE "C" NOT NULL,
  media_json text COLLATE "C",
  location_json text COLLATE "C",
  contact_json text COLLATE "C",
  poll_json text COLLATE "C",
  reply_to_id text COLLATE "C",
  status text COLLATE "C",
  edited_at_ms int8,
  revoked_at_ms int8,
  at_ms int8 NOT NULL,
  created_at_ms int8 NOT NULL
);
CREATE UNIQUE INDEX chat_messages_wa ON chat_messages (phone_id, wa_message_id);
CREATE INDEX chat_messages_chat ON chat_messages (phone_id, env, chat_id, at_ms, id);

CREATE TABLE contacts (
  phone_id text COLLATE "C" NOT NULL,
  env text COLLATE "C" NOT NULL CHECK (env IN ('test', 'live')),
  contact_id text COLLATE "C" NOT NULL,
  phone_number text COLLATE "C",
  lid text COLLATE "C",
  name text COLLATE "C",
  push_name text COLLATE "C",
  is_business boolean NOT NULL DEFAULT false,
  blocked boolean NOT NULL DEFAULT false,
  updated_at_ms int8 NOT NULL,
  PRIMARY KEY (phone_id, env, contact_id)
);

CREATE INDEX messages_chat ON messages (phone_id, env, to_address, created_at_ms, id);
CREATE INDEX inbound_chat ON inbound_messages (phone_id, env, (COALESCE(group_id, from_address)), received_at_ms, id);
`

/** A trigger function running `statements`, unless an import is loading the rows. */
function triggerFunction(name: string, statements: readonly string[]): string {
  return `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF current_setting('wagate.importing', true) = 'on' THEN RETURN NULL; END IF;
  ${statements.join(";\n  ")};
  RETURN NULL;
END $fn$;`
}

const TRIGGERS = `
${triggerFunction("chats_touch_sent", [chatOfSentMessage(PG)])}
CREATE TRIGGER messages_chat_touch AFTER INSERT ON messages FOR EACH ROW EXECUTE FUNCTION chats_touch_sent();
${triggerFunction("chats_touch_inbound", [chatOfInboundMessage(PG), contactOfInboundMessage()])}
CREATE TRIGGER inbound_chat_touch AFTER INSERT ON inbound_messages FOR EACH ROW EXECUTE FUNCTION chats_touch_inbound();
${triggerFunction("chats_read_inbound", [chatReadOfInbound(PG)])}
CREATE TRIGGER inbound_chat_read AFTER UPDATE OF read_at_ms ON inbound_messages FOR EACH ROW
  WHEN (OLD.read_at_ms IS NULL AND NEW.read_at_ms IS NOT NULL) EXECUTE FUNCTION chats_read_inbound();
${triggerFunction("chats_touch_chat_message", [chatOfChatMessage(PG)])}
CREATE TRIGGER chat_messages_chat_touch AFTER INSERT ON chat_messages FOR EACH ROW EXECUTE FUNCTION chats_touch_chat_message();
${triggerFunction("contacts_of_wa_contact", [contactOfWaContact(PG)])}
CREATE TRIGGER wa_contacts_contact AFTER INSERT OR UPDATE ON wa_contacts FOR EACH ROW EXECUTE FUNCTION contacts_of_wa_contact();
`

export const CHATS_SQL = `${TABLES}
${backfillChats(PG)};
${backfillContacts()};
${TRIGGERS}`
