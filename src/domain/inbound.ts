import { errors } from "../lib/errors"
import { recordInboundPoll } from "./polls"
import { type InboundRow } from "../store/inbound"
import type { InboundMessage, InboundSender } from "../whatsapp/gateway"
import { pushNameFromOutside, usernameFromOutside } from "../lib/wa-username"
import type { Principal } from "./api-keys"
import type { DomainContext } from "./context"
import type { Page } from "../lib/vocabulary"
import { buildMessageReceivedData } from "./event-catalogue"
import { messageIdForWaId } from "./inbound-actions"

/**
 * Lists inbound messages. Test keys always get an empty list: the sandbox receives nothing
 * (spec, GET /v1/messages/inbound), and the partition by environment guarantees it.
 */
export async function listInbound(
  ctx: DomainContext,
  principal: Principal,
  q: { phoneNumberId?: string; page: number; limit: number },
): Promise<Page<InboundRow>> {
  const empty = { rows: [], total: 0, page: q.page, limit: q.limit }
  if (principal.env === "test") return empty
  let phoneId: string | undefined
  if (q.phoneNumberId !== undefined) {
    const phone = await ctx.store.findPhoneByRef(principal.accountId, q.phoneNumberId)
    if (!phone) return empty
    phoneId = phone.id
  }
  const { rows, total } = await ctx.store.listInbound({
    accountId: principal.accountId,
    env: principal.env,
    phoneId,
    limit: q.limit,
    offset: (q.page - 1) * q.limit,
  })
  return { rows, total, page: q.page, limit: q.limit }
}

/** One inbound message of the principal's account and environment, or 404. */
export async function getInbound(ctx: DomainContext, principal: Principal, id: string): Promise<InboundRow> {
  const row = principal.env === "live" ? await ctx.store.findScopedInbound(principal.accountId, principal.env, id) : null
  if (!row) throw errors.inboundNotFound(id)
  return row
}

/** The sender's names checked again here: whatever the gateway, outside text is kept only once made safe. */
function safeSender(sender: InboundSender): InboundSender {
  return { ...sender, username: usernameFromOutside(sender.username), pushName: pushNameFromOutside(sender.pushName) }
}

/**
 * Records a message a live phone received (docs/decisions.md § "Inbound messages") and its `message.received` event in
 * one transaction. A WhatsApp id the phone already recorded (redelivered after a reconnect) is
 * ignored, so each inbound message emits its event once.
 */
export async function recordInbound(ctx: DomainContext, phoneId: string, message: InboundMessage): Promise<InboundRow | null> {
  return ctx.store.write(async (q, tx) => {
    const phone = await q.findPhone(phoneId)
    if (!phone) return null
    const details = message.details ?? {}
    const sender = message.sender && safeSender(message.sender)
    const quoted = details.quotedWaMessageId
    const row = await q.insertInbound({
      id: ctx.ids.newId("inmsg"),
      accountId: phone.accountId,
      env: "live",
      phoneId,
      waMessageId: message.waMessageId,
      fromAddress: message.from,
      fromUsername: sender?.username ?? null,
      toNumber: phone.phoneNumber,
      content: message.content,
      type: message.type,
      isGroup: message.isGroup,
      groupId: message.groupId,
      receivedAtMs: message.receivedAtMs,
      createdAtMs: ctx.clock.nowMs(),
      replyToId: quoted ? await messageIdForWaId(q, phoneId, quoted, null) : null,
      media: details.media ?? null,
      mediaGoneAtMs: null,
      location: details.location ?? null,
      contact: details.contact ?? null,
      editedAtMs: null,
      revokedAtMs: null,
    })
    if (!row) return null
    if (details.poll) await recordInboundPoll(ctx, q, tx, { messageId: row.id, phoneId, waMessageId: message.waMessageId, ...details.poll, createdAtMs: row.createdAtMs })
    if (sender) await q.upsertWaContact({ phoneId, address: message.from, ...sender, updatedAtMs: row.createdAtMs })
    await ctx.events.record(q, tx, {
      accountId: row.accountId,
      env: "live",
      type: "message.received",
      occurredAtMs: row.createdAtMs,
      data: buildMessageReceivedData(row),
    })
    return row
  })
}
