import { AppError, errors } from "../lib/errors"
import { PollSecretMissingError } from "../whatsapp/gateway"
import type { Principal } from "./api-keys"
import type { DomainContext } from "./context"
import { tellWhatsApp } from "./message-actions"
import { POLL_OPTIONS_MAX, tallyPoll, type PollResults } from "./poll-rules"
import { applyPollVote } from "./polls"
import { connectedSession, inboundRef, type LiveActionDeps } from "./wa-targets"

/*
 * Our vote on a contact's poll (docs/api.md § "Polls"): the phone that received the poll votes,
 * sealed with the poll's stored secret, and the vote is recorded like any voter's, so the results
 * and `poll.vote` include it. The sandbox receives no polls, so a test key finds none to vote on.
 */

/** One readable message per problem of the options chosen. */
export function voteProblems(options: readonly string[], poll: { options: string[]; multipleAnswers: boolean }): string[] {
  const problems: string[] = []
  if (options.length > POLL_OPTIONS_MAX) problems.push(`options must hold at most ${POLL_OPTIONS_MAX} options`)
  if (!poll.multipleAnswers && options.length > 1) problems.push("this poll takes one answer: options must hold at most one option")
  options.forEach((o, i) => {
    if (!poll.options.includes(o)) problems.push(`options[${i}] is not an option of this poll`)
    if (options.indexOf(o) !== i) problems.push(`options[${i}] repeats an earlier option`)
  })
  return problems
}

/** Votes as the receiving phone on a contact's poll (`inmsg_…`); `[]` withdraws our vote. Answers the poll's results. */
export async function voteOnPoll(ctx: DomainContext, deps: LiveActionDeps, principal: Principal, messageId: string, options: string[]): Promise<PollResults> {
  const row = messageId.startsWith("inmsg_") ? await ctx.store.findScopedInbound(principal.accountId, principal.env, messageId) : null
  if (!row) throw errors.inboundNotFound(messageId)
  const poll = await ctx.store.findPoll(messageId)
  if (!poll) throw new AppError("not_found", [`Message ${messageId} is not a poll`])
  const problems = voteProblems(options, poll)
  if (problems.length > 0) throw errors.validation(problems)
  const optionHashes = options.map((o) => poll.optionHashes[poll.options.indexOf(o)]!)
  const session = await connectedSession(ctx, deps.links, row.phoneId)
  try {
    await session.votePoll(inboundRef(row), optionHashes)
  } catch (err) {
    if (err instanceof PollSecretMissingError) {
      throw errors.messageActionRefused(`Message ${messageId} is a poll wagate holds no secret for (it arrived before the phone was linked, or over 30 days ago), so it cannot vote on it`)
    }
    await tellWhatsApp("the vote", () => Promise.reject(err))
  }
  await ctx.store.write(async (q, tx) => {
    // Our newer vote must win even within the same millisecond as our last one.
    const ours = (await q.listPollVotes(row.phoneId, poll.waMessageId)).find((v) => v.voter === row.toNumber)
    const atMs = Math.max(ctx.clock.nowMs(), (ours?.votedAtMs ?? 0) + 1)
    await applyPollVote(ctx, q, tx, row.phoneId, { pollWaMessageId: poll.waMessageId, voter: row.toNumber, optionHashes, atMs })
  })
  return tallyPoll(poll, await ctx.store.listPollVotes(poll.phoneId, poll.waMessageId))
}
