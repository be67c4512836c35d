import type { Database } from "bun:sqlite"
import { pendingVoteOf, pollOf, voteOf, type PendingVoteColumns, type PendingVoteRow, type PollColumns, type PollRow, type PollVoteRow, type VoteColumns } from "../polls"

const POLL_COLUMNS = "message_id, phone_id, wa_message_id, question, options, option_hashes, multiple_answers, created_at_ms"

export function insertPoll(db: Database, r: PollRow): void {
  db.query(`INSERT INTO polls (${POLL_COLUMNS}) VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (message_id) DO NOTHING`).run(
    r.messageId,
    r.phoneId,
    r.waMessageId,
    r.question,
    JSON.stringify(r.options),
    JSON.stringify(r.optionHashes),
    r.multipleAnswers ? 1 : 0,
    r.createdAtMs,
  )
}

export function findPoll(db: Database, messageId: string): PollRow | null {
  const row = db.query<PollColumns, [string]>(`SELECT ${POLL_COLUMNS} FROM polls WHERE message_id = ?`).get(messageId)
  return row ? pollOf(row) : null
}

export function findPollByWaId(db: Database, phoneId: string, waMessageId: string): PollRow | null {
  const row = db.query<PollColumns, [string, string]>(`SELECT ${POLL_COLUMNS} FROM polls WHERE phone_id = ? AND wa_message_id = ? ORDER BY created_at_ms LIMIT 1`).get(phoneId, waMessageId)
  return row ? pollOf(row) : null
}

// A vote replaces the kept one only when it is newer by its own time: votes may arrive out of
// order (offline queue, a pending vote decrypted later), and the voter's last choice must win.
const UPSERT_VOTE = `INSERT INTO poll_votes (phone_id, poll_wa_message_id, voter, option_hashes, voted_at_ms) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (phone_id, poll_wa_message_id, voter) DO UPDATE SET option_hashes = excluded.option_hashes, voted_at_ms = excluded.voted_at_ms
  WHERE excluded.voted_at_ms > poll_votes.voted_at_ms`

export function upsertPollVote(db: Database, r: PollVoteRow): boolean {
  return db.query(UPSERT_VOTE).run(r.phoneId, r.pollWaMessageId, r.voter, JSON.stringify(r.optionHashes), r.votedAtMs).changes > 0
}

export function listPollVotes(db: Database, phoneId: string, pollWaMessageId: string): PollVoteRow[] {
  return db
    .query<VoteColumns, [string, string]>(
      "SELECT phone_id, poll_wa_message_id, voter, option_hashes, voted_at_ms FROM poll_votes WHERE phone_id = ? AND poll_wa_message_id = ? ORDER BY voted_at_ms, voter",
    )
    .all(phoneId, pollWaMessageId)
    .map(voteOf)
}

export function savePendingVote(db: Database, r: PendingVoteRow): void {
  db.query(
    `INSERT INTO poll_pending_votes (phone_id, poll_wa_message_id, vote_wa_message_id, descriptor, received_at_ms) VALUES (?, ?, ?, ?, ?)
     ON CONFLICT (phone_id, poll_wa_message_id, vote_wa_message_id) DO NOTHING`,
  ).run(r.phoneId, r.pollWaMessageId, r.voteWaMessageId, r.descriptor, r.receivedAtMs)
}

export function listPendingVotes(db: Database, phoneId: string, pollWaMessageId: string): PendingVoteRow[] {
  return db
    .query<PendingVoteColumns, [string, string]>(
      "SELECT phone_id, poll_wa_message_id, vote_wa_message_id, descriptor, received_at_ms FROM poll_pending_votes WHERE phone_id = ? AND poll_wa_message_id = ? ORDER BY received_at_ms, vote_wa_message_id",
    )
    .all(phoneId, pollWaMessageId)
    .map(pendingVoteOf)
}

export function deletePendingVote(db: Database, phoneId: string, pollWaMessageId: string, voteWaMessageId: string): void {
  db.query("DELETE FROM poll_pending_votes WHERE phone_id = ? AND poll_wa_message_id = ? AND vote_wa_message_id = ?").run(phoneId, pollWaMessageId, voteWaMessageId)
}

export function countPendingVotes(db: Database): number {
  return db.query<{ n: number }, []>("SELECT count(*) AS n FROM poll_pending_votes").get()!.n
}
