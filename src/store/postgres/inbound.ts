import type { SQL } from "bun"
import type { Environment, InboundType } from "../../lib/vocabulary"
import type { InboundListQuery, InboundRow, StoredContact, StoredInboundMedia, StoredLocation } from "../inbound"
import type { InboundQueries } from "../store"
import { toNumber, toNumberOrNull } from "./rows"
import { COUNTER_SHARD } from "./message-counts"

/*
 * Inbound messages and reactions on PostgreSQL: the statements of src/store/sqlite/inbound.ts, returning
 * the same rows in the same order. seq comes from the table's identity sequence (not dense, and
 * a redelivery that inserts nothing may still use up a number), so the list pages with OFFSET and
 * the window seeks by seq exactly as on SQLite. A redelivery is refused by the unique index
 * (ON CONFLICT DO NOTHING), which also holds when two nodes record the same message at once.
 */

export interface PgInbound {
  id: string
  accountId: string
  env: Environment
  seq: string
  phoneId: string
  waMessageId: string
  fromAddress: string
  fromUsername: string | null
  toNumber: string
  content: string
  type: InboundType
  isGroup: boolean
  groupId: string | null
  receivedAtMs: string
  createdAtMs: string
  replyToId: string | null
  media: string | null
  mediaGoneAtMs: string | null
  location: string | null
  contact: string | null
  editedAtMs: string | null
  revokedAtMs: string | null
}

export const COLUMNS = `id, account_id AS "accountId", env, seq, phone_id AS "phoneId", wa_message_id AS "waMessageId",
  from_address AS "fromAddress", to_number AS "toNumber", content, type, is_group AS "isGroup", group_id AS "groupId",
  received_at_ms AS "receivedAtMs", created_at_ms AS "createdAtMs", reply_to_id AS "replyToId", media_json AS media,
  media_gone_at_ms AS "mediaGoneAtMs", location_json AS location, contact_json AS contact, edited_at_ms AS "editedAtMs",
  revoked_at_ms AS "revokedAtMs", from_username AS "fromUsername"`

const parse = <T>(json: string | null): T | null => (json === null ? null : (JSON.parse(json) as T))
const json = (value: unknown): string | null => (value === null || value === undefined ? null : JSON.stringify(value))

export function fromPg(r: PgInbound): InboundRow {
  return {
    id: r.id,
    accountId: r.accountId,
    env: r.env,
    seq: toNumber(r.seq),
    phoneId: r.phoneId,
    waMessageId: r.waMessageId,
    fromAddress: r.fromAddress,
    fromUsername: r.fromUsername,
    toNumber: r.toNumber,
    content: r.content,
    type: r.type,
    isGroup: r.isGroup,
    groupId: r.groupId,
    receivedAtMs: toNumber(r.receivedAtMs),
    createdAtMs: toNumber(r.createdAtMs),
    replyToId: r.replyToId,
    media: parse<StoredInboundMedia>(r.media),
    mediaGoneAtMs: toNumberOrNull(r.mediaGoneAtMs),
    location: parse<StoredLocation>(r.location),
    contact: parse<StoredContact>(r.contact),
    editedAtMs: toNumberOrNull(r.editedAtMs),
    revokedAtMs: toNumberOrNull(r.revokedAtMs),
  }
}

const rowsOf = async (q: Promise<PgInbound[]>): Promise<InboundRow[]> => (await q).map(fromPg)
const oneOf = async (q: Promise<PgInbound[]>): Promise<InboundRow | null> => {
  const [r] = await q
  return r === undefined ? null : fromPg(r)
}

const SELECT_SCOPED = `SELECT ${COLUMNS} FROM inbound_messages WHERE id = $1 AND account_id = $2 AND env = $3`
const SELECT_BY_ID = `SELECT ${COLUMNS} FROM inbound_messages WHERE id = $1`
const SELECT_BY_WA_ID = `SELECT ${COLUMNS} FROM inbound_messages WHERE phone_id = $1 AND wa_message_id = $2`

const TOTAL = `SELECT COALESCE(SUM(n), 0) AS n FROM inbound_counts WHERE account_id = $1 AND env = $2
  AND ($3::text IS NULL OR phone_id = $3)`
const PAGE = `SELECT ${COLUMNS} FROM inbound_messages WHERE account_id = $1 AND env = $2
  AND ($3::text IS NULL OR phone_id = $3) ORDER BY seq DESC LIMIT $4 OFFSET $5`

async function listInbound(sql: SQL, q: InboundListQuery): Promise<{ rows: InboundRow[]; total: number }> {
  const phoneId = q.phoneId ?? null
  const [t] = (await sql.unsafe(TOTAL, [q.accountId, q.env, phoneId])) as { n: string }[]
  const total = toNumber(t!.n)
  if (q.offset >= total) return { rows: [], total }
  return { rows: await rowsOf(sql.unsafe(PAGE, [q.accountId, q.env, phoneId, q.limit, q.offset])), total }
}

