import { errors } from "../lib/errors"
import type { Environment } from "../store/api-keys"
import { type InboundRow } from "../store/inbound"
import { type PartRow } from "../store/message-parts"
import type { MessageStatus } from "../lib/vocabulary"
import { type MessageRow } from "../store/messages"
import { type ReplyRow } from "../store/replies"
import { type AttemptRow, type DeliveryRow, type EventRow } from "../store/webhooks"
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
  /** Set when the search for the message's later events (reactions…) stopped before the newest event: it looked up to here. */
  searchedUntilMs: number | null
}

/**
 * How many events (of every account) the search for a message's later events walks at most: a
 * reaction, edit or deletion may come any time after the message, and events are indexed by
 * time only, so the walk is bounded and the page says how far it looked. 5,000 events take
 * 10–20 ms on SQLite (measured with 200,000 events on a busy 2-core box).
 */
export const LATER_EVENTS_SCAN_LIMIT = 5_000

/** The deliveries of some events, each with its endpoint's URL and its attempts, in the events' order. */
async function deliveriesOf(ctx: DomainContext, events: readonly EventRow[]): Promise<TrailDelivery[]> {
  const deliveries: TrailDelivery[] = []
  for (const event of events) {
    for (const delivery of await ctx.store.listDeliveriesOfEvent(event.id)) {
      deliveries.push({
        eventType: event.type,
        endpointId: delivery.endpointId,
        endpointUrl: (await ctx.store.findEndpoint(delivery.endpointId))?.url ?? null,
        delivery,
        attempts: await ctx.store.listAttempts(delivery.id),
      })
    }
  }
  return deliveries
}

/**
 * The events of a message: those recorded at a known instant are found exactly (by index), the
 * ones that may come any time later (`laterTypes`) by a bounded walk from its creation. Each
 * names the message in its body.
 */
async function eventsOfMessage(
  ctx: DomainContext,
  m: { id: string; accountId: string; env: Environment; createdAtMs: number },
  atKnownInstants: readonly [string, number | null][],
  laterTypes: readonly string[],
): Promise<{ events: EventRow[]; searchedUntilMs: number | null }> {
  const marker = `"messageId":${JSON.stringify(m.id)}`
  const events: EventRow[] = []
  for (const [type, atMs] of atKnownInstants) {
    if (atMs === null) continue
    for (const event of await ctx.store.findEventsAt(m.accountId, m.env, type, atMs)) if (event.body.includes(marker)) events.push(event)
  }
  const later = await ctx.store.scanEventsMentioning({ accountId: m.accountId, env: m.env, types: laterTypes, text: marker, fromMs: m.createdAtMs, scanLimit: LATER_EVENTS_SCAN_LIMIT })
  return { events: [...events, ...later.events], searchedUntilMs: later.searchedUntilMs }
}

/**
 * A message's trail: its status events (each recorded at the time of the status it announces:
 * sent, delivered, read or failed) and the reactions to it, with their webhook deliveries.
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
  const { events, searchedUntilMs } = await eventsOfMessage(ctx, message, steps, ["message.reaction"])
  return { message, parts: await ctx.store.listParts(message.id), deliveries: await deliveriesOf(ctx, events), searchedUntilMs }
}

/** The webhook deliveries of an inbound message's events: its receipt (recorded when it was stored), reactions, edits and deletion. */
export async function inboundDeliveries(ctx: DomainContext, row: InboundRow): Promise<{ deliveries: TrailDelivery[]; searchedUntilMs: number | null }> {
  const { events, searchedUntilMs } = await eventsOfMessage(ctx, row, [["message.received", row.createdAtMs]], ["message.reaction", "message.edited", "message.revoked"])
  return { deliveries: await deliveriesOf(ctx, events), searchedUntilMs }
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
