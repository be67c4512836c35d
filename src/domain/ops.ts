import type { AppMetrics } from "../lib/app-metrics"
import { renderGauge } from "../lib/metrics"
import type { DomainContext } from "./context"

/**
 * The Prometheus text of every series: in-memory counters plus gauges read from the store now.
 * Every series carries the node's constant labels; on PostgreSQL the store's gauges count the
 * whole cluster, so each node reports the same values (docs/operations.md § "Metrics").
 */
export async function renderMetrics(
  ctx: DomainContext,
  metrics: AppMetrics,
  broker?: () => Promise<{ state: string; backlog: number }>,
): Promise<string> {
  const node = metrics.constantLabels
  const sections = [
    metrics.httpRequests.render(),
    metrics.rateLimitRejections.render(),
    metrics.webhookAttempts.render(),
    metrics.webhookDeliveryLag.render(),
    metrics.encryptedEdits.render(),
    metrics.pollVotes.render(),
    renderGauge("wagate_poll_votes_kept", "Poll votes stored undecrypted, waiting for their poll's secret.", [{ labels: {}, value: await ctx.store.countPendingVotes() }], node),
    renderGauge(
      "wagate_messages",
      "Outbound messages by environment and current status.",
      (await ctx.store.messagesByEnvAndStatus()).map((r) => ({ labels: { environment: r.env, status: r.status }, value: r.n })),
      node,
    ),
    renderGauge(
      "wagate_phones",
      "Phones by connection status.",
      (await ctx.store.phonesByStatus()).map((r) => ({ labels: { status: r.status }, value: r.n })),
      node,
    ),
    renderGauge("wagate_webhook_deliveries_pending", "Webhook deliveries waiting for an attempt or a retry.", [
      { labels: {}, value: await ctx.store.pendingDeliveries() },
    ], node),
    ...(broker ? await brokerSections(metrics, broker) : []),
  ]
  return sections.join("\n") + "\n"
}

/** The RabbitMQ publisher's series, only when WAGATE_AMQP_URL is set (docs/webhooks.md § "RabbitMQ"). */
async function brokerSections(metrics: AppMetrics, broker: () => Promise<{ state: string; backlog: number }>): Promise<string[]> {
  const status = await broker()
  const node = metrics.constantLabels
  return [
    metrics.amqpPublished.render(),
    metrics.amqpFailures.render(),
    renderGauge("wagate_amqp_backlog", "Events written but not yet confirmed by RabbitMQ: they wait in the store (counted up to 10,000).", [{ labels: {}, value: status.backlog }], node),
    renderGauge("wagate_amqp_connected", "1 while this node's connection to RabbitMQ is up, 0 while it connects or the broker is down.", [
      { labels: {}, value: status.state === "connected" ? 1 : 0 },
    ], node),
  ]
}
