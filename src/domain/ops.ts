import type { AppMetrics } from "../lib/app-metrics"
import { renderGauge } from "../lib/metrics"
import { messagesByEnvAndStatus, pendingDeliveries, phonesByStatus } from "../store/stats"
import type { DomainContext } from "./context"

/** The Prometheus text of every series: in-memory counters plus gauges read from the store now. */
export function renderMetrics(ctx: DomainContext, metrics: AppMetrics): string {
  const sections = [
    metrics.httpRequests.render(),
    metrics.rateLimitRejections.render(),
    metrics.webhookAttempts.render(),
    metrics.webhookDeliveryLag.render(),
    renderGauge(
      "wagate_messages",
      "Outbound messages by environment and current status.",
      messagesByEnvAndStatus(ctx.db).map((r) => ({ labels: { environment: r.env, status: r.status }, value: r.n })),
    ),
    renderGauge(
      "wagate_phones",
      "Phones by connection status.",
      phonesByStatus(ctx.db).map((r) => ({ labels: { status: r.status }, value: r.n })),
    ),
    renderGauge("wagate_webhook_deliveries_pending", "Webhook deliveries waiting for an attempt or a retry.", [
      { labels: {}, value: pendingDeliveries(ctx.db) },
    ]),
  ]
  return sections.join("\n") + "\n"
}
