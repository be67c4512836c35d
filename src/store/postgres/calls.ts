import type { SQL } from "bun"
import type { CallOutcome } from "../../lib/vocabulary"
import type { CallRow } from "../calls"
import type { CallsQueries } from "../store"
import { toNumber, toNumberOrNull } from "./rows"

/* src/store/sqlite/calls.ts on PostgreSQL: the same statements, the same rows. */

interface PgCall extends Omit<CallRow, "offeredAtMs" | "endedAtMs"> {
  offeredAtMs: string
  endedAtMs: string | null
}

const COLUMNS = `phone_id AS "phoneId", env, call_id AS "callId", caller, caller_jid AS "callerJid", is_video AS "isVideo", is_group AS "isGroup",
  offered_at_ms AS "offeredAtMs", ended_at_ms AS "endedAtMs", outcome`

const INSERT = `INSERT INTO calls (phone_id, env, call_id, caller, caller_jid, is_video, is_group, offered_at_ms)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (phone_id, call_id) DO NOTHING`
const END = `UPDATE calls SET ended_at_ms = $1, outcome = $2 WHERE phone_id = $3 AND call_id = $4 AND ended_at_ms IS NULL`
const SAVE_POLICY = `INSERT INTO call_policies (phone_id, reject_calls, reply_text, updated_at_ms) VALUES ($1, $2, $3, $4)
  ON CONFLICT (phone_id) DO UPDATE SET reject_calls = EXCLUDED.reject_calls, reply_text = EXCLUDED.reply_text, updated_at_ms = EXCLUDED.updated_at_ms`
const CLAIM_REPLY = `INSERT INTO call_replies AS r (phone_id, env, caller, replied_at_ms) VALUES ($1, $2, $3, $4)
  ON CONFLICT (phone_id, env, caller) DO UPDATE SET replied_at_ms = EXCLUDED.replied_at_ms WHERE r.replied_at_ms <= $5`

/** The call queries of the seam on `sql` (the pool, or the write's transaction). */
export function pgCallsQueries(sql: SQL): CallsQueries {
  return {
    async insertCall(c) {
      return (await sql.unsafe(INSERT, [c.phoneId, c.env, c.callId, c.caller, c.callerJid, c.isVideo, c.isGroup, c.offeredAtMs])).count === 1
    },
    async findCall(phoneId, env, callId) {
      const [r] = (await sql.unsafe(`SELECT ${COLUMNS} FROM calls WHERE phone_id = $1 AND env = $2 AND call_id = $3`, [phoneId, env, callId])) as PgCall[]
      return r === undefined ? null : { ...r, offeredAtMs: toNumber(r.offeredAtMs), endedAtMs: toNumberOrNull(r.endedAtMs), outcome: r.outcome as CallOutcome | null }
    },
    async endCall(phoneId, callId, outcome, endedAtMs) {
      return (await sql.unsafe(END, [endedAtMs, outcome, phoneId, callId])).count === 1
    },
    async pruneCalls(phoneId, beforeMs) {
      return (await sql.unsafe(`DELETE FROM calls WHERE phone_id = $1 AND offered_at_ms < $2`, [phoneId, beforeMs])).count
    },
    async findCallPolicy(phoneId) {
      const [r] = (await sql.unsafe(
        `SELECT phone_id AS "phoneId", reject_calls AS "rejectCalls", reply_text AS "replyText", updated_at_ms AS "updatedAtMs" FROM call_policies WHERE phone_id = $1`,
        [phoneId],
      )) as { phoneId: string; rejectCalls: boolean; replyText: string | null; updatedAtMs: string }[]
      return r === undefined ? null : { ...r, updatedAtMs: toNumber(r.updatedAtMs) }
    },
    async saveCallPolicy(p) {
      await sql.unsafe(SAVE_POLICY, [p.phoneId, p.rejectCalls, p.replyText, p.updatedAtMs])
    },
    async claimCallReply(phoneId, env, caller, nowMs, windowMs) {
      return (await sql.unsafe(CLAIM_REPLY, [phoneId, env, caller, nowMs, nowMs - windowMs])).count === 1
    },
  }
}
