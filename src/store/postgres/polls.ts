import type { SQL } from "bun"
import { pendingVoteOf, pollOf, voteOf, type PendingVoteColumns, type PollColumns, type VoteColumns } from "../polls"
import type { PollsQueries } from "../polls"

const POLL_COLUMNS = "message_id, phone_id, wa_message_id, question, options, option_hashes, multiple_answers, created_at_ms"
// As src/store/sqlite/polls.ts: a vote replaces the kept one only when it is newer by its own time.
const UPSERT_VOTE = `INSERT INTO poll_votes (phone_id, poll_wa_message_id, voter, option_hashes, voted_at_ms) VALUES ($1, $2, $3, $4, $5)
  ON CONFLICT (phone_id, poll_wa_message_id, voter) DO UPDATE SET option_hashes = excluded.option_hashes, voted_at_ms = excluded.voted_at_ms
  WHERE excluded.voted_at_ms > poll_votes.voted_at_ms`

/** src/store/sqlite/polls.ts on PostgreSQL. */
export function pgPollsQueries(sql: SQL): PollsQueries {
  return {
    async insertPoll(r) {
      await sql.unsafe(`INSERT INTO polls (${POLL_COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8) ON CONFLICT (message_id) DO NOTHING`, [
        r.messageId,
        r.phoneId,
        r.waMessageId,
        r.question,
        JSON.stringify(r.options),
        JSON.stringify(r.optionHashes),
        r.multipleAnswers,
        r.createdAtMs,
      ])
    },
    async findPoll(messageId) {
      const [row] = await sql.unsafe<PollColumns[]>(`SELECT ${POLL_COLUMNS} FROM polls WHERE message_id = $1`, [messageId])
      return row ? pollOf(row) : null
    },
    async findPollByWaId(phoneId, waMessageId) {
      const [row] = await sql.unsafe<PollColumns[]>(`SELECT ${POLL_COLUMNS} FROM polls WHERE phone_id = $1 AND wa_message_id = $2 ORDER BY created_at_ms LIMIT 1`, [phoneId, waMessageId])
      return row ? pollOf(row) : null
    },
    async upsertPollVote(r) {
      return (await sql.unsafe(UPSERT_VOTE, [r.phoneId, r.pollWaMessageId, r.voter, JSON.stringify(r.optionHashes), r.votedAtMs])).count > 0
    },
    async listPollVotes(phoneId, pollWaMessageId) {
      const rows = await sql.unsafe<VoteColumns[]>(
        "SELECT phone_id, poll_wa_message_id, voter, option_hashes, voted_at_ms FROM poll_votes WHERE phone_id = $1 AND poll_wa_message_id = $2 ORDER BY voted_at_ms, voter",
        [phoneId, pollWaMessageId],
      )
      return rows.map(voteOf)
    },
    async savePendingVote(r) {
      await sql.unsafe(
        `INSERT INTO poll_pending_votes (phone_id, poll_wa_message_id, vote_wa_message_id, descriptor, received_at_ms) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (phone_id, poll_wa_message_id, vote_wa_message_id) DO NOTHING`,
        [r.phoneId, r.pollWaMessageId, r.voteWaMessageId, r.descriptor, r.receivedAtMs],
      )
    },
    async listPendingVotes(phoneId, pollWaMessageId) {
      const rows = await sql.unsafe<PendingVoteColumns[]>(
        "SELECT phone_id, poll_wa_message_id, vote_wa_message_id, descriptor, received_at_ms FROM poll_pending_votes WHERE phone_id = $1 AND poll_wa_message_id = $2 ORDER BY received_at_ms, vote_wa_message_id",
        [phoneId, pollWaMessageId],
      )
      return rows.map(pendingVoteOf)
    },
    async deletePendingVote(phoneId, pollWaMessageId, voteWaMessageId) {
      await sql.unsafe("DELETE FROM poll_pending_votes WHERE phone_id = $1 AND poll_wa_message_id = $2 AND vote_wa_message_id = $3", [phoneId, pollWaMessageId, voteWaMessageId])
    },
    async countPendingVotes() {
      const [row] = await sql.unsafe<{ n: string | number }[]>("SELECT count(*) AS n FROM poll_pending_votes")
      return Number(row?.n ?? 0)
    },
  }
}
