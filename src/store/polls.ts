/*
 * Polls and their votes (docs/api.md § "Polls"). A poll is kept by the wagate message that carries
 * it (an outbound `msg_` or an inbound `inmsg_`) and by its WhatsApp id, which is how a vote names
 * it. Votes are kept by the poll's WhatsApp id, not by the wagate message: a vote may be read
 * before wagate has recorded the poll it belongs to, and it is counted once the poll is known.
 * A vote names its options by the SHA-256 of their text, as WhatsApp sends them; the names are
 * looked up when a poll is tallied. A vote that could not be decrypted yet is kept as it came
 * (an adapter's opaque descriptor) until the secret of its poll arrives.
 */

/** A poll as a message carries it. */
export interface PollRow {
  /** The msg_ or inmsg_ id of the message that carries it. */
  messageId: string
  phoneId: string
  /** The poll message's WhatsApp id, which votes name. */
  waMessageId: string
  question: string
  options: string[]
  /**
   * The SHA-256 (hex) of each option's text as WhatsApp hashed it, in the options' order: what a
   * vote names. Kept beside the names because a contact's option text is stored made safe
   * (bounded, controls escaped), and its hash must be of the text as sent.
   */
  optionHashes: string[]
  multipleAnswers: boolean
  createdAtMs: number
}

/** A voter's newest vote on a poll: the SHA-256 (hex) of each option chosen; none is a withdrawn vote. */
export interface PollVoteRow {
  phoneId: string
  pollWaMessageId: string
  /** E.164 when WhatsApp told the number, else the `…@lid` JID. */
  voter: string
  optionHashes: string[]
  /** The vote's own time (its sender timestamp), which decides which of two votes is newer. */
  votedAtMs: number
}

/** A vote kept encrypted until its poll's secret is known. */
export interface PendingVoteRow {
  phoneId: string
  pollWaMessageId: string
  /** The vote message's WhatsApp id: the same vote delivered twice is kept once. */
  voteWaMessageId: string
  /** Everything the adapter needs to decrypt it later (opaque outside the adapter). */
  descriptor: string
  receivedAtMs: number
}

/** The row columns both databases return for a poll. */
export interface PollColumns {
  message_id: string
  phone_id: string
  wa_message_id: string
  question: string
  options: string
  option_hashes: string
  multiple_answers: number | boolean
  created_at_ms: number
}

export function pollOf(r: PollColumns): PollRow {
  return {
    messageId: r.message_id,
    phoneId: r.phone_id,
    waMessageId: r.wa_message_id,
    question: r.question,
    options: JSON.parse(r.options) as string[],
    optionHashes: JSON.parse(r.option_hashes) as string[],
    multipleAnswers: r.multiple_answers === true || r.multiple_answers === 1,
    createdAtMs: Number(r.created_at_ms),
  }
}

/** The row columns both databases return for a vote. */
export interface VoteColumns {
  phone_id: string
  poll_wa_message_id: string
  voter: string
  option_hashes: string
  voted_at_ms: number
}

export function voteOf(r: VoteColumns): PollVoteRow {
  return {
    phoneId: r.phone_id,
    pollWaMessageId: r.poll_wa_message_id,
    voter: r.voter,
    optionHashes: JSON.parse(r.option_hashes) as string[],
    votedAtMs: Number(r.voted_at_ms),
  }
}

/** The row columns both databases return for a pending vote. */
export interface PendingVoteColumns {
  phone_id: string
  poll_wa_message_id: string
  vote_wa_message_id: string
  descriptor: string
  received_at_ms: number
}

export function pendingVoteOf(r: PendingVoteColumns): PendingVoteRow {
  return {
    phoneId: r.phone_id,
    pollWaMessageId: r.poll_wa_message_id,
    voteWaMessageId: r.vote_wa_message_id,
    descriptor: r.descriptor,
    receivedAtMs: Number(r.received_at_ms),
  }
}

/** src/store/sqlite/polls.ts */
export interface PollsQueries {
  /** Records a poll; the same message recorded again is kept as it was. */
  insertPoll(row: PollRow): Promise<void>
  /** The poll a message carries, or null. */
  findPoll(messageId: string): Promise<PollRow | null>
  /** The poll a phone has under a WhatsApp id, or null. */
  findPollByWaId(phoneId: string, waMessageId: string): Promise<PollRow | null>
  /**
   * Keeps a voter's vote unless a newer one (by `votedAtMs`) is already kept; true when this one
   * is now the voter's vote.
   */
  upsertPollVote(row: PollVoteRow): Promise<boolean>
  /** Every voter's newest vote on a poll, oldest vote first. */
  listPollVotes(phoneId: string, pollWaMessageId: string): Promise<PollVoteRow[]>
  /** Keeps a vote that cannot be decrypted yet; the same vote kept again is ignored. */
  savePendingVote(row: PendingVoteRow): Promise<void>
  /** The votes kept for a poll until its secret arrives, oldest first. */
  listPendingVotes(phoneId: string, pollWaMessageId: string): Promise<PendingVoteRow[]>
  /** Forgets a pending vote once it was decrypted. */
  deletePendingVote(phoneId: string, pollWaMessageId: string, voteWaMessageId: string): Promise<void>
  /** How many votes are kept undecrypted, over every phone (the /metrics gauge). */
  countPendingVotes(): Promise<number>
}
