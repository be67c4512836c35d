import type { Database } from "bun:sqlite"
import type { SqlParams } from "./db"
import { utcDayStartMs } from "../../lib/time"
import type { Environment, MessageStatus } from "../../lib/vocabulary"
import { type MessageExtras, type MessageRow, type NewMessageRow, type MessageStatusPatch, IdempotencyKeyTaken, type MessageListQuery, type MessageWindowQuery } from "../messages"

export type RawRow = Omit<MessageRow, "isGroup" | "mediaUrls" | "extras"> & { isGroup: number; mediaUrls: string; extras: string | null }

export const COLUMNS = `id, account_id AS accountId, env, seq, phone_id AS phoneId, api_key_id AS apiKeyId,
  from_number AS fromNumber, to_address AS toAddress, is_group AS isGroup, content, media_urls AS mediaUrls, status,
  idempotency_key AS idempotencyKey, request_fingerprint AS requestFingerprint, created_at_ms AS createdAtMs,
  sent_at_ms AS sentAtMs, delivered_at_ms AS deliveredAtMs, read_at_ms AS readAtMs, failed_at_ms AS failedAtMs,
  error_code AS errorCode, error_message AS errorMessage, updated_at_ms AS updatedAtMs,
  sandbox_delivered_due_ms AS sandboxDeliveredDueMs, sandbox_read_due_ms AS sandboxReadDueMs, reply_to AS replyTo, extras,
  edited_at_ms AS editedAtMs, revoked_at_ms AS revokedAtMs`

/** Converts a fresh result row in place (a copy of its fields would cost every read and every sweep). */
export function fromRaw(raw: RawRow): MessageRow {
  const row = raw as unknown as MessageRow
  row.isGroup = raw.isGroup === 1
  row.mediaUrls = JSON.parse(raw.mediaUrls as unknown as string) as string[]
  row.extras = raw.extras === null ? null : (JSON.parse(raw.extras) as MessageExtras)
  return row
}

const NEXT_SEQ = `INSERT INTO message_sequences (account_id, env, last_seq) VALUES (?, ?, 1)
  ON CONFLICT (account_id, env) DO UPDATE SET last_seq = last_seq + 1 RETURNING last_seq AS seq`

/** The next number of an account's sequence named `key` (dense from 1; inside a write transaction). */
export function nextSequence(db: Database, accountId: string, key: string): number {
  return db.query<{ seq: number }, [string, string]>(NEXT_SEQ).get(accountId, key)!.seq
}

const UNDO_SEQ = "UPDATE message_sequences SET last_seq = last_seq - 1 WHERE account_id = ? AND env = ?"

const INSERT_MESSAGE = `INSERT INTO messages (id, account_id, env, seq, phone_id, api_key_id, from_number, to_address, is_group,
  content, media_urls, status, idempotency_key, request_fingerprint, created_at_ms, sent_at_ms, delivered_at_ms, read_at_ms,
  failed_at_ms, error_code, error_message, updated_at_ms, sandbox_delivered_due_ms, sandbox_read_due_ms, reply_to, extras)
  VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25, ?26)`

const IDEMPOTENCY_INDEX_FAILURE = /UNIQUE constraint failed: messages\.account_id, messages\.env, messages\.idempotency_key/

/**
 * Inserts a message with the next sequence number of its account and environment and counts
 * it. Must run inside a write transaction; returns the stored row. A taken idempotency key
 * throws IdempotencyKeyTaken and leaves the sequence as it was (it stays dense).
 */
