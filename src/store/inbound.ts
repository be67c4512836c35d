import type { Database } from "bun:sqlite"
import type { SqlParams } from "./db"
import type { Environment, InboundType } from "../lib/vocabulary"
import { nextSequence } from "./messages"


/** An inbound message row. */
export interface InboundRow {
  id: string
  accountId: string
  env: Environment
  seq: number
  phoneId: string
  waMessageId: string
  fromAddress: string
  toNumber: string
  content: string
  type: InboundType
  isGroup: boolean
  groupId: string | null
  receivedAtMs: number
  createdAtMs: number
}

type RawRow = Omit<InboundRow, "isGroup"> & { isGroup: number }

const COLUMNS = `id, account_id AS accountId, env, seq, phone_id AS phoneId, wa_message_id AS waMessageId,
  from_address AS fromAddress, to_number AS toNumber, content, type, is_group AS isGroup, group_id AS groupId,
  received_at_ms AS receivedAtMs, created_at_ms AS createdAtMs`

function fromRaw(raw: RawRow): InboundRow {
  return { ...raw, isGroup: raw.isGroup === 1 }
}

const SELECT_SCOPED = `SELECT ${COLUMNS} FROM inbound_messages WHERE id = $id AND account_id = $accountId AND env = $env`

/** An inbound message by id within one account and environment. */
export function findScopedInbound(db: Database, accountId: string, env: Environment, id: string): InboundRow | null {
  const raw = db.query<RawRow, SqlParams>(SELECT_SCOPED).get({ id, accountId, env })
  return raw ? fromRaw(raw) : null
}

/** Filters of the inbound list. */
export interface InboundListQuery {
  accountId: string
  env: Environment
  phoneId?: string
  limit: number
  offset: number
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
  content, type, is_group, group_id, received_at_ms, created_at_ms) VALUES ($id, $accountId, $env, $seq, $phoneId, $waMessageId,
  $fromAddress, $toNumber, $content, $type, $isGroup, $groupId, $receivedAtMs, $createdAtMs)
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
  db.query(INSERT_INBOUND).run({ ...stored, isGroup: stored.isGroup ? 1 : 0 })
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
