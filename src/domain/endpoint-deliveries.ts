import type { Environment } from "../lib/vocabulary"
import { type DeliveryRow, type DeliveryStatus, type EndpointRow } from "../store/webhooks"
import type { DomainContext } from "./context"
import { EVENT_NAMES } from "./event-catalogue"
import { getEndpoint, listAccountEndpoints, type DeliveryWithAttempts } from "./webhook-endpoints"

/*
 * The operator's view of webhook deliveries (the dashboard): an endpoint's log paged by
 * position, and each endpoint's newest delivery, both by index.
 */

/** Where the next (older) page of a delivery log starts. */
export interface DeliveryCursor {
  createdAtMs: number
  id: string
}

/**
 * An endpoint's deliveries for the operator's log, newest first, each with its attempts, paged
 * by position (the dashboard's log never counts or skips rows, so any depth costs the same).
 */
export async function endpointDeliveryLog(
  ctx: DomainContext,
  endpointId: string,
  q: { before: DeliveryCursor | null; limit: number; status?: DeliveryStatus; event?: string },
): Promise<{ rows: LoggedDelivery[]; next: DeliveryCursor | null }> {
  await getEndpoint(ctx, endpointId)
  const eventTypes = q.event ? eventTypesOf(q.event) : undefined
  const rows = await ctx.store.listDeliveriesWindow({ endpointId, before: q.before, limit: q.limit + 1, status: q.status, eventTypes })
  const shown = rows.slice(0, q.limit)
  const last = shown.at(-1)
  return {
    rows: await Promise.all(shown.map((delivery) => loggedDelivery(ctx, delivery))),
    next: rows.length > q.limit && last ? { createdAtMs: last.createdAtMs, id: last.id } : null,
  }
}

/** A delivery of the log with its attempts, and the message its event is about (if any). */
export interface LoggedDelivery extends DeliveryWithAttempts {
  messageId: string | null
}

/** The event names a log filter means: one name, or every name of a resource (`group.*`). */
export function eventTypesOf(filter: string): string[] {
  if (!filter.endsWith(".*")) return EVENT_NAMES.includes(filter as never) ? [filter] : []
  const resource = filter.slice(0, -1)
  return EVENT_NAMES.filter((name) => name.startsWith(resource))
}

async function loggedDelivery(ctx: DomainContext, delivery: DeliveryRow): Promise<LoggedDelivery> {
  const [event, attempts] = await Promise.all([ctx.store.findEvent(delivery.eventId), ctx.store.listAttempts(delivery.id)])
  return { delivery, eventType: event?.type ?? "unknown", attempts, messageId: event ? messageIdOf(event.body) : null }
}

/** The `data.messageId` of an event's envelope, when the event is about a message. */
function messageIdOf(body: string): string | null {
  try {
    const id = (JSON.parse(body) as { data?: { messageId?: unknown } }).data?.messageId
    return typeof id === "string" && id.length <= 64 ? id : null
  } catch {
    return null
  }
}

/** An account's endpoints in one environment, each with its newest delivery (one index seek each). */
export async function endpointsWithLatestDelivery(
  ctx: DomainContext,
  accountId: string,
  env: Environment,
): Promise<{ endpoint: EndpointRow; latest: DeliveryRow | null }[]> {
  return Promise.all((await listAccountEndpoints(ctx, accountId))
    .filter((endpoint) => endpoint.env === env)
    .map(async (endpoint) => ({ endpoint, latest: await ctx.store.latestDelivery(endpoint.id) })))
}
