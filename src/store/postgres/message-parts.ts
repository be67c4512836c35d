import type { SQL } from "bun"
import type { PartRow } from "../message-parts"
import type { MessagePartsQueries } from "../store"
import { toNumberOrNull } from "./rows"

/* The parts of live messages on PostgreSQL: the statements of src/store/sqlite/message-parts.ts. */

type PgPart = Omit<PartRow, "sentAtMs" | "deliveredAtMs" | "readAtMs" | "failedAtMs"> & {
  sentAtMs: string | null
  deliveredAtMs: string | null
  readAtMs: string | null
  failedAtMs: string | null
}

const COLUMNS = `message_id AS "messageId", part_index AS "partIndex", wa_message_id AS "waMessageId", media_url AS "mediaUrl",
  media_kind AS "mediaKind", status, sent_at_ms AS "sentAtMs", delivered_at_ms AS "deliveredAtMs", read_at_ms AS "readAtMs",
  failed_at_ms AS "failedAtMs", error_code AS "errorCode", error_message AS "errorMessage"`

function fromPg(r: PgPart): PartRow {
  return {
    messageId: r.messageId,
    partIndex: r.partIndex,
    waMessageId: r.waMessageId,
    mediaUrl: r.mediaUrl,
    mediaKind: r.mediaKind,
    status: r.status,
    sentAtMs: toNumberOrNull(r.sentAtMs),
    deliveredAtMs: toNumberOrNull(r.deliveredAtMs),
    readAtMs: toNumberOrNull(r.readAtMs),
    failedAtMs: toNumberOrNull(r.failedAtMs),
    errorCode: r.errorCode,
    errorMessage: r.errorMessage,
    // The parts table has no sandbox due times: like SQLite's rows, these leave them out.
  } as PartRow
}

const INSERT_PART = `INSERT INTO message_parts (message_id, part_index, wa_message_id, media_url, status) VALUES ($1, $2, $3, $4, $5)`
const SET_KIND = "UPDATE message_parts SET media_kind = $3 WHERE message_id = $1 AND part_index = $2"
const SELECT_BY_MESSAGE = `SELECT ${COLUMNS} FROM message_parts WHERE message_id = $1 ORDER BY part_index`
const SELECT_BY_WA_ID = `SELECT ${COLUMNS} FROM message_parts WHERE wa_message_id = $1`
const UPDATE_PART = `UPDATE message_parts SET status = $3, sent_at_ms = $4, delivered_at_ms = $5, read_at_ms = $6, failed_at_ms = $7,
  error_code = $8, error_message = $9 WHERE message_id = $1 AND part_index = $2`

/** The message part queries of the seam on `sql` (the pool, or the write's transaction). */
export function pgMessagePartsQueries(sql: SQL): MessagePartsQueries {
  return {
    insertPart: async (row) => void (await sql.unsafe(INSERT_PART, [row.messageId, row.partIndex, row.waMessageId, row.mediaUrl, row.status])),
    setPartMediaKind: async (messageId, partIndex, mediaKind) => void (await sql.unsafe(SET_KIND, [messageId, partIndex, mediaKind])),
    listParts: async (messageId) => ((await sql.unsafe(SELECT_BY_MESSAGE, [messageId])) as PgPart[]).map(fromPg),
    findPartByWaId: async (waMessageId) => {
      const [r] = (await sql.unsafe(SELECT_BY_WA_ID, [waMessageId])) as PgPart[]
      return r === undefined ? null : fromPg(r)
    },
    updatePart: async (row) =>
      void (await sql.unsafe(UPDATE_PART, [
        row.messageId, row.partIndex, row.status, row.sentAtMs, row.deliveredAtMs, row.readAtMs, row.failedAtMs, row.errorCode, row.errorMessage,
      ])),
  }
}
