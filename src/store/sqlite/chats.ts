import type { Database } from "bun:sqlite"
import type { SqlParams } from "./db"
import type { Environment } from "../../lib/vocabulary"
import type { ChatChange, ChatListQuery, ChatMessageRow, ChatRow, ContactListQuery, ContactRow, ContactUpsert, TimelineEntry, TimelineQuery } from "../chats"
import { CHAT_COLUMNS, CHAT_MESSAGE_COLUMNS, CHAT_MESSAGE_SELECT, CONTACT_COLUMNS, chatChangeSets, chatFromRaw, chatMessageFromRaw, chatMessageValues, contactFromRaw, likePattern, mergeTimeline, type RawChat, type RawChatMessage, type RawContact } from "../chat-rows"
import { chatListClauses } from "../chat-list-sql"
import { COLUMNS as MESSAGE_COLUMNS, fromRaw as messageFromRaw, type RawRow as RawMessage } from "./messages"
import { COLUMNS as INBOUND_COLUMNS, fromRaw as inboundFromRaw, type RawRow as RawInbound } from "./inbound"

/* The chats, timeline and contacts queries (src/store/chats.ts) on SQLite. */

const CHAT_FROM = `FROM chats c LEFT JOIN contacts ct ON ct.phone_id = c.phone_id AND ct.env = c.env AND ct.contact_id = c.chat_id`

export function listChats(db: Database, q: ChatListQuery): ChatRow[] {
  const values: (string | number)[] = []
  const param = (v: unknown) => `?${values.push(typeof v === "boolean" ? (v ? 1 : 0) : (v as string | number))}`
  const { where, orderBy } = chatListClauses(q, { param, like: "LIKE" })
  const sql = `SELECT ${CHAT_COLUMNS} ${CHAT_FROM} WHERE ${where.join(" AND ")} ORDER BY ${orderBy} LIMIT ${param(q.limit)}`
  return db.query<RawChat, (string | number)[]>(sql).all(...values).map(chatFromRaw)
}

// A `…@lid` the phone maps to a number names the number's chat (src/store/chat-sql-aliases.ts).
const CANONICAL = `SELECT phone_number AS n FROM contacts WHERE phone_id = ? AND env = ? AND lid = ? AND phone_number IS NOT NULL LIMIT 1`
const ALIASES = `SELECT phone_number AS n, lid AS l FROM contacts WHERE phone_id = ?1 AND env = ?2 AND (phone_number = ?3 OR lid = ?3)
  AND phone_number IS NOT NULL AND lid IS NOT NULL`

function canonicalChatId(db: Database, phoneId: string, env: Environment, chatId: string): string {
  if (!chatId.endsWith("@lid")) return chatId
  return db.query<{ n: string }, [string, string, string]>(CANONICAL).get(phoneId, env, chatId)?.n ?? chatId
}

/** Every id the chat's messages may carry: the chat's own, and the number or LID it maps to. */
function chatAliases(db: Database, phoneId: string, env: Environment, chatId: string): string[] {
  const ids = new Set([chatId])
  for (const r of db.query<{ n: string; l: string }, [string, string, string]>(ALIASES).all(phoneId, env, chatId)) ids.add(r.n).add(r.l)
  return [...ids]
}

export function findChat(db: Database, phoneId: string, env: Environment, chatId: string): ChatRow | null {
  const sql = `SELECT ${CHAT_COLUMNS} ${CHAT_FROM} WHERE c.phone_id = ? AND c.env = ? AND c.chat_id = ?`
  const raw = db.query<RawChat, [string, string, string]>(sql).get(phoneId, env, canonicalChatId(db, phoneId, env, chatId))
  return raw ? chatFromRaw(raw) : null
}

export function applyChatChange(db: Database, phoneId: string, env: Environment, givenChatId: string, change: ChatChange, atMs: number): ChatRow {
  const chatId = canonicalChatId(db, phoneId, env, givenChatId)
  db.query(`INSERT INTO chats (phone_id, env, chat_id, is_group, last_activity_ms, updated_at_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?5)
    ON CONFLICT (phone_id, env, chat_id) DO NOTHING`).run(phoneId, env, chatId, chatId.endsWith("@g.us") ? 1 : 0, atMs)
  const values: (string | number | null)[] = []
  const param = (v: unknown) => `?${values.push(typeof v === "boolean" ? (v ? 1 : 0) : (v as string | number | null))}`
  const sets = chatChangeSets(change, param, "max")
  if (sets.length > 0) {
    const sql = `UPDATE chats SET ${sets.join(", ")}, updated_at_ms = max(updated_at_ms, ${param(atMs)})
      WHERE phone_id = ${param(phoneId)} AND env = ${param(env)} AND chat_id = ${param(chatId)}`
    db.query(sql).run(...values)
  }
  return findChat(db, phoneId, env, chatId)!
}

const INSERT_CHAT_MESSAGE = `INSERT INTO chat_messages (${CHAT_MESSAGE_COLUMNS.map((c) => c[0]).join(", ")})
  VALUES (${CHAT_MESSAGE_COLUMNS.map((_, i) => `?${i + 1}`).join(", ")}) ON CONFLICT (phone_id, wa_message_id) DO NOTHING`
// A WhatsApp id the phone already holds as an API send's part or an inbound message is that message, not a new one.
const KNOWN_ELSEWHERE = `SELECT 1 FROM inbound_messages WHERE phone_id = ?1 AND wa_message_id = ?2
  UNION ALL SELECT 1 FROM message_parts p JOIN messages m ON m.id = p.message_id WHERE p.wa_message_id = ?2 AND m.phone_id = ?1 LIMIT 1`

