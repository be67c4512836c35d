import { Counter, Histogram } from "./metrics"

/** The counters and histograms wagate keeps in memory; scrape-time gauges come from the store. */
export interface AppMetrics {
  httpRequests: Counter
  rateLimitRejections: Counter
  webhookAttempts: Counter
  webhookDeliveryLag: Histogram
}

/** Fresh, empty series (one set per process). */
export function createAppMetrics(): AppMetrics {
  return {
    httpRequests: new Counter("wagate_http_requests_total", "HTTP requests by route, method and status code."),
    rateLimitRejections: new Counter("wagate_rate_limit_rejections_total", "Requests refused with 429, by limiter (key or failed_auth)."),
    webhookAttempts: new Counter(
      "wagate_webhook_attempts_total",
      "Webhook delivery attempts by result: succeeded, failed (will retry) or exhausted (no retry left).",
    ),
    webhookDeliveryLag: new Histogram(
      "wagate_webhook_delivery_lag_seconds",
      "How late each webhook attempt started after it fell due.",
      [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 60],
    ),
  }
}
