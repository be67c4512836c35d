import type { Database } from "bun:sqlite"
import type { CallOutcome, Environment } from "../../lib/vocabulary"
import type { CallPolicy, CallRow } from "../calls"

/* Incoming calls, call policies and the policy's replies (src/store/calls.ts). */

interface SqliteCall extends Omit<CallRow, "isVideo" | "isGroup"> {
  isVideo: number
  isGroup: number
}

const COLUMNS = `phone_id AS phoneId, env, call_id AS callId, caller, caller_jid AS callerJid, is_video AS isVideo, is_group AS isGroup,
  offered_at_ms AS offeredAtMs, ended_at_ms AS endedAtMs, outcome`

const fromRow = (r: SqliteCall): CallRow => ({ ...r, isVideo: r.isVideo === 1, isGroup: r.isGroup === 1 })

// An offer WhatsApp sends again (offline burst, reconnect) keeps the first row: it is the same call.
const INSERT = `INSERT INTO calls (phone_id, env, call_id, caller, caller_jid, is_video, is_group, offered_at_ms, ended_at_ms, outcome)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL) ON CONFLICT (phone_id, call_id) DO NOTHING`

/** Records a call offered to a phone; false when it was recorded before. */
export function insertCall(db: Database, c: Omit<CallRow, "endedAtMs" | "outcome">): boolean {
  return db.query(INSERT).run(c.phoneId, c.env, c.callId, c.caller, c.callerJid, c.isVideo ? 1 : 0, c.isGroup ? 1 : 0, c.offeredAtMs).changes === 1
}

/** One call of a phone in one environment, or null. */
export function findCall(db: Database, phoneId: string, env: Environment, callId: string): CallRow | null {
  const r = db.query<SqliteCall, [string, string, string]>(`SELECT ${COLUMNS} FROM calls WHERE phone_id = ? AND env = ? AND call_id = ?`).get(phoneId, env, callId)
  return r === null ? null : fromRow(r)
}

/** Ends a ringing call; false when it is unknown or had ended (its first end stands). */
export function endCall(db: Database, phoneId: string, callId: string, outcome: CallOutcome, endedAtMs: number): boolean {
  return db.query(`UPDATE calls SET ended_at_ms = ?, outcome = ? WHERE phone_id = ? AND call_id = ? AND ended_at_ms IS NULL`).run(endedAtMs, outcome, phoneId, callId).changes === 1
}

/** Deletes a phone's calls offered before `beforeMs`; returns how many. */
export function pruneCalls(db: Database, phoneId: string, beforeMs: number): number {
  return db.query(`DELETE FROM calls WHERE phone_id = ? AND offered_at_ms < ?`).run(phoneId, beforeMs).changes
}

/** A phone's call policy, or null when it has none (calls ring as on any linked device). */
export function findCallPolicy(db: Database, phoneId: string): CallPolicy | null {
  const r = db
    .query<{ phoneId: string; rejectCalls: number; replyText: string | null; updatedAtMs: number }, [string]>(
      `SELECT phone_id AS phoneId, reject_calls AS rejectCalls, reply_text AS replyText, updated_at_ms AS updatedAtMs FROM call_policies WHERE phone_id = ?`,
    )
    .get(phoneId)
  return r === null ? null : { ...r, rejectCalls: r.rejectCalls === 1 }
}

/** Sets a phone's call policy, replacing the one it had. */
export function saveCallPolicy(db: Database, p: CallPolicy): void {
  db.query(
    `INSERT INTO call_policies (phone_id, reject_calls, reply_text, updated_at_ms) VALUES (?, ?, ?, ?)
     ON CONFLICT (phone_id) DO UPDATE SET reject_calls = excluded.reject_calls, reply_text = excluded.reply_text, updated_at_ms = excluded.updated_at_ms`,
  ).run(p.phoneId, p.rejectCalls ? 1 : 0, p.replyText, p.updatedAtMs)
}

// One statement decides: a caller never answered, or last answered at least `windowMs` ago, is
// claimed; two nodes or two calls at once cannot both claim the same hour.
const CLAIM_REPLY = `INSERT INTO call_replies (phone_id, env, caller, replied_at_ms) VALUES (?, ?, ?, ?)
  ON CONFLICT (phone_id, env, caller) DO UPDATE SET replied_at_ms = excluded.replied_at_ms WHERE call_replies.replied_at_ms <= ?`

/** Claims the reply to a caller of one environment at `nowMs`; false when the caller got one less than `windowMs` ago. */
export function claimCallReply(db: Database, phoneId: string, env: Environment, caller: string, nowMs: number, windowMs: number): boolean {
  return db.query(CLAIM_REPLY).run(phoneId, env, caller, nowMs, nowMs - windowMs).changes === 1
}
