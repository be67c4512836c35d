import type { SQL } from "bun"
import type { ChatsQueries } from "../chats"
import type { ChatListQuery, ChatMessageRow, ContactListQuery, TimelineQuery } from "../chats"
import { CHAT_COLUMNS, CHAT_MESSAGE_COLUMNS, CHAT_MESSAGE_SELECT, CONTACT_COLUMNS, chatChangeSets, chatFromRaw, chatMessageFromRaw, chatMessageValues, contactFromRaw, likePattern, mergeTimeline, type RawChat } from "../chat-rows"
import { chatListClauses } from "../chat-list-sql"
import { MESSAGE_COLUMNS, messageFromPg, type PgMessage } from "./message-rows"
import { COLUMNS as INBOUND_COLUMNS, fromPg as inboundFromPg, type PgInbound } from "./inbound"
import { toNumber } from "./rows"

/* src/store/sqlite/chats.ts on PostgreSQL: the same rows in the same order. */

const CHAT_FROM = `FROM chats c LEFT JOIN contacts ct ON ct.phone_id = c.phone_id AND ct.env = c.env AND ct.contact_id = c.chat_id`

async function listChats(sql: SQL, q: ChatListQuery) {
  const params: unknown[] = []
  const param = (v: unknown, type?: string) => `$${params.push(v)}${type ? `::${type}` : ""}`
  const { where, orderBy } = chatListClauses(q, { param, like: "ILIKE" })
  const text = `SELECT ${CHAT_COLUMNS} ${CHAT_FROM} WHERE ${where.join(" AND ")} ORDER BY ${orderBy} LIMIT ${param(q.limit)}`
  return ((await sql.unsafe(text, params)) as RawChat[]).map(chatFromRaw)
}

// A `…@lid` the phone maps to a number names the number's chat (src/store/chat-sql-aliases.ts).
const CANONICAL = `SELECT phone_number AS n FROM contacts WHERE phone_id = $1 AND env = $2 AND lid = $3 AND phone_number IS NOT NULL LIMIT 1`
const ALIASES = `SELECT phone_number AS n, lid AS l FROM contacts WHERE phone_id = $1 AND env = $2 AND (phone_number = $3 OR lid = $3)
  AND phone_number IS NOT NULL AND lid IS NOT NULL`

async function canonicalChatId(sql: SQL, phoneId: string, env: string, chatId: string): Promise<string> {
  if (!chatId.endsWith("@lid")) return chatId
  const [row] = (await sql.unsafe(CANONICAL, [phoneId, env, chatId])) as { n: string }[]
  return row?.n ?? chatId
}

/** Every id the chat's messages may carry: the chat's own, and the number or LID it maps to. */
async function chatAliases(sql: SQL, phoneId: string, env: string, chatId: string): Promise<string[]> {
  const ids = new Set([chatId])
  for (const r of (await sql.unsafe(ALIASES, [phoneId, env, chatId])) as { n: string; l: string }[]) ids.add(r.n).add(r.l)
  return [...ids]
}

async function findChat(sql: SQL, phoneId: string, env: string, chatId: string) {
  const id = await canonicalChatId(sql, phoneId, env, chatId)
  const [raw] = (await sql.unsafe(`SELECT ${CHAT_COLUMNS} ${CHAT_FROM} WHERE c.phone_id = $1 AND c.env = $2 AND c.chat_id = $3`, [phoneId, env, id])) as RawChat[]
  return raw ? chatFromRaw(raw) : null
}

const INSERT_ROWS = `INSERT INTO chat_messages SELECT r.* FROM json_populate_recordset(NULL::chat_messages, $1::text::json) r
  WHERE NOT EXISTS (SELECT 1 FROM inbound_messages i WHERE i.phone_id = r.phone_id AND i.wa_message_id = r.wa_message_id)
    AND NOT EXISTS (SELECT 1 FROM message_parts p JOIN messages m ON m.id = p.message_id WHERE p.wa_message_id = r.wa_message_id AND m.phone_id = r.phone_id)
  ON CONFLICT (phone_id, wa_message_id) DO NOTHING RETURNING id`

/** Rows per INSERT of a history batch. */
const BATCH_ROWS = 200

async function insertChatMessages(sql: SQL, rows: readonly ChatMessageRow[]): Promise<string[]> {
  const ids: string[] = []
  for (let at = 0; at < rows.length; at += BATCH_ROWS) {
    const chunk = rows.slice(at, at + BATCH_ROWS).map((row) => {
      const values = chatMessageValues(row)
      return Object.fromEntries(CHAT_MESSAGE_COLUMNS.map(([column], i) => [column, values[i]]))
    })
    const inserted = (await sql.unsafe(INSERT_ROWS, [JSON.stringify(chunk)])) as { id: string }[]
    for (const r of inserted) ids.push(r.id)
  }
  return ids
}

const SENT = `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE phone_id = $1 AND env = $2 AND to_address = $3
  AND (created_at_ms, id) < ($4::int8, $5) ORDER BY created_at_ms DESC, id DESC LIMIT $6`
const RECEIVED = `SELECT ${INBOUND_COLUMNS} FROM inbound_messages WHERE phone_id = $1 AND env = $2 AND COALESCE(group_id, from_address) = $3
  AND (received_at_ms, id) < ($4::int8, $5) ORDER BY received_at_ms DESC, id DESC LIMIT $6`
const OTHERS = `SELECT ${CHAT_MESSAGE_SELECT} FROM chat_messages
  WHERE phone_id = $1 AND env = $2 AND chat_id = $3 AND (at_ms, id) < ($4::int8, $5) ORDER BY at_ms DESC, id DESC LIMIT $6`

