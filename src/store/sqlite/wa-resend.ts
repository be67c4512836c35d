import type { Database } from "bun:sqlite"
import type { SentWaMessage } from "../wa-resend"

const UPSERT = `INSERT INTO wa_resend_messages (phone_id, wa_message_id, message, sent_at_ms)
  VALUES ($phoneId, $waMessageId, $message, $sentAtMs)
  ON CONFLICT (phone_id, wa_message_id) DO UPDATE SET message = excluded.message, sent_at_ms = excluded.sent_at_ms`

/** Stores (or, for a part sent again after a reconnect, replaces) a sent message. */
export function saveSentWaMessage(db: Database, row: SentWaMessage): void {
  db.query(UPSERT).run({ phoneId: row.phoneId, waMessageId: row.waMessageId, message: row.message, sentAtMs: row.sentAtMs })
}

const SELECT = "SELECT message FROM wa_resend_messages WHERE phone_id = ? AND wa_message_id = ?"

/** The stored message bytes, or null when never stored or already pruned. */
export function loadSentWaMessage(db: Database, phoneId: string, waMessageId: string): Uint8Array | null {
  const row = db.query<{ message: Uint8Array }, [string, string]>(SELECT).get(phoneId, waMessageId)
  return row ? row.message : null
}

const PRUNE = `DELETE FROM wa_resend_messages WHERE (phone_id, wa_message_id) IN (
  SELECT phone_id, wa_message_id FROM wa_resend_messages WHERE sent_at_ms < ? ORDER BY sent_at_ms LIMIT ?)`

/** Deletes up to `limit` messages sent before `cutoffMs`, oldest first; returns how many. */
export function pruneSentWaMessages(db: Database, cutoffMs: number, limit: number): number {
  return db.query(PRUNE).run(cutoffMs, limit).changes
}
