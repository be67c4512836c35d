import { errors } from "../lib/errors"
import type { Environment } from "../store/api-keys"
import { type InboundRow } from "../store/inbound"
import { type PartRow } from "../store/message-parts"
import type { MessageStatus } from "../lib/vocabulary"
import { type MessageRow } from "../store/messages"
import { type ReplyRow } from "../store/replies"
import { type AttemptRow, type DeliveryRow } from "../store/webhooks"
import type { DomainContext } from "./context"

/*
 * The operator's view of messages (the dashboard): lists that page by seq, never by OFFSET or
 * COUNT, and a message's trail from creation to its last status with the webhooks it caused.
 */

/** A recipient search reads at most this many of the newest messages (recipients are not indexed). */
export const RECIPIENT_SCAN_LIMIT = 2_000

/** One page and where the next (older) one starts, or null at the end. */
export interface LogPage<T> {
  rows: T[]
  nextBefore: number | null
}

function page<T extends { seq: number }>(rows: T[], limit: number): LogPage<T> {
  const more = rows.length > limit
  const shown = more ? rows.slice(0, limit) : rows
  return { rows: shown, nextBefore: more ? shown.at(-1)!.seq : null }
}

/** Outbound messages of an account and environment, newest first, filtered. */
export async function outboundLog(
  ctx: DomainContext,
  accountId: string,
  env: Environment,
  filters: { status?: MessageStatus; phoneRef?: string; to?: string; before?: number | null },
  limit: number,
): Promise<LogPage<MessageRow>> {
  let phoneId: string | undefined
  if (filters.phoneRef) {
    const phone = await ctx.store.findPhoneByRef(accountId, filters.phoneRef)
    // A phone the account does not have matches nothing, like any other filter.
    if (!phone) return { rows: [], nextBefore: null }
    phoneId = phone.id
  }
  const rows = await ctx.store.listMessagesWindow({
    accountId,
    env,
    status: filters.status,
    phoneId,
    toAddress: filters.to || undefined,
    recipientScanLimit: RECIPIENT_SCAN_LIMIT,
    beforeSeq: filters.before ?? null,
    limit: limit + 1,
  })
  return page(rows, limit)
}

/** Inbound messages of an account and environment, newest first. */
export async function inboundLog(
  ctx: DomainContext,
  accountId: string,
  env: Environment,
  filters: { phoneRef?: string; before?: number | null },
  limit: number,
): Promise<LogPage<InboundRow>> {
  let phoneId: string | undefined
  if (filters.phoneRef) {
    const phone = await ctx.store.findPhoneByRef(accountId, filters.phoneRef)
    if (!phone) return { rows: [], nextBefore: null }
    phoneId = phone.id
  }
  return page(await ctx.store.listInboundWindow({ accountId, env, phoneId, beforeSeq: filters.before ?? null, limit: limit + 1 }), limit)
}

/** One webhook delivery of a message's event, with its attempts. */
export interface TrailDelivery {
  eventType: string
  endpointId: string
  endpointUrl: string | null
  delivery: DeliveryRow
  attempts: AttemptRow[]
}

/** A message with its parts and the webhook deliveries of its events. */
export interface MessageTrail {
  message: MessageRow
  parts: PartRow[]
  deliveries: TrailDelivery[]
}

/**
 * A message's trail. Its events are found exactly, by index: each `message.*` event is recorded
 * at the time of the status it announces (sent, delivered, read or failed), and names the
 * message in its body.
 */
export async function messageTrail(ctx: DomainContext, messageId: string): Promise<MessageTrail> {
  const message = await ctx.store.findMessage(messageId)
  if (!message) throw errors.messageNotFound(messageId)
  const steps: [string, number | null][] = [
    ["message.sent", message.sentAtMs],
    ["message.delivered", message.deliveredAtMs],
    ["message.read", message.readAtMs],
    ["message.failed", message.failedAtMs],
  ]
  const marker = `"messageId":${JSON.stringify(message.id)}`
  const deliveries: TrailDelivery[] = []
  for (const [type, atMs] of steps) {
    if (atMs === null) continue
    for (const event of await ctx.store.findEventsAt(message.accountId, message.env, type, atMs)) {
      if (!event.body.includes(marker)) continue
      for (const delivery of await ctx.store.listDeliveriesOfEvent(event.id)) {
        deliveries.push({
          eventType: type,
          endpointId: delivery.endpointId,
          endpointUrl: (await ctx.store.findEndpoint(delivery.endpointId))?.url ?? null,
          delivery,
          attempts: await ctx.store.listAttempts(delivery.id),
        })
      }
    }
  }
  return { message, parts: await ctx.store.listParts(message.id), deliveries }
}

/** An inbound message by id (any account: the operator's view), or 404. */
export async function inboundMessage(ctx: DomainContext, id: string): Promise<InboundRow> {
  const row = await ctx.store.findInbound(id)
  if (!row) throw errors.inboundNotFound(id)
  return row
}

/** How many replies a message's page lists. */
export const THREAD_REPLIES_LIMIT = 50

/** What a message's page shows around it: the messages that quote it and the reactions to it. */
export interface MessageThread {
  replies: ReplyRow[]
  reactions: { fromAddress: string; emoji: string; atMs: number }[]
}

/** The replies to a message (ours and received, oldest first) and its reactions (ours and the contacts'). */
export async function messageThread(ctx: DomainContext, messageId: string): Promise<MessageThread> {
  return { replies: await ctx.store.listRepliesTo(messageId, THREAD_REPLIES_LIMIT), reactions: await ctx.store.listReactions(messageId) }
}
