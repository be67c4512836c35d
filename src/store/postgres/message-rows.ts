import type { Environment, MessageStatus } from "../../lib/vocabulary"
import type { MessageExtras, MessageRow } from "../messages"
import { toNumber, toNumberOrNull } from "./rows"

/** A message as Bun returns it: int8 columns as strings, JSON columns as text. */
export interface PgMessage {
  id: string
  accountId: string
  env: Environment
  seq: string
  phoneId: string
  apiKeyId: string
  fromNumber: string
  toAddress: string
  isGroup: boolean
  content: string
  mediaUrls: string
  status: MessageStatus
  idempotencyKey: string | null
  requestFingerprint: string
  createdAtMs: string
  sentAtMs: string | null
  deliveredAtMs: string | null
  readAtMs: string | null
  failedAtMs: string | null
  errorCode: string | null
  errorMessage: string | null
  updatedAtMs: string
  sandboxDeliveredDueMs: string | null
  sandboxReadDueMs: string | null
  replyTo: string | null
  extras: string | null
  editedAtMs: string | null
  revokedAtMs: string | null
}

export const MESSAGE_COLUMNS = `id, account_id AS "accountId", env, seq, phone_id AS "phoneId", api_key_id AS "apiKeyId",
  from_number AS "fromNumber", to_address AS "toAddress", is_group AS "isGroup", content, media_urls AS "mediaUrls", status,
  idempotency_key AS "idempotencyKey", request_fingerprint AS "requestFingerprint", created_at_ms AS "createdAtMs",
  sent_at_ms AS "sentAtMs", delivered_at_ms AS "deliveredAtMs", read_at_ms AS "readAtMs", failed_at_ms AS "failedAtMs",
  error_code AS "errorCode", error_message AS "errorMessage", updated_at_ms AS "updatedAtMs",
  sandbox_delivered_due_ms AS "sandboxDeliveredDueMs", sandbox_read_due_ms AS "sandboxReadDueMs", reply_to AS "replyTo", extras,
  edited_at_ms AS "editedAtMs", revoked_at_ms AS "revokedAtMs"`

/** A result row as wagate's MessageRow, parsed the way src/store/sqlite/messages.ts parses it. */
export function messageFromPg(r: PgMessage): MessageRow {
  return {
    id: r.id,
    accountId: r.accountId,
    env: r.env,
    seq: toNumber(r.seq),
    phoneId: r.phoneId,
    apiKeyId: r.apiKeyId,
    fromNumber: r.fromNumber,
    toAddress: r.toAddress,
    isGroup: r.isGroup,
    content: r.content,
    mediaUrls: JSON.parse(r.mediaUrls) as string[],
    status: r.status,
    idempotencyKey: r.idempotencyKey,
    requestFingerprint: r.requestFingerprint,
    createdAtMs: toNumber(r.createdAtMs),
    sentAtMs: toNumberOrNull(r.sentAtMs),
    deliveredAtMs: toNumberOrNull(r.deliveredAtMs),
    readAtMs: toNumberOrNull(r.readAtMs),
    failedAtMs: toNumberOrNull(r.failedAtMs),
    errorCode: r.errorCode,
    errorMessage: r.errorMessage,
    updatedAtMs: toNumber(r.updatedAtMs),
    sandboxDeliveredDueMs: toNumberOrNull(r.sandboxDeliveredDueMs),
    sandboxReadDueMs: toNumberOrNull(r.sandboxReadDueMs),
    replyTo: r.replyTo,
    extras: r.extras === null ? null : (JSON.parse(r.extras) as MessageExtras),
    editedAtMs: toNumberOrNull(r.editedAtMs),
    revokedAtMs: toNumberOrNull(r.revokedAtMs),
  }
}