function insertChatMessage(db: Database, row: ChatMessageRow): boolean {
  if (db.query(KNOWN_ELSEWHERE).get(row.phoneId, row.waMessageId)) return false
  return db.query(INSERT_CHAT_MESSAGE).run(...(chatMessageValues(row) as (string | number | null)[])).changes > 0
}

export function recordEchoMessage(db: Database, row: ChatMessageRow): ChatMessageRow | null {
  return insertChatMessage(db, row) ? row : null
}

export function recordHistoryBatch(db: Database, rows: readonly ChatMessageRow[]): number {
  let inserted = 0
  for (const row of rows) if (insertChatMessage(db, row)) inserted++
  return inserted
}

const SENT = `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE phone_id = $phoneId AND env = $env AND to_address = $chatId
  AND (created_at_ms, id) < ($atMs, $id) ORDER BY created_at_ms DESC, id DESC LIMIT $limit`
const RECEIVED = `SELECT ${INBOUND_COLUMNS} FROM inbound_messages WHERE phone_id = $phoneId AND env = $env AND COALESCE(group_id, from_address) = $chatId
  AND (received_at_ms, id) < ($atMs, $id) ORDER BY received_at_ms DESC, id DESC LIMIT $limit`
const OTHERS = `SELECT ${CHAT_MESSAGE_SELECT} FROM chat_messages
  WHERE phone_id = $phoneId AND env = $env AND chat_id = $chatId AND (at_ms, id) < ($atMs, $id) ORDER BY at_ms DESC, id DESC LIMIT $limit`

export function listTimeline(db: Database, q: TimelineQuery): TimelineEntry[] {
  // An id sorts after every real one ("~" > any id character), so the first page takes the newest instant whole.
  const sent: ReturnType<typeof messageFromRaw>[] = []
  const received: ReturnType<typeof inboundFromRaw>[] = []
  const others: ReturnType<typeof chatMessageFromRaw>[] = []
  // One index seek per table and id; a contact reached by number and by LID has two.
  for (const chatId of chatAliases(db, q.phoneId, q.env, q.chatId)) {
    const params: SqlParams = { phoneId: q.phoneId, env: q.env, chatId, atMs: q.before?.atMs ?? Number.MAX_SAFE_INTEGER, id: q.before?.id ?? "~", limit: q.limit }
    sent.push(...db.query<RawMessage, SqlParams>(SENT).all(params).map(messageFromRaw))
    received.push(...db.query<RawInbound, SqlParams>(RECEIVED).all(params).map(inboundFromRaw))
    others.push(...db.query<RawChatMessage, SqlParams>(OTHERS).all(params).map(chatMessageFromRaw))
  }
  return mergeTimeline(sent, received, others, q.limit)
}

export function listReactionsFor(db: Database, targetIds: readonly string[]) {
  if (targetIds.length === 0) return []
  const sql = `SELECT target_id AS targetId, from_address AS fromAddress, emoji, at_ms AS atMs FROM message_reactions
    WHERE target_id IN (${targetIds.map(() => "?").join(", ")}) ORDER BY at_ms`
  return db.query<{ targetId: string; fromAddress: string; emoji: string; atMs: number }, string[]>(sql).all(...targetIds)
}

const UPSERT_CONTACT = `INSERT INTO contacts (phone_id, env, contact_id, phone_number, lid, name, push_name, is_business, blocked, updated_at_ms)
  VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, COALESCE(?8, 0), COALESCE(?9, 0), ?10)
  ON CONFLICT (phone_id, env, contact_id) DO UPDATE SET phone_number = COALESCE(?4, phone_number), lid = COALESCE(?5, lid),
    name = COALESCE(?6, name), push_name = COALESCE(?7, push_name), is_business = COALESCE(?8, is_business),
    blocked = COALESCE(?9, blocked), updated_at_ms = max(updated_at_ms, ?10)`

export function upsertContacts(db: Database, rows: readonly ContactUpsert[]): void {
  const flag = (v: boolean | undefined) => (v === undefined ? null : v ? 1 : 0)
  for (const r of rows) {
    db.query(UPSERT_CONTACT).run(r.phoneId, r.env, r.contactId, r.phoneNumber ?? null, r.lid ?? null, r.name ?? null, r.pushName ?? null, flag(r.isBusiness), flag(r.blocked), r.updatedAtMs)
  }
}

export function listContacts(db: Database, q: ContactListQuery): ContactRow[] {
  const where = ["phone_id = $phoneId", "env = $env", "contact_id > $after"]
  const params: SqlParams = { phoneId: q.phoneId, env: q.env, after: q.afterContactId ?? "", limit: q.limit }
  if (q.search) {
    where.push(`(contact_id LIKE $s ESCAPE '\\' OR phone_number LIKE $s ESCAPE '\\' OR lid LIKE $s ESCAPE '\\' OR name LIKE $s ESCAPE '\\' OR push_name LIKE $s ESCAPE '\\')`)
    params.s = likePattern(q.search)
  }
  const sql = `SELECT ${CONTACT_COLUMNS} FROM contacts WHERE ${where.join(" AND ")} ORDER BY contact_id LIMIT $limit`
  return db.query<RawContact, SqlParams>(sql).all(params).map(contactFromRaw)
}

const PRUNE = `DELETE FROM chat_messages WHERE id IN (SELECT id FROM chat_messages WHERE at_ms < ? ORDER BY at_ms LIMIT ?)`

export function pruneChatMessages(db: Database, cutoffMs: number, limit: number): number {
  return db.query(PRUNE).run(cutoffMs, limit).changes
}

export function findChatMessage(db: Database, id: string): ChatMessageRow | null {
  const raw = db.query<RawChatMessage, [string]>(`SELECT ${CHAT_MESSAGE_SELECT} FROM chat_messages WHERE id = ?`).get(id)
  return raw ? chatMessageFromRaw(raw) : null
}
