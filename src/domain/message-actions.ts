import { isSingleEmoji } from "../lib/emoji"
import { errors } from "../lib/errors"
import { codePointLength } from "../lib/formats"
import { type InboundRow } from "../store/inbound"
import { type MessageRow } from "../store/messages"
import type { WaMessageRef, WhatsAppSession } from "../whatsapp/gateway"
import type { Principal } from "./api-keys"
import type { DomainContext } from "./context"
import { CONTENT_MAX_CODE_POINTS } from "./messages"
import { buildReactionData } from "./reaction-event"
import { connectedSession, inboundRef, outboundChatJid, outboundRefs, type LiveActionDeps } from "./wa-targets"

/*
 * Reactions, edits and revokes (docs/api.md § "Act on a message"). The rules are the same for both
 * environments; a live key also tells WhatsApp first, through the phone that sent or received
 * the message, and records the change only once WhatsApp took it. Test keys change the sandbox
 * message at once. Only reactions emit an event (docs/decisions.md § "Acting on messages").
 */

/** How long after `sentAt` WhatsApp lets the sender edit a message. */
export const EDIT_WINDOW_MS = 15 * 60_000
/** How long after `sentAt` wagate revokes a message; WhatsApp allows a little more (docs/decisions.md § "Acting on messages"). */
export const REVOKE_WINDOW_MS = 2 * 24 * 3_600_000

export const EMOJI_PROBLEM = 'emoji must be exactly one emoji (one grapheme, e.g. "👍"), or "" to remove the reaction'

/** A reaction as the API answers it. */
export interface ReactionResult {
  messageId: string
  emoji: string
}

/** Reacts to one of our messages (`msg_…`) or a received one (`inmsg_…`); `""` removes the reaction. */
export async function reactToMessage(
  ctx: DomainContext,
  deps: LiveActionDeps,
  principal: Principal,
  messageId: string,
  emoji: string,
): Promise<ReactionResult> {
  if (emoji !== "" && !isSingleEmoji(emoji)) throw errors.validation([EMOJI_PROBLEM])
  const target = await findTarget(ctx, principal, messageId)
  if (target.kind === "outbound") refuseUnlessSent(target.row, "reacted to")
  // The sender deleted it for everyone: WhatsApp's apps show nothing to react to any more.
  if (target.kind === "inbound" && target.row.revokedAtMs !== null) throw errors.messageActionRefused(`Message ${messageId} was deleted by its sender`)
  if (principal.env === "live") {
    const phoneId = target.row.phoneId
    const session = await connectedSession(ctx, deps.links, phoneId)
    const ref = target.kind === "inbound" ? inboundRef(target.row) : await outboundTextOrFirst(ctx, deps, session, target.row)
    await tellWhatsApp("the reaction", () => session.react(ref, emoji))
  }
  const from = target.kind === "inbound" ? target.row.toNumber : target.row.fromNumber
  await ctx.store.write(async (q, tx) => {
    const atMs = ctx.clock.nowMs()
    // Kept beside the contacts' reactions, so a message's timeline shows ours too.
    await q.recordReaction(messageId, from, emoji, atMs)
    await ctx.events.record(q, tx, {
      accountId: principal.accountId,
      env: principal.env,
      type: "message.reaction",
      data: buildReactionData({ messageId, from, emoji, atMs }),
      occurredAtMs: atMs,
    })
  })
  return { messageId, emoji }
}

/** Replaces the text (or caption) of one of our messages, within EDIT_WINDOW_MS of its sentAt. */
export async function editMessage(
  ctx: DomainContext,
  deps: LiveActionDeps,
  principal: Principal,
  messageId: string,
  content: string,
): Promise<MessageRow> {
  const problems: string[] = []
  if (codePointLength(content) > CONTENT_MAX_CODE_POINTS) problems.push(`content must be at most ${CONTENT_MAX_CODE_POINTS} characters`)
  if (content.trim() === "") problems.push("content must not be empty")
  if (problems.length > 0) throw errors.validation(problems)
  const message = await findOutbound(ctx, principal, messageId)
  refuseUnlessSent(message, "edited")
  if (ctx.clock.nowMs() - message.sentAtMs! > EDIT_WINDOW_MS) {
    throw errors.messageActionRefused(`Message ${messageId} can be edited only within 15 minutes of sentAt`)
  }
  if (message.content.trim() === "") throw errors.messageActionRefused(`Message ${messageId} has no text or caption to edit`)
  if (principal.env === "live") {
    const session = await connectedSession(ctx, deps.links, message.phoneId)
    const { text } = await outboundRefs(ctx.store, message, await outboundChatJid(deps.lookups, session, message))
    if (text === null) throw errors.messageActionRefused(`Message ${messageId} has no text or caption to edit`)
    await tellWhatsApp("the edit", () => session.editText(text, content))
  }
  await ctx.store.write(async (q) => await q.markMessageEdited(message.id, content, ctx.clock.nowMs()))
  return findOutbound(ctx, principal, messageId)
}

