import { AppError, errors } from "../lib/errors"
import type { Environment } from "../lib/vocabulary"
import type { MessageRow, PollExtra } from "../store/messages"
import type { PollRow, PollVoteRow } from "../store/polls"
import type { StoreQueries, WriteTx } from "../store/store"
import type { Principal } from "./api-keys"
import type { DomainContext } from "./context"
import { buildPollVoteData, chosenOptions, optionHash, tallyPoll, type PollResults } from "./poll-rules"
import { waMessageIdFor } from "./wa-ids"
import type { PollVoteSeen } from "../whatsapp/gateway"

/*
 * Polls and their votes (docs/api.md § "Polls"). Every poll, ours and contacts', is recorded with
 * the WhatsApp id its votes name; every vote is kept by that id and by voter, newest first by the
 * vote's own time. Nothing here is held in memory: a vote read after a restart, on another node,
 * or before its poll was recorded is counted from the store alike. The encrypted half of the
 * story (a vote kept until its poll's secret arrives) is the adapter's
 * (src/whatsapp/baileys/poll-votes.ts).
 */

/** Records the poll an accepted send carries; a poll is sent as the message's only part. */
export async function recordSentPoll(q: StoreQueries, message: MessageRow, poll: PollExtra): Promise<void> {
  await q.insertPoll({
    messageId: message.id,
    phoneId: message.phoneId,
    waMessageId: waMessageIdFor(message.id, 0),
    ...poll,
    optionHashes: poll.options.map(optionHash),
    createdAtMs: message.createdAtMs,
  })
}

/** A vote as the adapter read it (the port's PollVoteSeen). */
export type PollVote = PollVoteSeen

/**
 * Keeps a vote and, when its poll is known and it is the voter's newest, emits `poll.vote`, in
 * one transaction. A vote older than the one kept changes nothing and emits nothing.
 */
export async function recordPollVote(ctx: DomainContext, phoneId: string, vote: PollVote): Promise<boolean> {
  return ctx.store.write((q, tx) => applyPollVote(ctx, q, tx, phoneId, vote))
}

/** recordPollVote inside a transaction the caller holds. */
export async function applyPollVote(ctx: DomainContext, q: StoreQueries, tx: WriteTx, phoneId: string, vote: PollVote): Promise<boolean> {
  const row: PollVoteRow = { phoneId, pollWaMessageId: vote.pollWaMessageId, voter: vote.voter, optionHashes: vote.optionHashes, votedAtMs: vote.atMs }
  if (vote.keptAs !== undefined) await q.deletePendingVote(phoneId, vote.pollWaMessageId, vote.keptAs)
  if (!(await q.upsertPollVote(row))) return false
  const poll = await q.findPollByWaId(phoneId, vote.pollWaMessageId)
  const phone = await q.findPhone(phoneId)
  // A vote on a poll wagate has not recorded is kept, and counted once the poll is.
  if (!poll || !phone) return true
  const env = poll.messageId.startsWith("msg_") ? ((await q.findMessage(poll.messageId))?.env ?? "live") : "live"
  await recordVoteEvent(ctx, q, tx, { accountId: phone.accountId, env }, poll, row)
  return true
}

/** The `poll.vote` event of one voter's kept vote on a recorded poll. */
async function recordVoteEvent(ctx: DomainContext, q: StoreQueries, tx: WriteTx, to: { accountId: string; env: Environment }, poll: PollRow, vote: PollVoteRow): Promise<void> {
  await ctx.events.record(q, tx, {
    ...to,
    type: "poll.vote",
    occurredAtMs: ctx.clock.nowMs(),
    data: buildPollVoteData({ messageId: poll.messageId, voter: vote.voter, options: chosenOptions(poll, vote.optionHashes), atMs: vote.votedAtMs }),
  })
}

/** A message's poll results for the dashboard (any account), or null when it carries no poll. */
export async function pollOfMessage(ctx: DomainContext, messageId: string): Promise<PollResults | null> {
  const poll = await ctx.store.findPoll(messageId)
  return poll ? tallyPoll(poll, await ctx.store.listPollVotes(poll.phoneId, poll.waMessageId)) : null
}

/**
 * Records a contact's poll and emits `poll.vote` for votes already kept for it: a vote whose
 * poll's secret came with the poll is decrypted at once, and may be recorded before the poll is.
 */
export async function recordInboundPoll(ctx: DomainContext, q: StoreQueries, tx: WriteTx, poll: PollRow): Promise<void> {
  await q.insertPoll(poll)
  const phone = await q.findPhone(poll.phoneId)
  if (!phone) return
  for (const vote of await q.listPollVotes(poll.phoneId, poll.waMessageId)) await recordVoteEvent(ctx, q, tx, { accountId: phone.accountId, env: "live" }, poll, vote)
}

/** The sandbox's voter that never votes (docs/api.md § "Sandbox (test keys)"). */
export const SANDBOX_SILENT_VOTER = "+12025550107"

/**
 * The sandbox's vote on a poll it just read: the recipient chooses the first option, as a live
 * contact might, unless it is the silent voter or a group (nobody in a sandbox group votes).
 */
export async function applySandboxPollVote(ctx: DomainContext, q: StoreQueries, tx: WriteTx, message: MessageRow, atMs: number): Promise<void> {
  const poll = message.extras?.poll
  if (!poll || message.isGroup || message.toAddress === SANDBOX_SILENT_VOTER) return
  await applyPollVote(ctx, q, tx, message.phoneId, { pollWaMessageId: waMessageIdFor(message.id, 0), voter: message.toAddress, optionHashes: [optionHash(poll.options[0]!)], atMs })
}

/**
 * The results of a poll carried by one of the key's messages: an outbound `msg_` or an inbound
 * `inmsg_`, as the route asks; 404 when it is not such a message of theirs, or not a poll.
 */
export async function pollResults(ctx: DomainContext, principal: Principal, messageId: string, direction: "outbound" | "inbound"): Promise<PollResults> {
  if (!messageId.startsWith(direction === "inbound" ? "inmsg_" : "msg_")) throw errors.messageNotFound(messageId)
  const scoped = direction === "inbound"
    ? await ctx.store.findScopedInbound(principal.accountId, principal.env, messageId)
    : await ctx.store.findScopedMessage(principal.accountId, principal.env, messageId)
  if (!scoped) throw errors.messageNotFound(messageId)
  const poll = await ctx.store.findPoll(messageId)
  if (!poll) throw new AppError("not_found", [`Message ${messageId} is not a poll`])
  return tallyPoll(poll, await ctx.store.listPollVotes(poll.phoneId, poll.waMessageId))
}
