import type { SQL } from "bun"
import { utcDayStartMs } from "../../lib/time"
import type { MessageStatus } from "../../lib/vocabulary"
import { IdempotencyKeyTaken, type MessageRow, type MessageStatusPatch, type NewMessageRow } from "../messages"
import type { MessagesQueries } from "../store"
import { toNumber, toNumberOrNull } from "./rows"
import { MESSAGE_COLUMNS, messageFromPg, type PgMessage } from "./message-rows"
import { addCountsCtes, countParams, insertCountsCtes, type MessageCountDelta } from "./message-counts"
import { pgMessageListQueries } from "./message-lists"

/*
 * The outbound messages on PostgreSQL: the statements of src/store/sqlite/messages.ts, returning the same
 * rows in the same order. Where they differ, it is for several nodes sharing the database:
 * - seq comes from a sequence, so it grows but is not dense per account: the unfiltered list
 *   pages with OFFSET like the filtered one, and the recipient window finds its lower bound by
 *   counting the newest rows instead of subtracting from the last seq.
 * - a taken idempotency key makes the insert do nothing (ON CONFLICT on the unique index) and
 *   throw IdempotencyKeyTaken; the transaction stays usable, as on SQLite.
 * - the sandbox sweep claims its due rows (FOR UPDATE SKIP LOCKED), so two nodes sweeping at once
 *   never apply the same change twice.
 * - a status batch locks its rows and moves the counters from the status each row really has.
 */

const one = (rows: PgMessage[]): MessageRow | null => (rows.length === 0 ? null : messageFromPg(rows[0]!))

// The row and its counters in one round trip: a taken idempotency key inserts nothing, so the
// counters, which select from the insert, move by nothing and no seq comes back.
const INSERT_MESSAGE = `WITH m AS (
  INSERT INTO messages (id, account_id, env, phone_id, api_key_id, from_number, to_address, is_group, content, media_urls,
    status, idempotency_key, request_fingerprint, created_at_ms, sent_at_ms, delivered_at_ms, read_at_ms, failed_at_ms,
    error_code, error_message, updated_at_ms, sandbox_delivered_due_ms, sandbox_read_due_ms, reply_to, extras)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $24, $25)
  ON CONFLICT (account_id, env, idempotency_key) WHERE idempotency_key IS NOT NULL DO NOTHING
  RETURNING seq, account_id, env, phone_id, status
), ${insertCountsCtes("m", { accountId: "account_id", env: "env", phoneId: "phone_id", status: "status", dayMs: "$26::int8" })}
SELECT seq FROM m`

async function insertMessage(sql: SQL, row: NewMessageRow): Promise<MessageRow> {
  const stored: MessageRow = {
    ...row,
    seq: 0,
    sandboxDeliveredDueMs: row.sandboxDeliveredDueMs ?? null,
    sandboxReadDueMs: row.sandboxReadDueMs ?? null,
    replyTo: row.replyTo ?? null,
    extras: row.extras ?? null,
    editedAtMs: null,
    revokedAtMs: null,
  }
  const inserted: { seq: string }[] = await sql.unsafe(INSERT_MESSAGE, [
    stored.id, stored.accountId, stored.env, stored.phoneId, stored.apiKeyId, stored.fromNumber, stored.toAddress, stored.isGroup,
    stored.content, JSON.stringify(stored.mediaUrls), stored.status, stored.idempotencyKey, stored.requestFingerprint,
    stored.createdAtMs, stored.sentAtMs, stored.deliveredAtMs, stored.readAtMs, stored.failedAtMs, stored.errorCode,
    stored.errorMessage, stored.updatedAtMs, stored.sandboxDeliveredDueMs, stored.sandboxReadDueMs, stored.replyTo,
    stored.extras === null ? null : JSON.stringify(stored.extras), utcDayStartMs(stored.createdAtMs),
  ])
  if (inserted.length === 0) throw new IdempotencyKeyTaken(row.accountId, row.env, row.idempotencyKey!)
  stored.seq = toNumber(inserted[0]!.seq)
  return stored
}

// Locked in id order, so two batches over the same rows wait for each other instead of deadlocking.
const LOCK_STATUSES = "SELECT id, status FROM messages WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE"
// The rows and their counters in one round trip.
const UPDATE_STATUSES = `WITH u AS (
  UPDATE messages m SET status = v.status, sent_at_ms = v.sent_at_ms, delivered_at_ms = v.delivered_at_ms,
    read_at_ms = v.read_at_ms, failed_at_ms = v.failed_at_ms, error_code = v.error_code, error_message = v.error_message,
    updated_at_ms = $11, sandbox_delivered_due_ms = v.sandbox_delivered_due_ms, sandbox_read_due_ms = v.sandbox_read_due_ms
  FROM unnest($1::text[], $2::text[], $3::int8[], $4::int8[], $5::int8[], $6::int8[], $7::text[], $8::text[], $9::int8[], $10::int8[])
    AS v(id, status, sent_at_ms, delivered_at_ms, read_at_ms, failed_at_ms, error_code, error_message, sandbox_delivered_due_ms, sandbox_read_due_ms)
  WHERE m.id = v.id
), ${addCountsCtes(12)}
SELECT 1`

