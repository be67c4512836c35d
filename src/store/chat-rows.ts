import type { InboundRow } from "./inbound"
import type { MessageRow } from "./messages"
import type { ChatChange, ChatMessageRow, ChatRow, ContactRow, TimelineEntry } from "./chats"

/*
 * Row conversions the SQLite and PostgreSQL chat queries share (src/store/chats.ts): the selected
 * columns (quoted aliases read the same on both), and raw rows to typed ones (PostgreSQL hands
 * int8 as strings and booleans as booleans, SQLite numbers and 0/1).
 */

const num = (v: unknown): number => (typeof v === "number" ? v : Number(v))
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : num(v))
const bool = (v: unknown): boolean => v === true || v === 1 || v === "1"
const parse = <T>(json: unknown): T | null => (json === null || json === undefined ? null : (JSON.parse(String(json)) as T))

export const CHAT_COLUMNS = `c.phone_id AS "phoneId", c.env, c.chat_id AS "chatId", COALESCE(c.name, ct.name, ct.push_name) AS name,
  c.is_group AS "isGroup", c.unread_count AS "unreadCount", c.last_activity_ms AS "lastActivityMs", c.last_message_id AS "lastMessageId",
  c.last_direction AS "lastDirection", c.last_type AS "lastType", c.last_preview AS "lastPreview", c.archived, c.pinned,
  c.muted_until_ms AS "mutedUntilMs", c.labels, c.updated_at_ms AS "updatedAtMs"`

export type RawChat = Record<string, unknown>

export function chatFromRaw(r: RawChat): ChatRow {
  const lastMessageId = r.lastMessageId as string | null
  return {
    phoneId: r.phoneId as string,
    env: r.env as ChatRow["env"],
    chatId: r.chatId as string,
    name: (r.name as string | null) ?? null,
    isGroup: bool(r.isGroup),
    unreadCount: num(r.unreadCount),
    lastActivityMs: num(r.lastActivityMs),
    lastMessage:
      lastMessageId === null
        ? null
        : {
            id: lastMessageId,
            direction: r.lastDirection as "in" | "out",
            type: r.lastType as string,
            preview: (r.lastPreview as string | null) ?? "",
            atMs: num(r.lastActivityMs),
          },
    archived: bool(r.archived),
    pinned: bool(r.pinned),
    mutedUntilMs: numOrNull(r.mutedUntilMs),
    labels: parse<string[]>(r.labels) ?? [],
    updatedAtMs: num(r.updatedAtMs),
  }
}

/**
 * The SET clauses of a chat change; `param` binds a value and returns its placeholder. Unread
 * false clears the count; true keeps a count that is already positive, else makes it one.
 */
export function chatChangeSets(change: ChatChange, param: (value: unknown) => string, greatest: "max" | "GREATEST"): string[] {
  const sets: string[] = []
  if (change.archived !== undefined) sets.push(`archived = ${param(change.archived)}`)
  if (change.pinned !== undefined) sets.push(`pinned = ${param(change.pinned)}`)
  if (change.mutedUntilMs !== undefined) sets.push(`muted_until_ms = ${param(change.mutedUntilMs)}`)
  if (change.unread !== undefined) sets.push(change.unread ? `unread_count = ${greatest}(unread_count, 1)` : "unread_count = 0")
  if (change.labels !== undefined) sets.push(`labels = ${param(JSON.stringify(change.labels))}`)
  if (change.name !== undefined) sets.push(`name = ${param(change.name)}`)
  return sets
}

/** The columns of chat_messages with their aliases, in insert order. */
export const CHAT_MESSAGE_COLUMNS: readonly (readonly [string, string])[] = [
  ["id", "id"],
  ["account_id", '"accountId"'],
  ["env", "env"],
  ["phone_id", '"phoneId"'],
  ["wa_message_id", '"waMessageId"'],
  ["chat_id", '"chatId"'],
  ["origin", "origin"],
  ["direction", "direction"],
  ["from_address", '"fromAddress"'],
  ["type", "type"],
  ["content", "content"],
  ["media_json", "media"],
  ["location_json", "location"],
  ["contact_json", "contact"],
  ["poll_json", "poll"],
  ["reply_to_id", '"replyToId"'],
  ["status", "status"],
  ["edited_at_ms", '"editedAtMs"'],
  ["revoked_at_ms", '"revokedAtMs"'],
  ["at_ms", '"atMs"'],
  ["created_at_ms", '"createdAtMs"'],
]

export const CHAT_MESSAGE_SELECT = CHAT_MESSAGE_COLUMNS.map(([column, alias]) => `${column} AS ${alias}`).join(", ")

const json = (v: unknown): string | null => (v === null || v === undefined ? null : JSON.stringify(v))

/** A chat message's values in CHAT_MESSAGE_COLUMNS order. */
export function chatMessageValues(r: ChatMessageRow): unknown[] {
  return [
    r.id, r.accountId, r.env, r.phoneId, r.waMessageId, r.chatId, r.origin, r.direction, r.fromAddress, r.type, r.content,
    json(r.media), json(r.location), json(r.contact), json(r.poll), r.replyToId, r.status, r.editedAtMs, r.revokedAtMs, r.atMs, r.createdAtMs,
  ]
}

export type RawChatMessage = Record<string, unknown>

export function chatMessageFromRaw(r: RawChatMessage): ChatMessageRow {
  return {
    ...(r as unknown as ChatMessageRow),
    media: parse(r.media),
    location: parse(r.location),
    contact: parse(r.contact),
    poll: parse(r.poll),
    editedAtMs: numOrNull(r.editedAtMs),
    revokedAtMs: numOrNull(r.revokedAtMs),
    atMs: num(r.atMs),
    createdAtMs: num(r.createdAtMs),
  }
}

export const CONTACT_COLUMNS = `phone_id AS "phoneId", env, contact_id AS "contactId", phone_number AS "phoneNumber", lid, name,
  push_name AS "pushName", is_business AS "isBusiness", blocked, updated_at_ms AS "updatedAtMs"`

export type RawContact = Record<string, unknown>

export function contactFromRaw(r: RawContact): ContactRow {
  return { ...(r as unknown as ContactRow), isBusiness: bool(r.isBusiness), blocked: bool(r.blocked), updatedAtMs: num(r.updatedAtMs) }
}

/** A LIKE pattern matching `text` anywhere, its wildcards escaped (ESCAPE '\'). */
export function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

/** Three newest-first lists merged into one page, newest first (ties by id, as the queries order them). */
export function mergeTimeline(sent: readonly MessageRow[], received: readonly InboundRow[], others: readonly ChatMessageRow[], limit: number): TimelineEntry[] {
  const all: TimelineEntry[] = [
    ...sent.map((row): TimelineEntry => ({ kind: "api", atMs: row.createdAtMs, row })),
    ...received.map((row): TimelineEntry => ({ kind: "received", atMs: row.receivedAtMs, row })),
    ...others.map((row): TimelineEntry => ({ kind: "chat", atMs: row.atMs, row })),
  ]
  all.sort((a, b) => b.atMs - a.atMs || (a.row.id < b.row.id ? 1 : a.row.id > b.row.id ? -1 : 0))
  return all.slice(0, limit)
}