export function insertMessage(db: Database, row: NewMessageRow): MessageRow {
  const seq = nextSequence(db, row.accountId, row.env)
  const stored: MessageRow = {
    ...row,
    seq,
    sandboxDeliveredDueMs: row.sandboxDeliveredDueMs ?? null,
    sandboxReadDueMs: row.sandboxReadDueMs ?? null,
    replyTo: row.replyTo ?? null,
    extras: row.extras ?? null,
    editedAtMs: null,
    revokedAtMs: null,
  }
  try {
    db.query(INSERT_MESSAGE).run(
      stored.id, stored.accountId, stored.env, stored.seq, stored.phoneId, stored.apiKeyId, stored.fromNumber, stored.toAddress,
      stored.isGroup ? 1 : 0, stored.content, JSON.stringify(stored.mediaUrls), stored.status, stored.idempotencyKey,
      stored.requestFingerprint, stored.createdAtMs, stored.sentAtMs, stored.deliveredAtMs, stored.readAtMs, stored.failedAtMs,
      stored.errorCode, stored.errorMessage, stored.updatedAtMs, stored.sandboxDeliveredDueMs, stored.sandboxReadDueMs,
      stored.replyTo, stored.extras === null ? null : JSON.stringify(stored.extras),
    )
  } catch (err) {
    if (stored.idempotencyKey === null || !IDEMPOTENCY_INDEX_FAILURE.test(String(err))) throw err
    // The statement failed alone and the transaction goes on: hand back the number it took.
    db.query(UNDO_SEQ).run(row.accountId, row.env)
    throw new IdempotencyKeyTaken(row.accountId, row.env, stored.idempotencyKey)
  }
  adjustCounts(db, stored, stored.status, 1)
  return stored
}

// Positional parameters: on these hot statements bun:sqlite binds them measurably faster than
// named ones from an object (test/bench/floor.ts: a sandbox send's store work fell by about 15 %).
const BUMP_COUNT = `INSERT INTO message_counts (account_id, env, phone_id, status, n) VALUES (?1, ?2, ?3, ?4, ?5)
  ON CONFLICT (account_id, env, phone_id, status) DO UPDATE SET n = n + excluded.n`
const BUMP_DAILY = `INSERT INTO message_daily_counts (account_id, env, day_ms, status, n) VALUES (?1, ?2, ?3, ?4, ?5)
  ON CONFLICT (account_id, env, day_ms, status) DO UPDATE SET n = n + excluded.n`

function adjustCounts(db: Database, row: MessageRow, status: MessageStatus, delta: number): void {
  db.query(BUMP_COUNT).run(row.accountId, row.env, row.phoneId, status, delta)
  db.query(BUMP_DAILY).run(row.accountId, row.env, utcDayStartMs(row.createdAtMs), status, delta)
}

const UPDATE_STATUS = `UPDATE messages SET status = ?2, sent_at_ms = ?3, delivered_at_ms = ?4, read_at_ms = ?5, failed_at_ms = ?6,
  error_code = ?7, error_message = ?8, updated_at_ms = ?9, sandbox_delivered_due_ms = ?10, sandbox_read_due_ms = ?11 WHERE id = ?1`

/**
 * Writes status changes computed by the status machine and moves the counters with them, by
 * their net change: one statement per counter touched rather than four per message, since a
 * batch of sandbox transitions moves hundreds of messages between the same few counters.
 */