// The row and its counter in one round trip; a redelivery inserts nothing, so nothing is counted.
const INSERT_INBOUND = `WITH i AS (
  INSERT INTO inbound_messages (id, account_id, env, phone_id, wa_message_id, from_address, to_number, content, type, is_group,
    group_id, received_at_ms, created_at_ms, reply_to_id, media_json, media_gone_at_ms, location_json, contact_json,
    edited_at_ms, revoked_at_ms, from_username)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21)
  ON CONFLICT (phone_id, wa_message_id) DO NOTHING
  RETURNING seq, account_id, env, phone_id
), c AS (
  INSERT INTO inbound_counts (account_id, env, phone_id, shard, n) SELECT account_id, env, phone_id, ${COUNTER_SHARD}, 1 FROM i
  ON CONFLICT (account_id, env, phone_id, shard) DO UPDATE SET n = inbound_counts.n + 1
)
SELECT seq FROM i`

async function insertInbound(sql: SQL, row: Omit<InboundRow, "seq">): Promise<InboundRow | null> {
  const [inserted] = (await sql.unsafe(INSERT_INBOUND, [
    row.id, row.accountId, row.env, row.phoneId, row.waMessageId, row.fromAddress, row.toNumber, row.content, row.type, row.isGroup,
    row.groupId, row.receivedAtMs, row.createdAtMs, row.replyToId, json(row.media), row.mediaGoneAtMs, json(row.location),
    json(row.contact), row.editedAtMs, row.revokedAtMs, row.fromUsername,
  ])) as { seq: string }[]
  return inserted === undefined ? null : { ...row, seq: toNumber(inserted.seq) }
}

function listInboundWindow(sql: SQL, q: Parameters<InboundQueries["listInboundWindow"]>[0]): Promise<InboundRow[]> {
  // Only the filters in use are named, so a phone filter seeks the phone index.
  const params: unknown[] = [q.accountId, q.env]
  const where = ["account_id = $1", "env = $2"]
  if (q.beforeSeq !== null) where.push(`seq < $${params.push(q.beforeSeq)}`)
  if (q.phoneId !== undefined) where.push(`phone_id = $${params.push(q.phoneId)}`)
  const text = `SELECT ${COLUMNS} FROM inbound_messages WHERE ${where.join(" AND ")} ORDER BY seq DESC LIMIT $${params.push(q.limit)}`
  return rowsOf(sql.unsafe(text, params))
}

const UPSERT_REACTION = `INSERT INTO message_reactions (target_id, from_address, emoji, at_ms) VALUES ($1, $2, $3, $4)
  ON CONFLICT (target_id, from_address) DO UPDATE SET emoji = excluded.emoji, at_ms = excluded.at_ms`
const DELETE_REACTION = "DELETE FROM message_reactions WHERE target_id = $1 AND from_address = $2"
const SELECT_REACTIONS = `SELECT from_address AS "fromAddress", emoji, at_ms AS "atMs" FROM message_reactions WHERE target_id = $1 ORDER BY at_ms`

/** The inbound message and reaction queries of the seam on `sql` (the pool, or the write's transaction). */
export function pgInboundQueries(sql: SQL): InboundQueries {
  return {
    findScopedInbound: (accountId, env, id) => oneOf(sql.unsafe(SELECT_SCOPED, [id, accountId, env])),
    listInbound: (q) => listInbound(sql, q),
    insertInbound: (row) => insertInbound(sql, row),
    listInboundWindow: (q) => listInboundWindow(sql, q),
    findInbound: (id) => oneOf(sql.unsafe(SELECT_BY_ID, [id])),
    findInboundByWaId: (phoneId, waMessageId) => oneOf(sql.unsafe(SELECT_BY_WA_ID, [phoneId, waMessageId])),
    markInboundEdited: async (id, content, editedAtMs) => void (await sql.unsafe("UPDATE inbound_messages SET content = $1, edited_at_ms = $2 WHERE id = $3", [content, editedAtMs, id])),
    markInboundRevoked: async (id, revokedAtMs) => void (await sql.unsafe("UPDATE inbound_messages SET revoked_at_ms = $1 WHERE id = $2", [revokedAtMs, id])),
    updateInboundMediaDescriptor: async (id, media) => void (await sql.unsafe("UPDATE inbound_messages SET media_json = $1 WHERE id = $2", [JSON.stringify(media), id])),
    markInboundMediaGone: async (id, atMs) => void (await sql.unsafe("UPDATE inbound_messages SET media_gone_at_ms = $1 WHERE id = $2", [atMs, id])),
    recordReaction: async (targetId, fromAddress, emoji, atMs) => {
      if (emoji === "") await sql.unsafe(DELETE_REACTION, [targetId, fromAddress])
      else await sql.unsafe(UPSERT_REACTION, [targetId, fromAddress, emoji, atMs])
    },
    listReactions: async (targetId) =>
      ((await sql.unsafe(SELECT_REACTIONS, [targetId])) as { fromAddress: string; emoji: string; atMs: string }[]).map((r) => ({
        fromAddress: r.fromAddress,
        emoji: r.emoji,
        atMs: toNumber(r.atMs),
      })),
  }
}
