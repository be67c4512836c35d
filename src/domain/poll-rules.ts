import { Type } from "@sinclair/typebox"
import { sha256Hex } from "../lib/secrets"
import { named, Timestamp } from "../lib/schema"
import { toIso } from "../lib/time"
import type { PollExtra } from "../store/messages"
import type { PollRow, PollVoteRow } from "../store/polls"

/*
 * A poll's rules and read model (docs/api.md § "Polls"): what a poll may hold, how a vote's
 * options are named, and the tally. WhatsApp names a voter's options by the SHA-256 of their text
 * (Baileys' getAggregateVotesInPollMessage, tulir/whatsmeow msgsecret.go), so a tally maps each
 * hash back to the option it is the hash of.
 */

export const POLL_QUESTION_MAX = 255
export const POLL_OPTIONS_MIN = 2
export const POLL_OPTIONS_MAX = 12
export const POLL_OPTION_MAX = 100

/** One readable message per problem of a poll to send. */
export function pollProblems(poll: PollExtra): string[] {
  const problems: string[] = []
  const length = (s: string) => [...s].length
  if (poll.question.trim() === "") problems.push("poll.question must not be empty")
  if (length(poll.question) > POLL_QUESTION_MAX) problems.push(`poll.question must be at most ${POLL_QUESTION_MAX} characters`)
  if (poll.options.length < POLL_OPTIONS_MIN || poll.options.length > POLL_OPTIONS_MAX) {
    problems.push(`poll.options must hold ${POLL_OPTIONS_MIN} to ${POLL_OPTIONS_MAX} options`)
  }
  poll.options.forEach((option, i) => {
    if (option.trim() === "") problems.push(`poll.options[${i}] must not be empty`)
    if (length(option) > POLL_OPTION_MAX) problems.push(`poll.options[${i}] must be at most ${POLL_OPTION_MAX} characters`)
  })
  const seen = new Set<string>()
  poll.options.forEach((option, i) => {
    if (seen.has(option)) problems.push(`poll.options[${i}] repeats an earlier option: options must be distinct`)
    seen.add(option)
  })
  return problems
}

/** The SHA-256 (hex) of an option's text: how a vote names it. */
export function optionHash(option: string): string {
  return sha256Hex(option)
}

/** The names a vote chose, in the poll's order; hashes no option has are left out. */
export function chosenOptions(poll: Pick<PollRow, "options" | "optionHashes">, hashes: readonly string[]): string[] {
  const chosen = new Set(hashes)
  return poll.options.filter((_, i) => chosen.has(poll.optionHashes[i]!))
}

export const PollVoteData = named(
  "PollVoteEventData",
  Type.Object(
    {
      messageId: Type.String({ description: "The poll's message: `msg_…` for ours, `inmsg_…` for a contact's.", examples: ["msg_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
      voter: Type.String({ description: "E.164 when WhatsApp tells the number, else the `…@lid` JID.", examples: ["+14155550199"] }),
      options: Type.Array(Type.String(), { description: "The options now chosen, in the poll's order; empty when the vote was withdrawn.", examples: [["Pizza"]] }),
      at: Timestamp,
    },
    { description: "Someone voted on a poll, changed their vote or withdrew it; the newest vote replaces the older." },
  ),
)

export function buildPollVoteData(a: { messageId: string; voter: string; options: string[]; atMs: number }): typeof PollVoteData.static {
  return { messageId: a.messageId, voter: a.voter, options: a.options, at: toIso(a.atMs) }
}

/** A poll's results as the API shows them. */
export interface PollResults {
  question: string
  multipleAnswers: boolean
  options: { name: string; votes: number }[]
  voters: { voter: string; options: string[]; at: string }[]
}

/** Tallies a poll from each voter's newest vote; a withdrawn vote lists the voter with no options. */
export function tallyPoll(poll: Pick<PollRow, "question" | "options" | "optionHashes" | "multipleAnswers">, votes: readonly PollVoteRow[]): PollResults {
  const indexOf = new Map(poll.optionHashes.map((hash, i) => [hash, i]))
  const counts = poll.options.map(() => 0)
  const voters = votes.map((v) => {
    const chosen = new Set<number>()
    for (const hash of v.optionHashes) {
      const i = indexOf.get(hash)
      if (i !== undefined) chosen.add(i)
    }
    for (const i of chosen) counts[i]!++
    return { voter: v.voter, options: poll.options.filter((_, i) => chosen.has(i)), at: toIso(v.votedAtMs) }
  })
  return { question: poll.question, multipleAnswers: poll.multipleAnswers, options: poll.options.map((name, i) => ({ name, votes: counts[i]! })), voters }
}

/** The catalogue's entry for poll votes (event-catalogue.ts composes every area's). */
export const POLL_EVENT_ENTRIES = {
  "poll.vote": { data: PollVoteData, firesWhen: "Someone voted on a poll of ours or a contact's, changed their vote or withdrew it." },
} as const