export function updateMessageStatuses(db: Database, changes: readonly { before: MessageRow; patch: MessageStatusPatch }[], nowMs: number): MessageRow[] {
  const byPhone = new Map<string, { accountId: string; env: string; phoneId: string; status: MessageStatus; delta: number }>()
  const byDay = new Map<string, { accountId: string; env: string; dayMs: number; status: MessageStatus; delta: number }>()
  const count = (row: MessageRow, status: MessageStatus, delta: number) => {
    const dayMs = utcDayStartMs(row.createdAtMs)
    const phoneKey = `${row.accountId}|${row.env}|${row.phoneId}|${status}`
    const dayKey = `${row.accountId}|${row.env}|${dayMs}|${status}`
    const p = byPhone.get(phoneKey) ?? byPhone.set(phoneKey, { accountId: row.accountId, env: row.env, phoneId: row.phoneId, status, delta: 0 }).get(phoneKey)!
    const d = byDay.get(dayKey) ?? byDay.set(dayKey, { accountId: row.accountId, env: row.env, dayMs, status, delta: 0 }).get(dayKey)!
    p.delta += delta
    d.delta += delta
  }
  const updated = changes.map(({ before, patch }) => {
    db.query(UPDATE_STATUS).run(
      before.id, patch.status, patch.sentAtMs, patch.deliveredAtMs, patch.readAtMs, patch.failedAtMs, patch.errorCode,
      patch.errorMessage, nowMs, patch.sandboxDeliveredDueMs, patch.sandboxReadDueMs,
    )
    if (patch.status !== before.status) {
      count(before, before.status, -1)
      count(before, patch.status, 1)
    }
    return { ...before, ...patch, updatedAtMs: nowMs }
  })
  for (const c of byPhone.values()) if (c.delta !== 0) db.query(BUMP_COUNT).run(c.accountId, c.env, c.phoneId, c.status, c.delta)
  for (const c of byDay.values()) if (c.delta !== 0) db.query(BUMP_DAILY).run(c.accountId, c.env, c.dayMs, c.status, c.delta)
  return updated
}

const NEXT_DUE = "COALESCE(sandbox_delivered_due_ms, sandbox_read_due_ms)"
// Both statements name the partial index's expression and its WHERE term verbatim, so SQLite
// seeks messages_sandbox_due instead of scanning the table.
const SELECT_SANDBOX_DUE = `SELECT ${COLUMNS} FROM messages WHERE ${NEXT_DUE} IS NOT NULL AND ${NEXT_DUE} <= ?1
  ORDER BY ${NEXT_DUE} LIMIT ?2`
const SELECT_NEXT_SANDBOX_DUE = `SELECT ${NEXT_DUE} AS dueMs FROM messages WHERE ${NEXT_DUE} IS NOT NULL ORDER BY ${NEXT_DUE} LIMIT 1`

/** Messages with a sandbox change due at or before `nowMs`, earliest first, at most `limit`. */
export function listSandboxDueMessages(db: Database, nowMs: number, limit: number): MessageRow[] {
  return db.query<RawRow, [number, number]>(SELECT_SANDBOX_DUE).all(nowMs, limit).map(fromRaw)
}

/** When the earliest pending sandbox change falls due, or null if none is pending. */
export function nextSandboxDueMs(db: Database): number | null {
  return db.query<{ dueMs: number }, []>(SELECT_NEXT_SANDBOX_DUE).get()?.dueMs ?? null
}

const SELECT_LATER_READ_OF_OVERDUE = `SELECT MIN(sandbox_read_due_ms) AS dueMs FROM messages
  WHERE ${NEXT_DUE} IS NOT NULL AND ${NEXT_DUE} <= ?1 AND sandbox_read_due_ms > ?1`
const SELECT_FIRST_DUE_AFTER = `SELECT ${NEXT_DUE} AS dueMs FROM messages WHERE ${NEXT_DUE} IS NOT NULL AND ${NEXT_DUE} > ?1
  ORDER BY ${NEXT_DUE} LIMIT 1`

/**
 * When the earliest sandbox change after `afterMs` falls due, overdue ones aside (a retry
 * after a failed sweep uses it not to miss a change due before the retry). Reads the overdue
 * rows, so it is for that rare path only.
 */
export function nextSandboxDueAfterMs(db: Database, afterMs: number): number | null {
  const laterRead = db.query<{ dueMs: number | null }, [number]>(SELECT_LATER_READ_OF_OVERDUE).get(afterMs)?.dueMs ?? null
  const firstAfter = db.query<{ dueMs: number }, [number]>(SELECT_FIRST_DUE_AFTER).get(afterMs)?.dueMs ?? null
  if (laterRead === null) return firstAfter
  return firstAfter === null ? laterRead : Math.min(laterRead, firstAfter)
}