/**
 * Revokes one of our messages for everyone, within REVOKE_WINDOW_MS of its sentAt. The row stays,
 * with `revokedAt`; revoking it again answers the message as it is and sends nothing.
 */
export async function revokeMessage(ctx: DomainContext, deps: LiveActionDeps, principal: Principal, messageId: string): Promise<MessageRow> {
  const message = await findOutbound(ctx, principal, messageId)
  if (message.revokedAtMs !== null) return message
  refuseUnlessSent(message, "revoked")
  if (ctx.clock.nowMs() - message.sentAtMs! > REVOKE_WINDOW_MS) {
    throw errors.messageActionRefused(`Message ${messageId} can be revoked only within 2 days of sentAt`)
  }
  if (principal.env === "live") {
    const session = await connectedSession(ctx, deps.links, message.phoneId)
    const { all } = await outboundRefs(ctx.store, message, await outboundChatJid(deps.lookups, session, message))
    for (const ref of all) await tellWhatsApp("the revoke", () => session.revoke(ref))
  }
  await ctx.store.write(async (q) => await q.markMessageRevoked(message.id, ctx.clock.nowMs()))
  return findOutbound(ctx, principal, messageId)
}

type Target = { kind: "outbound"; row: MessageRow } | { kind: "inbound"; row: InboundRow }

async function findTarget(ctx: DomainContext, principal: Principal, messageId: string): Promise<Target> {
  if (messageId.startsWith("inmsg_")) {
    const row = await ctx.store.findScopedInbound(principal.accountId, principal.env, messageId)
    if (!row) throw errors.inboundNotFound(messageId)
    return { kind: "inbound", row }
  }
  return { kind: "outbound", row: await findOutbound(ctx, principal, messageId) }
}

async function findOutbound(ctx: DomainContext, principal: Principal, messageId: string): Promise<MessageRow> {
  const row = await ctx.store.findScopedMessage(principal.accountId, principal.env, messageId)
  if (!row) throw errors.messageNotFound(messageId)
  return row
}

/** A message WhatsApp never got (pending, failed) or one revoked cannot be acted on: 409. */
function refuseUnlessSent(message: MessageRow, action: string): void {
  if (message.revokedAtMs !== null) throw errors.messageActionRefused(`Message ${message.id} was revoked and cannot be ${action}`)
  if (message.status === "failed") throw errors.messageActionRefused(`Message ${message.id} failed and cannot be ${action}`)
  if (message.status === "pending" || message.sentAtMs === null) {
    throw errors.messageActionRefused(`Message ${message.id} is still pending; it can be ${action} once it is sent`)
  }
}

/** The part a reaction points at: the one holding the text or caption, else the first. */
async function outboundTextOrFirst(ctx: DomainContext, deps: LiveActionDeps, session: WhatsAppSession, message: MessageRow): Promise<WaMessageRef> {
  const refs = await outboundRefs(ctx.store, message, await outboundChatJid(deps.lookups, session, message))
  const ref = refs.text ?? refs.all[0]
  if (!ref) throw errors.messageActionRefused(`Message ${message.id} has nothing WhatsApp received to react to`)
  return ref
}

export async function tellWhatsApp(what: string, act: () => Promise<void>): Promise<void> {
  try {
    await act()
  } catch (err) {
    throw errors.whatsappUnanswered(`Sending ${what} to WhatsApp failed; retry after a moment`, err)
  }
}
