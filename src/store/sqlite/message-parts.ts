import type { Database } from "bun:sqlite"
import type { PartRow } from "../message-parts"

const COLUMNS = `message_id AS messageId, part_index AS partIndex, wa_message_id AS waMessageId, media_url AS mediaUrl,
  media_kind AS mediaKind, status, sent_at_ms AS sentAtMs, delivered_at_ms AS deliveredAtMs, read_at_ms AS readAtMs, failed_at_ms AS failedAtMs,
  error_code AS errorCode, error_message AS errorMessage`

const INSERT_PART = `INSERT INTO message_parts (message_id, part_index, wa_message_id, media_url, status)
  VALUES ($messageId, $partIndex, $waMessageId, $mediaUrl, $status)`

/** Inserts a part (pending). */
export function insertPart(db: Database, row: Pick<PartRow, "messageId" | "partIndex" | "waMessageId" | "mediaUrl" | "status">): void {
  db.query(INSERT_PART).run({ ...row })
}

const SET_KIND = "UPDATE message_parts SET media_kind = $mediaKind WHERE message_id = $messageId AND part_index = $partIndex"

/** Records the kind of a part's downloaded media. */
export function setPartMediaKind(db: Database, messageId: string, partIndex: number, mediaKind: NonNullable<PartRow["mediaKind"]>): void {
  db.query(SET_KIND).run({ messageId, partIndex, mediaKind })
}

const SELECT_BY_MESSAGE = `SELECT ${COLUMNS} FROM message_parts WHERE message_id = ? ORDER BY part_index`

/** A message's parts, in order. */
export function listParts(db: Database, messageId: string): PartRow[] {
  return db.query<PartRow, [string]>(SELECT_BY_MESSAGE).all(messageId)
}

const SELECT_BY_WA_ID = `SELECT ${COLUMNS} FROM message_parts WHERE wa_message_id = ?`

/** The part WhatsApp knows by this id (receipts and acks are matched by id only). */
export function findPartByWaId(db: Database, waMessageId: string): PartRow | null {
  return db.query<PartRow, [string]>(SELECT_BY_WA_ID).get(waMessageId)
}

const UPDATE_PART = `UPDATE message_parts SET status = $status, sent_at_ms = $sentAtMs, delivered_at_ms = $deliveredAtMs,
  read_at_ms = $readAtMs, failed_at_ms = $failedAtMs, error_code = $errorCode, error_message = $errorMessage
  WHERE message_id = $messageId AND part_index = $partIndex`

/** Writes a part's state. */
export function updatePart(db: Database, row: PartRow): void {
  db.query(UPDATE_PART).run({
    messageId: row.messageId,
    partIndex: row.partIndex,
    status: row.status,
    sentAtMs: row.sentAtMs,
    deliveredAtMs: row.deliveredAtMs,
    readAtMs: row.readAtMs,
    failedAtMs: row.failedAtMs,
    errorCode: row.errorCode,
    errorMessage: row.errorMessage,
  })
}
