import type { Database } from "bun:sqlite"
import type { SqlParams } from "./db"
import type { Environment } from "../../lib/vocabulary"
import { nextSequence } from "./messages"
import type { StoredInboundMedia, InboundRow, InboundListQuery } from "../inbound"

type JsonColumns = "media" | "location" | "contact"
export type RawRow = Omit<InboundRow, "isGroup" | JsonColumns> & { isGroup: number; media: string | null; location: string | null; contact: string | null }

export const COLUMNS = `id, account_id AS accountId, env, seq, phone_id AS phoneId, wa_message_id AS waMessageId,
  from_address AS fromAddress, to_number AS toNumber, content, type, is_group AS isGroup, group_id AS groupId,
  received_at_ms AS receivedAtMs, created_at_ms AS createdAtMs, reply_to_id AS replyToId, media_json AS media,
  media_gone_at_ms AS mediaGoneAtMs, location_json AS location, contact_json AS contact, edited_at_ms AS editedAtMs,
  revoked_at_ms AS revokedAtMs, from_username AS fromUsername`

const parse = <T>(json: string | null): T | null => (json === null ? null : (JSON.parse(json) as T))
const json = (value: unknown): string | null => (value === null || value === undefined ? null : JSON.stringify(value))

export function fromRaw(raw: RawRow): InboundRow {
  return { ...raw, isGroup: raw.isGroup === 1, media: parse(raw.media), location: parse(raw.location), contact: parse(raw.contact) }
}

const SELECT_SCOPED = `SELECT ${COLUMNS} FROM inbound_messages WHERE id = $id AND account_id = $accountId AND env = $env`

/** An inbound message by id within one account and environment. */
export function findScopedInbound(db: Database, accountId: string, env: Environment, id: string): InboundRow | null {
  const raw = db.query<RawRow, SqlParams>(SELECT_SCOPED).get({ id, accountId, env })
  return raw ? fromRaw(raw) : null
}

const TOTAL = `SELECT COALESCE(SUM(n), 0) AS n FROM inbound_counts WHERE account_id = $accountId AND env = $env
  AND ($phoneId IS NULL OR phone_id = $phoneId)`
const PAGE = `SELECT ${COLUMNS} FROM inbound_messages WHERE account_id = $accountId AND env = $env
  AND ($phoneId IS NULL OR phone_id = $phoneId) ORDER BY seq DESC LIMIT $limit OFFSET $offset`

/** One page of inbound messages, newest first, with the total from the counters. */
export function listInbound(db: Database, q: InboundListQuery): { rows: InboundRow[]; total: number } {
  const filters = { accountId: q.accountId, env: q.env, phoneId: q.phoneId ?? null }
  const total = db.query<{ n: number }, SqlParams>(TOTAL).get(filters)?.n ?? 0
  if (q.offset >= total) return { rows: [], total }
  const rows = db.query<RawRow, SqlParams>(PAGE).all({ ...filters, limit: q.limit, offset: q.offset })
  return { rows: rows.map(fromRaw), total }
}

const INSERT_INBOUND = `INSERT INTO inbound_messages (id, account_id, env, seq, phone_id, wa_message_id, from_address, to_number,
  content, type, is_group, group_id, received_at_ms, created_at_ms, reply_to_id, media_json, media_gone_at_ms, location_json,
  contact_json, edited_at_ms, revoked_at_ms, from_username) VALUES ($id, $accountId, $env, $seq, $phoneId, $waMessageId,
  $fromAddress, $toNumber, $content, $type, $isGroup, $groupId, $receivedAtMs, $createdAtMs, $replyToId, $media, $mediaGoneAtMs,
  $location, $contact, $editedAtMs, $revokedAtMs, $fromUsername)
  ON CONFLICT (phone_id, wa_message_id) DO NOTHING`
const BUMP_COUNT = `INSERT INTO inbound_counts (account_id, env, phone_id, n) VALUES (?, ?, ?, 1)
  ON CONFLICT (account_id, env, phone_id) DO UPDATE SET n = n + 1`
const EXISTS = "SELECT 1 AS found FROM inbound_messages WHERE phone_id = ? AND wa_message_id = ?"

/**
 * Records an inbound message once: a WhatsApp id already recorded for the phone (a redelivery
 * after a reconnect) inserts nothing and returns null. Must run inside a write transaction.
 */
