import { errors } from "../lib/errors"
import { codePointLength, isE164 } from "../lib/formats"
import { isSingleEmoji } from "../lib/emoji"
import type { InboundRow } from "../store/inbound"
import type { ContactExtra, LocationExtra } from "../store/messages"
import type { PhoneRow } from "../store/phones"
import type { Principal } from "./api-keys"
import type { DomainContext } from "./context"
import { recordInbound } from "./inbound"
import { recordReactionIn } from "./inbound-actions"
import { EMOJI_PROBLEM } from "./message-actions"
import { CONTENT_MAX_CODE_POINTS } from "./messages"
import { tallyPoll, optionHash, type PollResults } from "./poll-rules"
import { voteProblems } from "./poll-vote-send"
import { applyPollVote } from "./polls"
import { resolvePhone } from "./phones"
import { contactProblems, locationProblems } from "./send-kinds"
import { waMessageIdFor } from "./wa-ids"

/*
 * The sandbox answering back (docs/api.md § "Sandbox inbound and calls"): what a contact would
 * have sent to a test key's phone, recorded through the same domain functions a live phone's
 * inbound goes through (recordInbound, recordReactionIn, applyPollVote), in the test
 * environment, so the rows, ids and events are those a live contact's message makes.
 */

/** What `POST /v1/sandbox/inbound` asks the sandbox to receive. */
export interface SimulatedInbound {
  fromPhoneId: string
  from: string
  content?: string
  location?: LocationExtra
  contact?: ContactExtra
  reaction?: { messageId: string; emoji: string }
  pollVote?: { messageId: string; options: string[] }
  replyTo?: string
}

/** What the sandbox recorded: one of a message, a reaction or a poll vote. */
export type SimulatedInboundResult =
  | { kind: "message"; message: InboundRow }
  | { kind: "reaction"; messageId: string; from: string; emoji: string; atMs: number }
  | { kind: "pollVote"; messageId: string; voter: string; poll: PollResults }

/** A live key on a sandbox route: 403 with the sentence that says why. */
export function refuseLiveKey(principal: Principal, route: string): void {
  if (principal.env !== "test") throw errors.sandboxOnly(route)
}

/** One readable message per problem of the request, before any look-up. */
function inboundProblems(input: SimulatedInbound): string[] {
  const problems: string[] = []
  if (!isE164(input.from)) problems.push("from must be the contact's E.164 number (+ and 8–15 digits)")
  const carriers = [input.content !== undefined, input.location !== undefined, input.contact !== undefined, input.reaction !== undefined, input.pollVote !== undefined]
  const count = carriers.filter(Boolean).length
  if (count !== 1) problems.push(`send exactly one of content, location, contact, reaction or pollVote (${count === 0 ? "none" : count} given)`)
  if (input.content !== undefined && input.content.trim() === "") problems.push("content must not be empty")
  if (input.content !== undefined && codePointLength(input.content) > CONTENT_MAX_CODE_POINTS) problems.push(`content must be at most ${CONTENT_MAX_CODE_POINTS} characters`)
  if (input.location) problems.push(...locationProblems(input.location))
  if (input.contact) problems.push(...contactProblems(input.contact))
  if (input.reaction && input.reaction.emoji !== "" && !isSingleEmoji(input.reaction.emoji)) problems.push(`reaction.${EMOJI_PROBLEM}`)
  if (input.replyTo !== undefined && (input.reaction || input.pollVote)) problems.push("replyTo goes with content, location or contact; a reaction or a poll vote quotes nothing")
  return problems
}

/**
 * A message of this phone's sandbox chats that a contact may act on: one of ours (`msg_…`) or
 * one it received (`inmsg_…`); 404 for any other account's, environment's or phone's.
 */
async function phoneMessage(ctx: DomainContext, principal: Principal, phone: PhoneRow, id: string): Promise<{ phoneId: string; env: string }> {
  const row = id.startsWith("inmsg_")
    ? await ctx.store.findScopedInbound(principal.accountId, principal.env, id)
    : id.startsWith("msg_") ? await ctx.store.findScopedMessage(principal.accountId, principal.env, id) : null
  if (!row || row.phoneId !== phone.id) throw errors.messageNotFound(id)
  return row
}

