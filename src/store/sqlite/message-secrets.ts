import type { Database } from "bun:sqlite"
import { type MessageSecret, type SecretRow, secretOf } from "../message-secrets"

// The first row stored wins: a message delivered again (offline burst, retry) carries the same
// secret, and a later one reusing the id must not replace the secret edits are encrypted with.
const INSERT = `INSERT INTO wa_message_secrets (phone_id, chat_jid, wa_message_id, sender_jid, sender_alt_jid, secret, created_at_ms)
  VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (phone_id, wa_message_id, chat_jid, sender_jid) DO NOTHING`

/** Stores the secrets of several messages; one already stored for the same chat, id and sender is kept. */
export function saveMessageSecrets(db: Database, rows: readonly MessageSecret[]): void {
  const insert = db.query(INSERT)
  for (const r of rows) insert.run(r.phoneId, r.chatJid, r.waMessageId, r.senderJid, r.senderAltJid, r.secret, r.createdAtMs)
}

const SELECT = `SELECT chat_jid, sender_jid, sender_alt_jid, secret, created_at_ms FROM wa_message_secrets
  WHERE phone_id = ? AND wa_message_id = ? ORDER BY created_at_ms, chat_jid, sender_jid`

/** Every secret a phone stored under a WhatsApp id (usually one), oldest first; the caller picks by chat and sender. */
export function findMessageSecrets(db: Database, phoneId: string, waMessageId: string): MessageSecret[] {
  return db.query<SecretRow, [string, string]>(SELECT).all(phoneId, waMessageId).map((r) => secretOf(phoneId, waMessageId, r))
}

const PRUNE = `DELETE FROM wa_message_secrets WHERE (phone_id, wa_message_id, chat_jid, sender_jid) IN (
  SELECT phone_id, wa_message_id, chat_jid, sender_jid FROM wa_message_secrets WHERE created_at_ms < ? ORDER BY created_at_ms LIMIT ?)`

/** Deletes up to `limit` secrets stored before `cutoffMs`, oldest first; returns how many. */
export function pruneMessageSecrets(db: Database, cutoffMs: number, limit: number): number {
  return db.query(PRUNE).run(cutoffMs, limit).changes
}
