import { chatOfChatMessage, chatOfInboundMessage, chatOfSentMessage, chatReadOfInbound, type ChatSqlDialect } from "./chat-sql"

/*
 * One chat per contact, and no deleted text in a chat's preview: the statements of SQLite
 * migration 31 and PostgreSQL migration 19, written once for both (as src/store/chat-sql.ts).
 *
 * WhatsApp addresses one contact by number or by LID (`…@lid`). The chat is kept under the number
 * once the phone knows the mapping (a contact row holding both `phone_number` and `lid`), the id
 * docs/api.md § "Chats and contacts" promises: the insert triggers resolve a `…@lid` through the
 * contacts, and a mapping learned later folds the LID's chat into the number's. The message rows
 * keep the address they arrived with (the seed's inbound list shows it); the timeline reads both
 * ids (src/store/sqlite/chats.ts, chatAliases).
 */

/** The canonical chat id of `chatId` (an SQL expression over NEW): the number a `…@lid` maps to, else itself. */
export function canonicalChatId(chatId: string): string {
  return `CASE WHEN ${chatId} LIKE '%@lid' THEN COALESCE((SELECT k.phone_number FROM contacts k WHERE k.phone_id = NEW.phone_id
    AND k.env = NEW.env AND k.lid = ${chatId} AND k.phone_number IS NOT NULL LIMIT 1), ${chatId}) ELSE ${chatId} END`
}

const CHAT_FIELDS = `is_group, unread_count, last_activity_ms, last_message_id, last_direction, last_type, last_preview, archived, pinned,
  muted_until_ms, labels, updated_at_ms`

/**
 * Folds the chats of `source` (a query yielding phone_id, env, lid, phone_number) into the number's
 * chat: unread counts add up, the newer last message wins, the number's own settings stay (a
 * setting only the LID's chat had is taken). The LID's row is deleted next (by primary key in the trigger, by foldedLidChatsGone in the migration).
 */
function foldLidChats(d: ChatSqlDialect, source: string): string {
  const newer = "excluded.last_activity_ms > chats.last_activity_ms"
  const pick = (column: string) => `${column} = CASE WHEN ${newer} THEN excluded.${column} ELSE chats.${column} END`
  return `INSERT INTO chats (phone_id, env, chat_id, name, ${CHAT_FIELDS})
  SELECT c.phone_id, c.env, m.phone_number, c.name, ${CHAT_FIELDS.replaceAll(/(\w+)/g, "c.$1")}
  FROM chats c JOIN (${source}) m ON m.phone_id = c.phone_id AND m.env = c.env AND m.lid = c.chat_id WHERE true
  ON CONFLICT (phone_id, env, chat_id) DO UPDATE SET unread_count = chats.unread_count + excluded.unread_count,
    ${pick("last_message_id")}, ${pick("last_direction")}, ${pick("last_type")}, ${pick("last_preview")},
    last_activity_ms = ${d.greatest}(chats.last_activity_ms, excluded.last_activity_ms), name = COALESCE(chats.name, excluded.name),
    archived = CASE WHEN chats.archived = ${d.no} THEN excluded.archived ELSE chats.archived END,
    pinned = CASE WHEN chats.pinned = ${d.no} THEN excluded.pinned ELSE chats.pinned END,
    muted_until_ms = COALESCE(chats.muted_until_ms, excluded.muted_until_ms),
    labels = CASE WHEN chats.labels = '[]' THEN excluded.labels ELSE chats.labels END,
    updated_at_ms = ${d.greatest}(chats.updated_at_ms, excluded.updated_at_ms)`
}

function foldedLidChatsGone(source: string): string {
  return `DELETE FROM chats WHERE chat_id LIKE '%@lid' AND EXISTS (SELECT 1 FROM (${source}) m
    WHERE m.phone_id = chats.phone_id AND m.env = chats.env AND m.lid = chats.chat_id)`
}

/** After a contact row is written with both its number and its LID: that LID's chat joins the number's (primary-key seeks only). */
export function foldChatOfMappedContact(d: ChatSqlDialect): string[] {
  const source = "SELECT NEW.phone_id AS phone_id, NEW.env AS env, NEW.lid AS lid, NEW.phone_number AS phone_number"
  return [foldLidChats(d, source), "DELETE FROM chats WHERE phone_id = NEW.phone_id AND env = NEW.env AND chat_id = NEW.lid"]
}

/** Every mapping the install already knows, for the migration. */
export function foldKnownLidChats(d: ChatSqlDialect): string[] {
  const source = `SELECT phone_id, env, lid, MAX(phone_number) AS phone_number FROM contacts
    WHERE lid IS NOT NULL AND phone_number IS NOT NULL GROUP BY phone_id, env, lid`
  return [foldLidChats(d, source), foldedLidChatsGone(source)]
}

/**
 * The preview WhatsApp users expect of a chat whose last message was deleted for everyone:
 * "This message was deleted", never the deleted text. The list row says so as type `revoked`
 * with an empty preview (docs/api.md § "Chats and contacts"); a client renders its own words.
 */
export const REVOKED_TYPE = "revoked"

/** The chat id each message table's row NEW names its chat by. */
export const REVOKABLE_CHAT_ID = {
  messages: "NEW.to_address",
  inbound_messages: "COALESCE(NEW.group_id, NEW.from_address)",
  chat_messages: "NEW.chat_id",
} as const

/** After a message of `table` is revoked: its chat, if it shows that message as its last, shows it deleted. */
export function chatOfRevokedMessage(table: keyof typeof REVOKABLE_CHAT_ID): string {
  return `UPDATE chats SET last_type = '${REVOKED_TYPE}', last_preview = '' WHERE phone_id = NEW.phone_id AND env = NEW.env
    AND chat_id = ${canonicalChatId(REVOKABLE_CHAT_ID[table])} AND last_message_id = NEW.id`
}

/** Chats whose last message is already revoked, for the migration. */
export function revokedPreviewsOfKnownChats(): string {
  const revoked = (table: string) => `SELECT 1 FROM ${table} r WHERE r.id = chats.last_message_id AND r.revoked_at_ms IS NOT NULL`
  return `UPDATE chats SET last_type = '${REVOKED_TYPE}', last_preview = '' WHERE last_message_id IS NOT NULL
    AND (EXISTS (${revoked("messages")}) OR EXISTS (${revoked("inbound_messages")}) OR EXISTS (${revoked("chat_messages")}))`
}

/** The insert and read statements of migration 28/16 with the chat id resolved through the mappings. */
export function resolvedChatStatements(d: ChatSqlDialect) {
  return {
    sent: chatOfSentMessage(d, canonicalChatId),
    inbound: chatOfInboundMessage(d, canonicalChatId),
    read: chatReadOfInbound(d, canonicalChatId),
    chatMessage: chatOfChatMessage(d, canonicalChatId),
  }
}

/** The indexes the resolution and the retention (src/domain/history-retention.ts) seek on. */
export const ALIAS_INDEXES = `CREATE INDEX contacts_lid ON contacts (phone_id, env, lid);
CREATE INDEX contacts_number ON contacts (phone_id, env, phone_number);
CREATE INDEX chat_messages_at ON chat_messages (at_ms)`
