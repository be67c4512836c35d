import { errors } from "../lib/errors"
import type { Principal } from "./api-keys"
import type { DomainContext } from "./context"
import { connectedSession, inboundRef, type LiveActionDeps } from "./wa-targets"

/**
 * The most read receipts one call sends: the newest unread messages of the chat up to the one
 * named. Older unread ones are marked read without a receipt of their own, as WhatsApp's apps do
 * when a chat is opened (its sender's ticks turn blue from the newest messages; docs/decisions.md §
 * "Acting on messages").
 */
export const READ_RECEIPTS_MAX = 100

/** What marking read answers: the message named, and how many messages the receipt newly covered. */
export interface ReadResult {
  messageId: string
  markedRead: number
}

/**
 * Sends a read receipt for an inbound message and every earlier unread one of its chat
 * (`POST /v1/messages/inbound/{messageId}/read`), through the phone that received them, then
 * records them read so the next call sends only what came since. Test keys mark what the
 * sandbox simulated (POST /v1/sandbox/inbound) read without telling anyone.
 */
export async function markInboundRead(ctx: DomainContext, deps: LiveActionDeps, principal: Principal, messageId: string): Promise<ReadResult> {
  const row = await ctx.store.findScopedInbound(principal.accountId, principal.env, messageId)
  if (!row) throw errors.inboundNotFound(messageId)
  const chat = row.groupId ?? row.fromAddress
  const unread = await ctx.store.listUnreadInChat(row.phoneId, chat, row.seq, READ_RECEIPTS_MAX)
  // A sandbox message came from no WhatsApp chat: marking it read tells nobody.
  if (unread.length > 0 && principal.env === "live") {
    const session = await connectedSession(ctx, deps.links, row.phoneId)
    const refs = unread.map((m) => inboundRef({ ...row, waMessageId: m.waMessageId, fromAddress: m.fromAddress, groupId: m.groupId }))
    try {
      await session.markRead(refs)
    } catch (err) {
      throw errors.whatsappUnanswered("Sending the read receipt to WhatsApp failed; retry after a moment", err)
    }
  }
  const markedRead = await ctx.store.write(async (q) => await q.markChatReadThrough(row.phoneId, chat, row.seq, ctx.clock.nowMs()))
  return { messageId, markedRead }
}
