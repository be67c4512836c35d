import type { Database } from "bun:sqlite"
import { findInboundByWaId, markInboundEdited, markInboundRevoked, recordReaction } from "../store/inbound"
import { findPartByWaId } from "../store/message-parts"
import { findMessage } from "../store/messages"
import { findPhone } from "../store/phones"
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
export function messageIdForWaId(db: Database, phoneId: string, waMessageId: string, fromMe: boolean | null): string | null {
  if (fromMe !== true) {
    const inbound = findInboundByWaId(db, phoneId, waMessageId)
    if (inbound) return inbound.id
  }
  if (fromMe === false) return null
  const part = findPartByWaId(db, waMessageId)
  if (!part) return null
  const message = findMessage(db, part.messageId)
  return message && message.phoneId === phoneId ? message.id : null
}

/** Records one action and its event in one transaction; false when its target is unknown or it is not the sender's to make. */
export async function recordInboundAction(ctx: DomainContext, phoneId: string, action: InboundAction): Promise<boolean> {
  return ctx.writer.write((db, tx) => {
    const phone = findPhone(db, phoneId)
    if (!phone) return false
    const base = { accountId: phone.accountId, env: "live" as const, occurredAtMs: ctx.clock.nowMs() }
    if (action.kind === "reaction") {
      const messageId = messageIdForWaId(db, phoneId, action.targetWaMessageId, action.targetFromMe)
      if (!messageId) return false
      recordReaction(db, messageId, action.from, action.emoji, action.atMs)
      ctx.events.record(db, tx, { ...base, type: "message.reaction", data: buildReactionData({ messageId, ...action }) })
      return true
    }
    const target = findInboundByWaId(db, phoneId, action.targetWaMessageId)
    if (!target) return false
    if (action.kind === "edit") {
      // Only the author edits a message; an edit of a deleted one changes nothing anyone can see.
      if (target.fromAddress !== action.from || target.revokedAtMs !== null) return false
      markInboundEdited(db, target.id, action.content, action.atMs)
      ctx.events.record(db, tx, { ...base, type: "message.edited", data: buildEditedData({ messageId: target.id, ...action }) })
      return true
    }
    // In a group an admin may delete someone else's message for everyone: WhatsApp decides who may.
    if (target.revokedAtMs !== null) return false
    markInboundRevoked(db, target.id, action.atMs)
    ctx.events.record(db, tx, { ...base, type: "message.revoked", data: buildRevokedData({ messageId: target.id, ...action }) })
    return true
  })
}