export function insertInbound(db: Database, row: Omit<InboundRow, "seq">): InboundRow | null {
  if (db.query(EXISTS).get(row.phoneId, row.waMessageId)) return null
  // Inbound messages have their own sequence ("inbound:<env>"), never shared with outbound ones.
  const seq = nextSequence(db, row.accountId, `inbound:${row.env}`)
  const stored: InboundRow = { ...row, seq }
  db.query(INSERT_INBOUND).run({
    ...stored,
    isGroup: stored.isGroup ? 1 : 0,
    media: json(stored.media),
    location: json(stored.location),
    contact: json(stored.contact),
  })
  db.query(BUMP_COUNT).run(row.accountId, row.env, row.phoneId)
  return stored
}

/** One keyset page of inbound messages, newest first, below `beforeSeq` (no OFFSET, no count). */
export function listInboundWindow(
  db: Database,
  q: { accountId: string; env: Environment; phoneId?: string; beforeSeq: number | null; limit: number },
): InboundRow[] {
  // Only the filters in use are named, so a phone filter seeks the phone index.
  const phone = q.phoneId === undefined ? "" : " AND phone_id = $phoneId"
  const sql = `SELECT ${COLUMNS} FROM inbound_messages WHERE account_id = $accountId AND env = $env AND seq < $beforeSeq${phone}
  ORDER BY seq DESC LIMIT $limit`
  const params: SqlParams = { accountId: q.accountId, env: q.env, beforeSeq: q.beforeSeq ?? Number.MAX_SAFE_INTEGER, limit: q.limit }
  if (q.phoneId !== undefined) params.phoneId = q.phoneId
  return db.query<RawRow, SqlParams>(sql).all(params).map(fromRaw)
}

const SELECT_BY_ID = `SELECT ${COLUMNS} FROM inbound_messages WHERE id = ?`

/** An inbound message by id, whatever its account (the operator's view). */
export function findInbound(db: Database, id: string): InboundRow | null {
  const raw = db.query<RawRow, [string]>(SELECT_BY_ID).get(id)
  return raw ? fromRaw(raw) : null
}

const SELECT_BY_WA_ID = `SELECT ${COLUMNS} FROM inbound_messages WHERE phone_id = ? AND wa_message_id = ?`

/** The inbound message a phone received under a WhatsApp id, or null. */
export function findInboundByWaId(db: Database, phoneId: string, waMessageId: string): InboundRow | null {
  const raw = db.query<RawRow, [string, string]>(SELECT_BY_WA_ID).get(phoneId, waMessageId)
  return raw ? fromRaw(raw) : null
}

/** The sender changed the text (or caption) of an inbound message. */
export function markInboundEdited(db: Database, id: string, content: string, editedAtMs: number): void {
  db.query("UPDATE inbound_messages SET content = ?, edited_at_ms = ? WHERE id = ?").run(content, editedAtMs, id)
}

/** The sender deleted an inbound message for everyone; the row is kept. */
export function markInboundRevoked(db: Database, id: string, revokedAtMs: number): void {
  db.query("UPDATE inbound_messages SET revoked_at_ms = ? WHERE id = ?").run(revokedAtMs, id)
}

/** The media's descriptor after WhatsApp re-uploaded it. */
export function updateInboundMediaDescriptor(db: Database, id: string, media: StoredInboundMedia): void {
  db.query("UPDATE inbound_messages SET media_json = ? WHERE id = ?").run(JSON.stringify(media), id)
}

/** WhatsApp no longer has the media. */
export function markInboundMediaGone(db: Database, id: string, atMs: number): void {
  db.query("UPDATE inbound_messages SET media_gone_at_ms = ? WHERE id = ?").run(atMs, id)
}

const UPSERT_REACTION = `INSERT INTO message_reactions (target_id, from_address, emoji, at_ms) VALUES (?, ?, ?, ?)
  ON CONFLICT (target_id, from_address) DO UPDATE SET emoji = excluded.emoji, at_ms = excluded.at_ms`

/** Records someone's reaction to a message (msg_ or inmsg_); an empty emoji removes it. */
export function recordReaction(db: Database, targetId: string, fromAddress: string, emoji: string, atMs: number): void {
  if (emoji === "") db.query("DELETE FROM message_reactions WHERE target_id = ? AND from_address = ?").run(targetId, fromAddress)
  else db.query(UPSERT_REACTION).run(targetId, fromAddress, emoji, atMs)
}

/** The reactions to a message, oldest first. */
export function listReactions(db: Database, targetId: string): { fromAddress: string; emoji: string; atMs: number }[] {
  return db
    .query<{ fromAddress: string; emoji: string; atMs: number }, [string]>(
      "SELECT from_address AS fromAddress, emoji, at_ms AS atMs FROM message_reactions WHERE target_id = ? ORDER BY at_ms",
    )
    .all(targetId)
}
