import { Counter, Histogram, type Labels } from "./metrics"

/** The counters and histograms wagate keeps in memory; scrape-time gauges come from the store. */
export interface AppMetrics {
  /** The labels every series carries: `node`, this process's WAGATE_NODE_ID (the gauges read from the store carry them too). */
  constantLabels: Labels
  httpRequests: Counter
  rateLimitRejections: Counter
  webhookAttempts: Counter
  webhookDeliveryLag: Histogram
  /** Inbound edits that arrived encrypted (secretEncryptedMessage), by result: decrypted, no_secret or undecryptable. */
  encryptedEdits: Counter
  pollVotes: Counter
  /** Events the broker confirmed, and failed attempts to publish a page (docs/webhooks.md § "RabbitMQ"). */
  amqpPublished: Counter
  amqpFailures: Counter
}

/** Fresh, empty series (one set per process), each labelled with the node that keeps them. */
export function createAppMetrics(options: { nodeId: string }): AppMetrics {
  const constantLabels = { node: options.nodeId }
  return {
    constantLabels,
    httpRequests: new Counter("wagate_http_requests_total", "HTTP requests by route, method and status code.", constantLabels),
    rateLimitRejections: new Counter("wagate_rate_limit_rejections_total", "Requests refused with 429, by limiter (key or failed_auth).", constantLabels),
    webhookAttempts: new Counter(
      "wagate_webhook_attempts_total",
      "Webhook delivery attempts by result: succeeded, failed (will retry) or exhausted (no retry left).",
      constantLabels,
    ),
    webhookDeliveryLag: new Histogram(
      "wagate_webhook_delivery_lag_seconds",
      "How late each webhook attempt started after it fell due.",
      [0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 60],
      constantLabels,
    ),
    encryptedEdits: new Counter(
      "wagate_encrypted_edits_total",
      "Inbound edits that arrived encrypted, by result: decrypted, no_secret (the edited message's secret is not stored) or undecryptable.",
      constantLabels,
    ),
    pollVotes: new Counter(
      "wagate_poll_votes_total",
      "Poll votes received, by result: decrypted, kept (stored undecrypted until its poll's secret arrives) or undecryptable (a stored secret did not open it; kept too).",
      constantLabels,
    ),
    amqpPublished: new Counter("wagate_amqp_published_total", "Events published to RabbitMQ and confirmed by it, by this node.", constantLabels),
    amqpFailures: new Counter(
      "wagate_amqp_publish_failures_total",
      "Failed attempts to publish a page of events to RabbitMQ (the broker down, refusing or unconfirmed); the page is retried.",
      constantLabels,
    ),
  }
}