async function listTimeline(sql: SQL, q: TimelineQuery) {
  // One index seek per table and id; a contact reached by number and by LID has two.
  const pages = await Promise.all(
    (await chatAliases(sql, q.phoneId, q.env, q.chatId)).map((chatId) => {
      const params = [q.phoneId, q.env, chatId, q.before?.atMs ?? Number.MAX_SAFE_INTEGER, q.before?.id ?? "~", q.limit]
      return Promise.all([sql.unsafe(SENT, params), sql.unsafe(RECEIVED, params), sql.unsafe(OTHERS, params)])
    }),
  )
  return mergeTimeline(
    pages.flatMap(([sent]) => (sent as PgMessage[]).map(messageFromPg)),
    pages.flatMap(([, received]) => (received as PgInbound[]).map(inboundFromPg)),
    pages.flatMap(([, , others]) => (others as Record<string, unknown>[]).map(chatMessageFromRaw)),
    q.limit,
  )
}

const UPSERT_CONTACT = `INSERT INTO contacts (phone_id, env, contact_id, phone_number, lid, name, push_name, is_business, blocked, updated_at_ms)
  VALUES ($1, $2, $3, $4, $5, $6, $7, COALESCE($8::boolean, false), COALESCE($9::boolean, false), $10)
  ON CONFLICT (phone_id, env, contact_id) DO UPDATE SET phone_number = COALESCE($4, contacts.phone_number), lid = COALESCE($5, contacts.lid),
    name = COALESCE($6, contacts.name), push_name = COALESCE($7, contacts.push_name), is_business = COALESCE($8::boolean, contacts.is_business),
    blocked = COALESCE($9::boolean, contacts.blocked), updated_at_ms = GREATEST(contacts.updated_at_ms, $10)`

async function listContacts(sql: SQL, q: ContactListQuery) {
  const params: unknown[] = [q.phoneId, q.env, q.afterContactId ?? ""]
  const where = ["phone_id = $1", "env = $2", "contact_id > $3"]
  if (q.search) {
    const s = `$${params.push(likePattern(q.search))}`
    where.push(`(contact_id ILIKE ${s} ESCAPE '\\' OR phone_number ILIKE ${s} ESCAPE '\\' OR lid ILIKE ${s} ESCAPE '\\' OR name ILIKE ${s} ESCAPE '\\' OR push_name ILIKE ${s} ESCAPE '\\')`)
  }
  const text = `SELECT ${CONTACT_COLUMNS} FROM contacts WHERE ${where.join(" AND ")} ORDER BY contact_id LIMIT $${params.push(q.limit)}`
  return ((await sql.unsafe(text, params)) as Record<string, unknown>[]).map(contactFromRaw)
}

const PRUNE = `DELETE FROM chat_messages WHERE id IN (SELECT id FROM chat_messages WHERE at_ms < $1::int8 ORDER BY at_ms LIMIT $2)`

export function pgChatsQueries(sql: SQL): ChatsQueries {
  return {
    listChats: (q) => listChats(sql, q),
    findChat: (phoneId, env, chatId) => findChat(sql, phoneId, env, chatId),
    async applyChatChange(phoneId, env, givenChatId, change, atMs) {
      const chatId = await canonicalChatId(sql, phoneId, env, givenChatId)
      await sql.unsafe(`INSERT INTO chats (phone_id, env, chat_id, is_group, last_activity_ms, updated_at_ms) VALUES ($1, $2, $3, $4, $5, $5)
        ON CONFLICT (phone_id, env, chat_id) DO NOTHING`, [phoneId, env, chatId, chatId.endsWith("@g.us"), atMs])
      const values: unknown[] = []
      const param = (v: unknown) => `$${values.push(v)}`
      const sets = chatChangeSets(change, param, "GREATEST")
      if (sets.length > 0) {
        await sql.unsafe(`UPDATE chats SET ${sets.join(", ")}, updated_at_ms = GREATEST(updated_at_ms, ${param(atMs)}::int8)
          WHERE phone_id = ${param(phoneId)} AND env = ${param(env)} AND chat_id = ${param(chatId)}`, values)
      }
      return (await findChat(sql, phoneId, env, chatId))!
    },
    recordEchoMessage: async (row) => ((await insertChatMessages(sql, [row])).length > 0 ? row : null),
    recordHistoryBatch: async (rows) => (await insertChatMessages(sql, rows)).length,
    listTimeline: (q) => listTimeline(sql, q),
    async listReactionsFor(targetIds) {
      if (targetIds.length === 0) return []
      const rows = (await sql.unsafe(`SELECT target_id AS "targetId", from_address AS "fromAddress", emoji, at_ms AS "atMs" FROM message_reactions
        WHERE target_id = ANY($1::text[]) ORDER BY at_ms`, [targetIds])) as { targetId: string; fromAddress: string; emoji: string; atMs: string }[]
      return rows.map((r) => ({ ...r, atMs: toNumber(r.atMs) }))
    },
    async upsertContacts(rows) {
      for (const r of rows) {
        await sql.unsafe(UPSERT_CONTACT, [r.phoneId, r.env, r.contactId, r.phoneNumber ?? null, r.lid ?? null, r.name ?? null, r.pushName ?? null, r.isBusiness ?? null, r.blocked ?? null, r.updatedAtMs])
      }
    },
    listContacts: (q) => listContacts(sql, q),
    async pruneChatMessages(cutoffMs, limit) {
      return (await sql.unsafe(PRUNE, [cutoffMs, limit])).count
    },
    async findChatMessage(id) {
      const [raw] = (await sql.unsafe(`SELECT ${CHAT_MESSAGE_SELECT} FROM chat_messages WHERE id = $1`, [id])) as Record<string, unknown>[]
      return raw ? chatMessageFromRaw(raw) : null
    },
  }
}