async function updateMessageStatuses(sql: SQL, changes: readonly { before: MessageRow; patch: MessageStatusPatch }[], nowMs: number): Promise<MessageRow[]> {
  if (changes.length === 0) return []
  const locked: { id: string; status: MessageStatus }[] = await sql.unsafe(LOCK_STATUSES, [[...new Set(changes.map((c) => c.before.id))]])
  // The status each row has now (another node may have moved it since the caller read it); a
  // message named twice moves from its first patch to its second.
  const current = new Map(locked.map((r) => [r.id, r.status]))
  const last = new Map<string, MessageStatusPatch>()
  const deltas: MessageCountDelta[] = []
  const count = (row: MessageRow, status: MessageStatus, delta: number) =>
    deltas.push({ accountId: row.accountId, env: row.env, phoneId: row.phoneId, dayMs: utcDayStartMs(row.createdAtMs), status, delta })
  const updated = changes.map(({ before, patch }) => {
    const from = current.get(before.id)
    if (from !== undefined && from !== patch.status) {
      count(before, from, -1)
      count(before, patch.status, 1)
      current.set(before.id, patch.status)
    }
    last.set(before.id, patch)
    return { ...before, ...patch, updatedAtMs: nowMs }
  })
  const patched = [...last.entries()].filter(([id]) => current.has(id))
  if (patched.length === 0) return updated
  const column = <K extends keyof MessageStatusPatch>(k: K) => patched.map(([, p]) => p[k])
  await sql.unsafe(UPDATE_STATUSES, [
    patched.map(([id]) => id), column("status"), column("sentAtMs"), column("deliveredAtMs"), column("readAtMs"),
    column("failedAtMs"), column("errorCode"), column("errorMessage"), column("sandboxDeliveredDueMs"), column("sandboxReadDueMs"), nowMs,
    ...countParams(deltas),
  ])
  return updated
}

const NEXT_DUE = "COALESCE(sandbox_delivered_due_ms, sandbox_read_due_ms)"
// The expression and the WHERE term are the partial index's (messages_sandbox_due), as on SQLite.
export const SELECT_SANDBOX_DUE = `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE ${NEXT_DUE} IS NOT NULL AND ${NEXT_DUE} <= $1
  ORDER BY ${NEXT_DUE} LIMIT $2 FOR UPDATE SKIP LOCKED`
export const SELECT_NEXT_SANDBOX_DUE = `SELECT ${NEXT_DUE} AS "dueMs" FROM messages WHERE ${NEXT_DUE} IS NOT NULL ORDER BY ${NEXT_DUE} LIMIT 1`
const SELECT_NEXT_SANDBOX_DUE_AFTER = `SELECT
  (SELECT MIN(sandbox_read_due_ms) FROM messages WHERE ${NEXT_DUE} IS NOT NULL AND ${NEXT_DUE} <= $1 AND sandbox_read_due_ms > $1) AS "laterRead",
  (SELECT ${NEXT_DUE} FROM messages WHERE ${NEXT_DUE} IS NOT NULL AND ${NEXT_DUE} > $1 ORDER BY ${NEXT_DUE} LIMIT 1) AS "firstAfter"`

async function nextSandboxDueAfterMs(sql: SQL, afterMs: number): Promise<number | null> {
  const [r] = (await sql.unsafe(SELECT_NEXT_SANDBOX_DUE_AFTER, [afterMs])) as { laterRead: string | null; firstAfter: string | null }[]
  const laterRead = toNumberOrNull(r!.laterRead)
  const firstAfter = toNumberOrNull(r!.firstAfter)
  if (laterRead === null) return firstAfter
  return firstAfter === null ? laterRead : Math.min(laterRead, firstAfter)
}

const SELECT_BY_ID = `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE id = $1`
const SELECT_MANY = `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE id = ANY($1::text[])`
const SELECT_SCOPED = `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE id = $1 AND account_id = $2 AND env = $3`
const SELECT_BY_IDEMPOTENCY_KEY = `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE account_id = $1 AND env = $2 AND idempotency_key = $3`

/** The outbound message queries of the seam on `sql` (the pool, or the write's transaction). */
export function pgMessagesQueries(sql: SQL): MessagesQueries {
  return {
    insertMessage: (row) => insertMessage(sql, row),
    updateMessageStatuses: (changes, nowMs) => updateMessageStatuses(sql, changes, nowMs),
    listSandboxDueMessages: async (nowMs, limit) => ((await sql.unsafe(SELECT_SANDBOX_DUE, [nowMs, limit])) as PgMessage[]).map(messageFromPg),
    nextSandboxDueMs: async () => {
      const [r] = (await sql.unsafe(SELECT_NEXT_SANDBOX_DUE)) as { dueMs: string }[]
      return r === undefined ? null : toNumber(r.dueMs)
    },
    nextSandboxDueAfterMs: (afterMs) => nextSandboxDueAfterMs(sql, afterMs),
    findMessage: async (id) => one(await sql.unsafe(SELECT_BY_ID, [id])),
    findMessages: async (ids) => (ids.length === 0 ? [] : ((await sql.unsafe(SELECT_MANY, [[...ids]])) as PgMessage[]).map(messageFromPg)),
    findScopedMessage: async (accountId, env, id) => one(await sql.unsafe(SELECT_SCOPED, [id, accountId, env])),
    findMessageByIdempotencyKey: async (accountId, env, key) => one(await sql.unsafe(SELECT_BY_IDEMPOTENCY_KEY, [accountId, env, key])),
    ...pgMessageListQueries(sql),
  }
}
