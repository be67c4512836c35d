import type { Clock } from "../../lib/clock"
import type { AppMetrics } from "../../lib/app-metrics"
import type { Logger } from "../../lib/logger"
import { redactDatabaseUrl } from "../../lib/database-url"
import type { Store } from "../../store/store"
import { createAmqpPublisher, type AmqpPublisher } from "./publisher"
import { createRabbitmqPort } from "./rabbitmq"

/** The publisher over rabbitmq-client with the settings of WAGATE_AMQP_URL and WAGATE_AMQP_EXCHANGE. */
export function createAmqpPublishing(deps: {
  amqpUrl: string
  exchange: string
  nodeId: string
  store: Store
  clock: Clock
  logger: Logger
  metrics: AppMetrics
}): AmqpPublisher {
  return createAmqpPublisher({
    store: deps.store,
    clock: deps.clock,
    logger: deps.logger,
    nodeId: deps.nodeId,
    exchange: deps.exchange,
    metrics: { published: deps.metrics.amqpPublished, failures: deps.metrics.amqpFailures },
    openPort: () => {
      // The URL may hold the broker's password: it is only ever shown redacted.
      deps.logger.info("publishing every event to RabbitMQ", { broker: redactDatabaseUrl(deps.amqpUrl), exchange: deps.exchange })
      return createRabbitmqPort({ url: deps.amqpUrl, exchange: deps.exchange, connectionName: `wagate ${deps.nodeId}` })
    },
  })
}
