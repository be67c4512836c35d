import { utcDayStartMs } from "../lib/time"
import type { Environment } from "../store/api-keys"
import type { MessageStatus } from "../lib/vocabulary"
import { type MessageRow } from "../store/messages"
import type { DeliveryRow, EndpointRow } from "../store/webhooks"
import type { DomainContext } from "./context"
import { endpointsWithLatestDelivery } from "./endpoint-deliveries"

/** An endpoint whose newest delivery failed or is being retried after a failed attempt. */
export interface FailingEndpoint {
  endpoint: EndpointRow
  delivery: DeliveryRow
}

/**
 * The operator's overview of one account and environment. Every figure comes from a counter
 * table or an index seek, never a scan, so it stays fast with millions of messages.
 */
export interface Overview {
  /** Messages created today (UTC), by their current status. */
  messagesToday: Record<MessageStatus, number>
  failingEndpoints: FailingEndpoint[]
  /** The newest failed messages, newest first. */
  latestFailedMessages: MessageRow[]
}

/** How many failed messages the overview lists. */
const FAILED_MESSAGES_SHOWN = 5

export async function accountOverview(ctx: DomainContext, accountId: string, env: Environment): Promise<Overview> {
  const nowMs = ctx.clock.nowMs()
  const failingEndpoints: FailingEndpoint[] = []
  for (const { endpoint, latest: delivery } of await endpointsWithLatestDelivery(ctx, accountId, env)) {
    if (delivery && (delivery.status === "failed" || (delivery.status === "pending" && delivery.attemptCount > 0))) {
      failingEndpoints.push({ endpoint, delivery })
    }
  }
  return {
    messagesToday: await ctx.store.countMessagesSince(accountId, env, utcDayStartMs(nowMs)),
    failingEndpoints,
    latestFailedMessages: (await ctx.store.listMessages({ accountId, env, status: "failed", limit: FAILED_MESSAGES_SHOWN, offset: 0 })).rows,
  }
}
