/*
 * The statements that keep `chats` and `contacts` in step with the message tables (src/store/chats.ts),
 * written once for both databases: SQLite migration 28 runs them in triggers, PostgreSQL
 * migration 16 in trigger functions. The dialects differ only in the names passed in (`NEW.` is
 * the same; SQLite's two-argument max() is PostgreSQL's GREATEST(), a 0/1 flag is a boolean there).
 */

/** What differs between the two dialects. */
export interface ChatSqlDialect {
  greatest: "max" | "GREATEST"
  /** The text of a boolean false and true column value. */
  no: string
  yes: string
  /** An expression for "the JSON text `json` has the key `key`". */
  hasKey: (json: string, key: string) => string
}

/** The values a new message contributes to its chat, as SQL expressions over NEW. */
interface ChatTouch {
  chatId: string
  isGroup: string
  unread: string
  atMs: string
  id: string
  /** 'in', 'out', or a column holding one. */
  direction: string
  type: string
  content: string
}

/**
 * Upserts the chat a message belongs to: the unread count grows by `unread`, and the last message
 * moves to this one unless the chat already holds a newer one (history arrives out of order).
 */
function touchChat(d: ChatSqlDialect, t: ChatTouch): string {
  const newer = "excluded.last_activity_ms >= chats.last_activity_ms"
  const pick = (column: string) => `${column} = CASE WHEN ${newer} THEN excluded.${column} ELSE chats.${column} END`
  return `INSERT INTO chats (phone_id, env, chat_id, is_group, unread_count, last_activity_ms, last_message_id, last_direction,
    last_type, last_preview, updated_at_ms)
  VALUES (NEW.phone_id, NEW.env, ${t.chatId}, ${t.isGroup}, ${t.unread}, ${t.atMs}, ${t.id}, ${t.direction}, ${t.type},
    substr(${t.content}, 1, 100), ${t.atMs})
  ON CONFLICT (phone_id, env, chat_id) DO UPDATE SET unread_count = chats.unread_count + excluded.unread_count,
    ${pick("last_message_id")}, ${pick("last_direction")}, ${pick("last_type")}, ${pick("last_preview")},
    last_activity_ms = ${d.greatest}(chats.last_activity_ms, excluded.last_activity_ms),
    updated_at_ms = ${d.greatest}(chats.updated_at_ms, excluded.updated_at_ms)`
}

/** The API's type of an outbound message (src/domain/send-kinds.ts, messageTypeOf), from its columns. */
function outboundType(d: ChatSqlDialect): string {
  // Most sends carry no extras: that case is settled without parsing JSON.
  return `CASE WHEN NEW.extras IS NULL THEN (CASE WHEN NEW.media_urls <> '[]' THEN 'media' ELSE 'text' END)
    WHEN ${d.hasKey("NEW.extras", "poll")} THEN 'poll' WHEN ${d.hasKey("NEW.extras", "location")} THEN 'location'
    WHEN ${d.hasKey("NEW.extras", "contact")} THEN 'contact' WHEN NEW.media_urls <> '[]' THEN 'media' ELSE 'text' END`
}

/** Turns a chat id expression into the canonical one (src/store/chat-sql-aliases.ts); migration 28/16 keep it as is. */
export type ChatIdResolver = (chatId: string) => string
const asIs: ChatIdResolver = (chatId) => chatId

/** After an API send is inserted. */
export function chatOfSentMessage(d: ChatSqlDialect, resolve: ChatIdResolver = asIs): string {
  return touchChat(d, {
    chatId: resolve("NEW.to_address"),
    isGroup: "NEW.is_group",
    unread: "0",
    atMs: "NEW.created_at_ms",
    id: "NEW.id",
    direction: "'out'",
    type: outboundType(d),
    content: "NEW.content",
  })
}

/** After an inbound message is inserted: unread unless it was recorded read. */
export function chatOfInboundMessage(d: ChatSqlDialect, resolve: ChatIdResolver = asIs): string {
  return touchChat(d, {
    chatId: resolve("COALESCE(NEW.group_id, NEW.from_address)"),
    isGroup: "NEW.is_group",
    unread: "CASE WHEN NEW.read_at_ms IS NULL THEN 1 ELSE 0 END",
    atMs: "NEW.received_at_ms",
    id: "NEW.id",
    direction: "'in'",
    type: "NEW.type",
    content: "NEW.content",
  })
}

/**
 * After an echo or history message is inserted. Neither counts as unread: what the phone sent is
 * read, and history's unread state comes from WhatsApp's own chat metadata (applyChatChange).
 */