/** Records what a contact would have sent to a test key's phone, with the events a live one emits. */
export async function simulateInbound(ctx: DomainContext, principal: Principal, input: SimulatedInbound): Promise<SimulatedInboundResult> {
  refuseLiveKey(principal, "POST /v1/sandbox/inbound")
  const problems = inboundProblems(input)
  if (problems.length > 0) throw errors.validation(problems)
  const phone = await resolvePhone(ctx, principal.accountId, input.fromPhoneId)
  if (input.from === phone.phoneNumber) throw errors.validation(["from must be a contact's number, not the phone's own"])
  if (input.reaction) return simulateReaction(ctx, principal, phone, input.from, input.reaction)
  if (input.pollVote) return simulateVote(ctx, principal, phone, input.from, input.pollVote)
  if (input.replyTo !== undefined) await phoneMessage(ctx, principal, phone, input.replyTo)
  const seed = ctx.ids.newId("inmsg")
  const type = input.location ? "location" : input.contact ? "contact" : "text"
  const content = input.location ? (input.location.name ?? input.location.address ?? "") : input.contact ? input.contact.name : input.content!
  const message = await recordInbound(
    ctx,
    phone.id,
    {
      // A WhatsApp-shaped id of its own, unique per simulated message (wa-ids.ts).
      waMessageId: waMessageIdFor(`sandbox:${seed}`, 0),
      from: input.from,
      isGroup: false,
      groupId: null,
      type,
      content,
      receivedAtMs: ctx.clock.nowMs(),
      details: { location: input.location ?? null, contact: input.contact ?? null },
    },
    { env: "test", replyToId: input.replyTo ?? null },
  )
  // The phone was resolved above; only its removal in between leaves nothing recorded.
  if (!message) throw errors.phoneNotFound(input.fromPhoneId)
  return { kind: "message", message }
}

async function simulateReaction(
  ctx: DomainContext,
  principal: Principal,
  phone: PhoneRow,
  from: string,
  reaction: { messageId: string; emoji: string },
): Promise<SimulatedInboundResult> {
  await phoneMessage(ctx, principal, phone, reaction.messageId)
  const atMs = ctx.clock.nowMs()
  const done = { messageId: reaction.messageId, from, emoji: reaction.emoji, atMs }
  await ctx.store.write((q, tx) => recordReactionIn(ctx, q, tx, { accountId: principal.accountId, env: "test" }, done))
  return { kind: "reaction", ...done }
}

async function simulateVote(
  ctx: DomainContext,
  principal: Principal,
  phone: PhoneRow,
  voter: string,
  vote: { messageId: string; options: string[] },
): Promise<SimulatedInboundResult> {
  if (!vote.messageId.startsWith("msg_")) throw errors.validation(["pollVote.messageId must be the msg_… id of a poll this phone sent"])
  await phoneMessage(ctx, principal, phone, vote.messageId)
  const poll = await ctx.store.findPoll(vote.messageId)
  if (!poll) throw errors.validation([`pollVote.messageId: message ${vote.messageId} is not a poll`])
  const problems = voteProblems(vote.options, poll).map((p) => `pollVote.${p}`)
  if (problems.length > 0) throw errors.validation(problems)
  const optionHashes = vote.options.map(optionHash)
  await ctx.store.write(async (q, tx) => {
    // A newer vote replaces the voter's older one, also within the same millisecond.
    const before = (await q.listPollVotes(phone.id, poll.waMessageId)).find((v) => v.voter === voter)
    const atMs = Math.max(ctx.clock.nowMs(), (before?.votedAtMs ?? 0) + 1)
    await applyPollVote(ctx, q, tx, phone.id, { pollWaMessageId: poll.waMessageId, voter, optionHashes, atMs })
  })
  return { kind: "pollVote", messageId: vote.messageId, voter, poll: tallyPoll(poll, await ctx.store.listPollVotes(phone.id, poll.waMessageId)) }
}
