import type { SQL } from "bun"
import type { WaResendQueries } from "../store"
import { toBytes } from "./rows"

const UPSERT = `INSERT INTO wa_resend_messages (phone_id, wa_message_id, message, sent_at_ms) VALUES ($1, $2, $3, $4)
  ON CONFLICT (phone_id, wa_message_id) DO UPDATE SET message = excluded.message, sent_at_ms = excluded.sent_at_ms`
const SELECT = "SELECT message FROM wa_resend_messages WHERE phone_id = $1 AND wa_message_id = $2"
// SKIP LOCKED: two nodes pruning at once each take rows the other is not deleting, instead of
// one waiting on the other's locks to find them gone.
const PRUNE = `DELETE FROM wa_resend_messages WHERE (phone_id, wa_message_id) IN (
  SELECT phone_id, wa_message_id FROM wa_resend_messages WHERE sent_at_ms < $1 ORDER BY sent_at_ms LIMIT $2 FOR UPDATE SKIP LOCKED)`

/** src/store/sqlite/wa-resend.ts on PostgreSQL. */
export function pgWaResendQueries(sql: SQL): WaResendQueries {
  return {
    async saveSentWaMessage(row) {
      await sql.unsafe(UPSERT, [row.phoneId, row.waMessageId, row.message, row.sentAtMs])
    },
    async loadSentWaMessage(phoneId, waMessageId) {
      const [row] = await sql.unsafe<{ message: Uint8Array }[]>(SELECT, [phoneId, waMessageId])
      return row ? toBytes(row.message) : null
    },
    async pruneSentWaMessages(cutoffMs, limit) {
      return (await sql.unsafe(PRUNE, [cutoffMs, limit])).count
    },
  }
}