const SELECT_BY_ID = `SELECT ${COLUMNS} FROM messages WHERE id = ?`

/** A message by id, whatever its account (internal callers only). */
export function findMessage(db: Database, id: string): MessageRow | null {
  const raw = db.query<RawRow, [string]>(SELECT_BY_ID).get(id)
  return raw ? fromRaw(raw) : null
}

const SELECT_MANY = `SELECT ${COLUMNS} FROM messages WHERE id IN (SELECT value FROM json_each(?))`

/** The messages with these ids that exist, in no particular order (internal callers only). */
export function findMessages(db: Database, ids: readonly string[]): MessageRow[] {
  return db.query<RawRow, [string]>(SELECT_MANY).all(JSON.stringify(ids)).map(fromRaw)
}

const SELECT_SCOPED = `SELECT ${COLUMNS} FROM messages WHERE id = ?1 AND account_id = ?2 AND env = ?3`

/** A message by id within one account and environment; other partitions see nothing. */
export function findScopedMessage(db: Database, accountId: string, env: Environment, id: string): MessageRow | null {
  const raw = db.query<RawRow, [string, string, string]>(SELECT_SCOPED).get(id, accountId, env)
  return raw ? fromRaw(raw) : null
}

const SELECT_BY_IDEMPOTENCY_KEY = `SELECT ${COLUMNS} FROM messages
  WHERE account_id = ?1 AND env = ?2 AND idempotency_key = ?3`

/** The message an idempotency key created in this account and environment, if any. */
export function findMessageByIdempotencyKey(
  db: Database,
  accountId: string,
  env: Environment,
  key: string,
): MessageRow | null {
  const raw = db.query<RawRow, [string, string, string]>(SELECT_BY_IDEMPOTENCY_KEY).get(accountId, env, key)
  return raw ? fromRaw(raw) : null
}

const TOTAL_ALL = "SELECT last_seq AS n FROM message_sequences WHERE account_id = $accountId AND env = $env"
const TOTAL_FILTERED = `SELECT COALESCE(SUM(n), 0) AS n FROM message_counts WHERE account_id = $accountId AND env = $env
  AND ($phoneId IS NULL OR phone_id = $phoneId) AND ($status IS NULL OR status = $status)`
// Without filters, seq is dense, so the page starts at a known seq: an index seek at any depth.
const PAGE_ALL = `SELECT ${COLUMNS} FROM messages WHERE account_id = $accountId AND env = $env AND seq <= $maxSeq
  ORDER BY seq DESC LIMIT $limit`
const PAGE_FILTERED = `SELECT ${COLUMNS} FROM messages WHERE account_id = $accountId AND env = $env
  AND ($phoneId IS NULL OR phone_id = $phoneId) AND ($status IS NULL OR status = $status)
  ORDER BY seq DESC LIMIT $limit OFFSET $offset`

/** One page of messages, newest first, with the total from the counters (never COUNT(*)). */
export function listMessages(db: Database, q: MessageListQuery): { rows: MessageRow[]; total: number } {
  const scope = { accountId: q.accountId, env: q.env }
  if (q.phoneId === undefined && q.status === undefined) {
    const total = db.query<{ n: number }, typeof scope>(TOTAL_ALL).get(scope)?.n ?? 0
    const maxSeq = total - q.offset
    const rows = maxSeq > 0 ? db.query<RawRow, SqlParams>(PAGE_ALL).all({ ...scope, maxSeq, limit: q.limit }) : []
    return { rows: rows.map(fromRaw), total }
  }
  const filters = { ...scope, phoneId: q.phoneId ?? null, status: q.status ?? null }
  const total = db.query<{ n: number }, typeof filters>(TOTAL_FILTERED).get(filters)?.n ?? 0
  if (q.offset >= total) return { rows: [], total }
  const rows = db.query<RawRow, SqlParams>(PAGE_FILTERED).all({ ...filters, limit: q.limit, offset: q.offset })
  return { rows: rows.map(fromRaw), total }
}

