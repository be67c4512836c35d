import type { SQL } from "bun"
import { secretOf } from "../message-secrets"
import type { MessageSecretsQueries } from "../store"
import { toBytes } from "./rows"

// An upsert's rows travel as one array per column (`unnest`), one statement however many; the
// secrets as hex text, which decode() turns back into bytea.
const INSERT = `INSERT INTO wa_message_secrets (phone_id, chat_jid, wa_message_id, sender_jid, sender_alt_jid, secret, created_at_ms)
  SELECT p, c, w, s, a, decode(x, 'hex'), t FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int8[]) AS v(p, c, w, s, a, x, t)
  ON CONFLICT (phone_id, wa_message_id, chat_jid, sender_jid) DO NOTHING`
const SELECT = `SELECT chat_jid, sender_jid, sender_alt_jid, secret, created_at_ms FROM wa_message_secrets
  WHERE phone_id = $1 AND wa_message_id = $2 ORDER BY created_at_ms, chat_jid, sender_jid`
// SKIP LOCKED, as wa-resend.ts: two nodes pruning at once each take rows the other is not deleting.
const PRUNE = `DELETE FROM wa_message_secrets WHERE (phone_id, wa_message_id, chat_jid, sender_jid) IN (
  SELECT phone_id, wa_message_id, chat_jid, sender_jid FROM wa_message_secrets WHERE created_at_ms < $1 ORDER BY created_at_ms LIMIT $2 FOR UPDATE SKIP LOCKED)`

/** src/store/sqlite/message-secrets.ts on PostgreSQL. */
export function pgMessageSecretsQueries(sql: SQL): MessageSecretsQueries {
  return {
    async saveMessageSecrets(rows) {
      if (rows.length === 0) return
      const column = <T>(f: (r: (typeof rows)[number]) => T) => rows.map(f)
      await sql.unsafe(INSERT, [
        column((r) => r.phoneId),
        column((r) => r.chatJid),
        column((r) => r.waMessageId),
        column((r) => r.senderJid),
        column((r) => r.senderAltJid),
        column((r) => Buffer.from(r.secret).toString("hex")),
        column((r) => r.createdAtMs),
      ])
    },
    async findMessageSecrets(phoneId, waMessageId) {
      const rows = await sql.unsafe<{ chat_jid: string; sender_jid: string; sender_alt_jid: string | null; secret: Uint8Array; created_at_ms: number }[]>(SELECT, [
        phoneId,
        waMessageId,
      ])
      return rows.map((r) => secretOf(phoneId, waMessageId, { ...r, secret: toBytes(r.secret) }))
    },
    async pruneMessageSecrets(cutoffMs, limit) {
      return (await sql.unsafe(PRUNE, [cutoffMs, limit])).count
    },
  }
}
