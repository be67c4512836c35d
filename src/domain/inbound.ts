import { errors } from "../lib/errors"
import { recordInboundPoll } from "./polls"
import { type InboundRow } from "../store/inbound"
import type { InboundMessage, InboundSender } from "../whatsapp/gateway"
import { pushNameFromOutside, usernameFromOutside } from "../lib/wa-username"
import type { Principal } from "./api-keys"
import type { DomainContext } from "./context"
import type { Environment, Page } from "../lib/vocabulary"
import { buildMessageReceivedData } from "./inbound-events"
import { messageIdForWaId } from "./inbound-actions"

/**
 * Lists inbound messages of the key's environment: what live phones received for live keys, what
 * `POST /v1/sandbox/inbound` simulated for test keys (docs/api.md § "Sandbox inbound and calls");
 * the partition by environment keeps the two apart.
 */
export async function listInbound(
  ctx: DomainContext,
  principal: Principal,
  q: { phoneNumberId?: string; page: number; limit: number },
): Promise<Page<InboundRow>> {
  const empty = { rows: [], total: 0, page: q.page, limit: q.limit }
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
  const row = await ctx.store.findScopedInbound(principal.accountId, principal.env, id)
  if (!row) throw errors.inboundNotFound(id)
  return row
}

/** The sender's names checked again here: whatever the gateway, outside text is kept only once made safe. */
function safeSender(sender: InboundSender): InboundSender {
  return { ...sender, username: usernameFromOutside(sender.username), pushName: pushNameFromOutside(sender.pushName) }
}

/**
 * Where an inbound message comes from: a live phone (the default), or the sandbox simulating a
 * contact, which names the message it quotes by wagate's id instead of WhatsApp's.
 */
export interface InboundOrigin {
  env: Environment
  replyToId?: string | null
}

const LIVE: InboundOrigin = { env: "live" }

/**
 * Records a message a phone received (docs/decisions.md § "Inbound messages") and its `message.received` event in
 * one transaction. A WhatsApp id the phone already recorded (redelivered after a reconnect) is
 * ignored, so each inbound message emits its event once. The sandbox records its simulated
 * messages here too, in the test environment, so they are stored and emitted exactly as live ones.
 */
export async function recordInbound(ctx: DomainContext, phoneId: string, message: InboundMessage, origin: InboundOrigin = LIVE): Promise<InboundRow | null> {
  return ctx.store.write(async (q, tx) => {
    const phone = await q.findPhone(phoneId)
    if (!phone) return null
    const details = message.details ?? {}
    const sender = message.sender && safeSender(message.sender)
    const quoted = details.quotedWaMessageId
    const row = await q.insertInbound({
      id: ctx.ids.newId("inmsg"),
      accountId: phone.accountId,
      env: origin.env,
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
      replyToId: origin.replyToId !== undefined ? origin.replyToId : quoted ? await messageIdForWaId(q, phoneId, quoted, null) : null,
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
      env: row.env,
      type: "message.received",
      occurredAtMs: row.createdAtMs,
      data: buildMessageReceivedData(row),
    })
    return row
  })
}