const COUNT_BY_ACCOUNT = "SELECT COALESCE(SUM(n), 0) AS n FROM message_counts WHERE account_id = $accountId AND env = $env"
const COUNT_BY_ACCOUNT_ALL_ENVS = "SELECT COALESCE(SUM(n), 0) AS n FROM message_counts WHERE account_id = $accountId"

/** Outbound messages of an account in one environment, or in both when `env` is omitted. */
export function countMessages(db: Database, accountId: string, env?: Environment): number {
  if (env === undefined) return db.query<{ n: number }, SqlParams>(COUNT_BY_ACCOUNT_ALL_ENVS).get({ accountId })!.n
  return db.query<{ n: number }, SqlParams>(COUNT_BY_ACCOUNT).get({ accountId, env })!.n
}

const COUNT_DAILY = `SELECT status, COALESCE(SUM(n), 0) AS n FROM message_daily_counts
  WHERE account_id = $accountId AND env = $env AND day_ms >= $fromDayMs GROUP BY status`

/** Messages created since `fromDayMs` (a UTC day start), by their current status. */
export function countMessagesSince(
  db: Database,
  accountId: string,
  env: Environment,
  fromDayMs: number,
): Record<MessageStatus, number> {
  const out: Record<MessageStatus, number> = { pending: 0, sent: 0, delivered: 0, read: 0, failed: 0 }
  for (const r of db.query<{ status: MessageStatus; n: number }, SqlParams>(COUNT_DAILY).all({ accountId, env, fromDayMs })) {
    out[r.status] = r.n
  }
  return out
}

const LAST_SEQ = "SELECT last_seq AS n FROM message_sequences WHERE account_id = ? AND env = ?"

/**
 * One page of messages by seq (an index seek at any depth: no OFFSET, no count). The statement
 * names only the filters in use, so SQLite can seek the status or phone index (an `x IS NULL OR`
 * test would keep it from using them). Recipients have no index (one would cost every send), so
 * a recipient filter reads a bounded window of the newest messages only.
 */
export function listMessagesWindow(db: Database, q: MessageWindowQuery): MessageRow[] {
  const lastSeq = db.query<{ n: number }, [string, string]>(LAST_SEQ).get(q.accountId, q.env)?.n ?? 0
  const where = ["account_id = $accountId", "env = $env", "seq < $beforeSeq"]
  const params: SqlParams = { accountId: q.accountId, env: q.env, beforeSeq: q.beforeSeq ?? lastSeq + 1, limit: q.limit }
  if (q.status !== undefined) {
    where.push("status = $status")
    params.status = q.status
  }
  if (q.phoneId !== undefined) {
    where.push("phone_id = $phoneId")
    params.phoneId = q.phoneId
  }
  if (q.toAddress !== undefined) {
    where.push("seq > $lowestSeq", "to_address = $toAddress")
    params.toAddress = q.toAddress
    params.lowestSeq = lastSeq - q.recipientScanLimit
  }
  const sql = `SELECT ${COLUMNS} FROM messages WHERE ${where.join(" AND ")} ORDER BY seq DESC LIMIT $limit`
  return db.query<RawRow, SqlParams>(sql).all(params).map(fromRaw)
}

const DAILY = `SELECT day_ms AS dayMs, status, n FROM message_daily_counts
  WHERE account_id = $accountId AND env = $env AND day_ms >= $fromDayMs ORDER BY day_ms`

/** Messages per UTC day and current status since `fromDayMs`, from the daily counters. */
export function dailyMessageCounts(
  db: Database,
  accountId: string,
  env: Environment,
  fromDayMs: number,
): { dayMs: number; status: MessageStatus; n: number }[] {
  return db.query<{ dayMs: number; status: MessageStatus; n: number }, SqlParams>(DAILY).all({ accountId, env, fromDayMs })
}
