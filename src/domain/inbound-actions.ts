import type { Environment } from "../lib/vocabulary"
import type { StoreQueries, WriteTx } from "../store/store"
import type { InboundAction } from "../whatsapp/gateway"
import type { DomainContext } from "./context"
import { buildEditedData, buildRevokedData } from "./inbound-events"
import { buildReactionData } from "./reaction-event"

/*
 * A contact's reaction, edit or deletion for everyone, recorded against the message it targets
 * and emitted as `message.reaction`, `message.edited` or `message.revoked` (docs/webhooks.md).
 * An action on a message wagate does not know (sent before the phone was linked, or by another
 * device of the account) is dropped: there is nothing to record it against.
 */

/**
 * The wagate id of a message a phone sent or received under a WhatsApp id: `msg_…` when it is
 * one of ours (`fromMe`), `inmsg_…` when the phone received it; null when wagate does not know it.
 */
export async function messageIdForWaId(q: StoreQueries, phoneId: string, waMessageId: string, fromMe: boolean | null): Promise<string | null> {
  if (fromMe !== true) {
    const inbound = await q.findInboundByWaId(phoneId, waMessageId)
    if (inbound) return inbound.id
  }
  if (fromMe === false) return null
  const part = await q.findPartByWaId(waMessageId)
  if (!part) return null
  const message = await q.findMessage(part.messageId)
  return message && message.phoneId === phoneId ? message.id : null
}

/** A reaction to a known message with its `message.reaction` event, in the caller's write (a contact's, live or simulated by the sandbox). */
export async function recordReactionIn(
  ctx: DomainContext,
  q: StoreQueries,
  tx: WriteTx,
  to: { accountId: string; env: Environment },
  reaction: { messageId: string; from: string; emoji: string; atMs: number },
): Promise<void> {
  await q.recordReaction(reaction.messageId, reaction.from, reaction.emoji, reaction.atMs)
  await ctx.events.record(q, tx, { ...to, occurredAtMs: ctx.clock.nowMs(), type: "message.reaction", data: buildReactionData(reaction) })
}

/** Records one action and its event in one transaction; false when its target is unknown or it is not the sender's to make. */
export async function recordInboundAction(ctx: DomainContext, phoneId: string, action: InboundAction): Promise<boolean> {
  return ctx.store.write(async (q, tx) => {
    const phone = await q.findPhone(phoneId)
    if (!phone) return false
    const base = { accountId: phone.accountId, env: "live" as const, occurredAtMs: ctx.clock.nowMs() }
    if (action.kind === "reaction") {
      const messageId = await messageIdForWaId(q, phoneId, action.targetWaMessageId, action.targetFromMe)
      if (!messageId) return false
      await recordReactionIn(ctx, q, tx, base, { messageId, from: action.from, emoji: action.emoji, atMs: action.atMs })
      return true
    }
    const target = await q.findInboundByWaId(phoneId, action.targetWaMessageId)
    if (!target) return false
    if (action.kind === "edit") {
      // Only the author edits a message; an edit of a deleted one changes nothing anyone can see.
      if (target.fromAddress !== action.from || target.revokedAtMs !== null) return false
      await q.markInboundEdited(target.id, action.content, action.atMs)
      await ctx.events.record(q, tx, { ...base, type: "message.edited", data: buildEditedData({ messageId: target.id, ...action }) })
      return true
    }
    // In a group an admin may delete someone else's message for everyone: WhatsApp decides who may.
    if (target.revokedAtMs !== null) return false
    await q.markInboundRevoked(target.id, action.atMs)
    await ctx.events.record(q, tx, { ...base, type: "message.revoked", data: buildRevokedData({ messageId: target.id, ...action }) })
    return true
  })
}
