import type { Environment } from "../lib/vocabulary"
import { type DeliveryRow, type EndpointRow } from "../store/webhooks"
import type { DomainContext } from "./context"
import { getEndpoint, listAccountEndpoints, withAttempts, type DeliveryWithAttempts } from "./webhook-endpoints"

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
  q: { before: DeliveryCursor | null; limit: number },
): Promise<{ rows: DeliveryWithAttempts[]; next: DeliveryCursor | null }> {
  await getEndpoint(ctx, endpointId)
  const rows = await ctx.store.listDeliveriesWindow({ endpointId, before: q.before, limit: q.limit + 1 })
  const shown = rows.slice(0, q.limit)
  const last = shown.at(-1)
  return {
    rows: await Promise.all(shown.map((delivery) => withAttempts(ctx, delivery))),
    next: rows.length > q.limit && last ? { createdAtMs: last.createdAtMs, id: last.id } : null,
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