export function chatOfChatMessage(d: ChatSqlDialect, resolve: ChatIdResolver = asIs): string {
  return touchChat(d, {
    chatId: resolve("NEW.chat_id"),
    isGroup: `CASE WHEN NEW.chat_id LIKE '%@g.us' THEN ${d.yes} ELSE ${d.no} END`,
    unread: "0",
    atMs: "NEW.at_ms",
    id: "NEW.id",
    direction: "NEW.direction",
    type: "NEW.type",
    content: "NEW.content",
  })
}

/** A read receipt covered an unread inbound message: its chat has one unread fewer. */
export function chatReadOfInbound(d: ChatSqlDialect, resolve: ChatIdResolver = asIs): string {
  return `UPDATE chats SET unread_count = ${d.greatest}(unread_count - 1, 0)
  WHERE phone_id = NEW.phone_id AND env = NEW.env AND chat_id = ${resolve("COALESCE(NEW.group_id, NEW.from_address)")}`
}

/** The sender of an inbound message becomes a contact of the phone (nothing else is known of it here). */
export function contactOfInboundMessage(): string {
  return `INSERT INTO contacts (phone_id, env, contact_id, phone_number, lid, updated_at_ms)
  VALUES (NEW.phone_id, NEW.env, NEW.from_address, CASE WHEN NEW.from_address LIKE '+%' THEN NEW.from_address END,
    CASE WHEN NEW.from_address LIKE '%@lid' THEN NEW.from_address END, NEW.received_at_ms)
  ON CONFLICT (phone_id, env, contact_id) DO NOTHING`
}

/** What a live phone learned of a sender (wa_contacts) carries into its contact. */
export function contactOfWaContact(d: ChatSqlDialect): string {
  return `INSERT INTO contacts (phone_id, env, contact_id, phone_number, lid, push_name, updated_at_ms)
  VALUES (NEW.phone_id, 'live', NEW.address, NEW.phone_number, NEW.lid, NEW.push_name, NEW.updated_at_ms)
  ON CONFLICT (phone_id, env, contact_id) DO UPDATE SET phone_number = COALESCE(excluded.phone_number, contacts.phone_number),
    lid = COALESCE(excluded.lid, contacts.lid), push_name = COALESCE(excluded.push_name, contacts.push_name),
    updated_at_ms = ${d.greatest}(contacts.updated_at_ms, excluded.updated_at_ms)`
}

/**
 * Fills `chats` from the messages an install already holds (an upgraded install shows its chats):
 * per chat the newest message of either direction, and its unread inbound messages counted.
 */
export function backfillChats(d: ChatSqlDialect): string {
  const type = outboundType(d).replaceAll("NEW.", "")
  return `INSERT INTO chats (phone_id, env, chat_id, is_group, unread_count, last_activity_ms, last_message_id, last_direction,
    last_type, last_preview, updated_at_ms)
  SELECT phone_id, env, chat_id, is_group, unread_total, at_ms, id, direction, type, substr(content, 1, 100), at_ms FROM (
    SELECT m.*, ROW_NUMBER() OVER (PARTITION BY phone_id, env, chat_id ORDER BY at_ms DESC, id DESC) AS rn,
      SUM(unread) OVER (PARTITION BY phone_id, env, chat_id) AS unread_total
    FROM (
      SELECT phone_id, env, to_address AS chat_id, is_group, created_at_ms AS at_ms, id, 'out' AS direction, ${type} AS type, content, 0 AS unread
      FROM messages
      UNION ALL
      SELECT phone_id, env, COALESCE(group_id, from_address), is_group, received_at_ms, id, 'in', type, content,
        CASE WHEN read_at_ms IS NULL THEN 1 ELSE 0 END FROM inbound_messages
    ) m
  ) ranked WHERE rn = 1`
}

/** Fills `contacts` from the senders an install already heard from. */
export function backfillContacts(): string {
  return `INSERT INTO contacts (phone_id, env, contact_id, phone_number, lid, push_name, updated_at_ms)
  SELECT phone_id, 'live', address, phone_number, lid, push_name, updated_at_ms FROM wa_contacts WHERE phone_id IS NOT NULL
  ON CONFLICT (phone_id, env, contact_id) DO NOTHING;
  INSERT INTO contacts (phone_id, env, contact_id, phone_number, lid, updated_at_ms)
  SELECT phone_id, env, from_address, MAX(CASE WHEN from_address LIKE '+%' THEN from_address END),
    MAX(CASE WHEN from_address LIKE '%@lid' THEN from_address END), MAX(received_at_ms)
  FROM inbound_messages WHERE true GROUP BY phone_id, env, from_address
  ON CONFLICT (phone_id, env, contact_id) DO NOTHING`
}
