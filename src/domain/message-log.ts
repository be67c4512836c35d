import { errors } from "../lib/errors"
import type { Environment } from "../store/api-keys"
import { findInbound, listInboundWindow, listReactions, type InboundRow } from "../store/inbound"
import { listParts, type PartRow } from "../store/message-parts"
import type { MessageStatus } from "../lib/vocabulary"
import { findMessage, listMessagesWindow, type MessageRow } from "../store/messages"
import { findPhoneByRef } from "../store/phones"
import { listRepliesTo, type ReplyRow } from "../store/replies"
import { findEndpoint, findEventsAt, listAttempts, listDeliveriesOfEvent, type AttemptRow, type DeliveryRow } from "../store/webhooks"
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
export function outboundLog(
  ctx: DomainContext,
  accountId: string,
  env: Environment,
  filters: { status?: MessageStatus; phoneRef?: string; to?: string; before?: number | null },
  limit: number,
): LogPage<MessageRow> {
  let phoneId: string | undefined
  if (filters.phoneRef) {
    const phone = findPhoneByRef(ctx.db, accountId, filters.phoneRef)
    // A phone the account does not have matches nothing, like any other filter.
    if (!phone) return { rows: [], nextBefore: null }
    phoneId = phone.id
  }
  const rows = listMessagesWindow(ctx.db, {
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
export function inboundLog(
  ctx: DomainContext,
  accountId: string,
  env: Environment,
  filters: { phoneRef?: string; before?: number | null },
  limit: number,
): LogPage<InboundRow> {
  let phoneId: string | undefined
  if (filters.phoneRef) {
    const phone = findPhoneByRef(ctx.db, accountId, filters.phoneRef)
    if (!phone) return { rows: [], nextBefore: null }
    phoneId = phone.id
  }
  return page(listInboundWindow(ctx.db, { accountId, env, phoneId, beforeSeq: filters.before ?? null, limit: limit + 1 }), limit)
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
export function messageTrail(ctx: DomainContext, messageId: string): MessageTrail {
  const message = findMessage(ctx.db, messageId)
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
    for (const event of findEventsAt(ctx.db, message.accountId, message.env, type, atMs)) {
      if (!event.body.includes(marker)) continue
      for (const delivery of listDeliveriesOfEvent(ctx.db, event.id)) {
        deliveries.push({
          eventType: type,
          endpointId: delivery.endpointId,
          endpointUrl: findEndpoint(ctx.db, delivery.endpointId)?.url ?? null,
          delivery,
          attempts: listAttempts(ctx.db, delivery.id),
        })
      }
    }
  }
  return { message, parts: listParts(ctx.db, message.id), deliveries }
}

/** An inbound message by id (any account: the operator's view), or 404. */
export function inboundMessage(ctx: DomainContext, id: string): InboundRow {
  const row = findInbound(ctx.db, id)
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
export function messageThread(ctx: DomainContext, messageId: string): MessageThread {
  return { replies: listRepliesTo(ctx.db, messageId, THREAD_REPLIES_LIMIT), reactions: listReactions(ctx.db, messageId) }
}
