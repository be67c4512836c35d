import { createChats } from "./domain/chats"
import { createLabels } from "./domain/labels"
import type { Config } from "./config"
import { createNodeTrust } from "./domain/node-trust"
import type { DomainContext } from "./domain/context"
import { createRateLimiter, type RateLimiter } from "./domain/rate-limits"
import { createSharedRateLimiter } from "./domain/shared-rate-limits"
import { createSandboxScheduler, type SandboxScheduler } from "./domain/sandbox"
import { createScheduler } from "./lib/scheduler"
import { createByteBudget } from "./lib/byte-budget"
import { mediaTempDir } from "./lib/media-temp"
import { createMediaCache } from "./lib/media-cache"
import { createContactBlocks } from "./domain/contact-blocks"
import { createContactProfiles } from "./domain/contact-profiles"
import { DEFAULT_MEDIA_MAX_BYTES } from "./lib/media-limits"
import { createAppMetrics } from "./lib/app-metrics"
import { createContactChecker } from "./domain/contact-checks"
import { createGroupService } from "./domain/group-service"
import { createLiveLookups } from "./domain/live-lookups"
import { createLiveSender } from "./domain/live-sender"
import { renewEveryFor } from "./domain/lease-timings"
import { nodeSessionBounds } from "./domain/session-bounds"
import { createMessageReceipts } from "./domain/message-receipts"
import type { FetchMedia } from "./domain/outbound-parts"
import { createPhoneLinks } from "./domain/phone-links"
import { createSemaphore } from "./lib/semaphore"
import { createSessionManager } from "./domain/sessions"
import { createPairingRelay, localPairingRelay } from "./domain/pairing-relay"
import { createBaileysGateway } from "./whatsapp/baileys/gateway"
import type { WhatsAppGateway } from "./whatsapp/gateway"
import { createDispatcher, type Dispatcher } from "./webhooks/dispatcher"
import { createOutbox } from "./webhooks/outbox"
import { createEventWake, listenForEvents } from "./webhooks/event-wake"
import { createAmqpPublishing } from "./webhooks/amqp/wiring"
import { createEventStreams } from "./domain/event-streams"
import { createWaResendRetention } from "./domain/wa-resend-retention"
import { createHistoryRetention, type HistoryRetention } from "./domain/history-retention"
import { createWebhookRetention, type WebhookRetention } from "./webhooks/retention"
import type { FetchLike } from "./webhooks/sender"
import { createUsageRecorder, type UsageRecorder } from "./domain/usage"
import type { HttpDeps } from "./http/deps"
import type { Clock } from "./lib/clock"
import type { EventLoopLagMonitor } from "./lib/event-loop-lag"
import { ulidGenerator, type IdGenerator } from "./lib/ids"
import type { Logger } from "./lib/logger"
import { toIso } from "./lib/time"
import type { Database } from "./store/sqlite/db"
import { openStore } from "./store/open"
import type { Store } from "./store/store"
import type { NodeIdInUseError } from "./store/leases"
import { leasedOwnership, soleOwnership, type PhoneOwnership } from "./domain/phone-ownership"
import { randomBase62 } from "./lib/secrets"
import { VERSION } from "./version"

/** Everything a running wagate is made of, wired once. */
export interface Services extends HttpDeps {
  /** The embedded SQLite connection, or null on PostgreSQL (src/store/open.ts). */
  sqlite: Database | null
  limiter: RateLimiter
  usage: UsageRecorder
  sandbox: SandboxScheduler
  dispatcher: Dispatcher
  webhookRetention: WebhookRetention
  historyRetention: HistoryRetention
  gateway: WhatsAppGateway
  /** Starts the background work: scheduled sandbox transitions, webhook deliveries and their retention. */
  start(): Promise<void>
  /** Stops background work, writes what is buffered and closes the database. Idempotent. */
  stop(): Promise<void>
}

/** The parts of the outside world a test may replace. */
export interface ServiceOverrides {
  clock: Clock
  ids?: IdGenerator
  logger: Logger
  /** Path of the database file, or ":memory:". */
  databasePath: string
  /** Fold the WAL into the database file at stop (the server does; short CLI commands must not wait on it). */
  checkpointOnStop?: boolean
  /** The fetch webhook attempts use. */
  fetch?: FetchLike
  /** The WhatsApp boundary; Baileys unless a test passes a fake. */
  gateway?: WhatsAppGateway
  /** Downloads media of live sends; the SSRF-guarded fetcher unless a test passes one. */
  fetchMedia?: FetchMedia
  /** Randomness for jitter (send pacing, reconnect backoff); tests make it deterministic. */
  random?: () => number
  /**
   * The event loop's lag monitor that paces connects (docs/live-whatsapp.md § "How connects are
   * paced"); the server passes one, which the connect gate runs only while connects are opening or
   * waiting and the services stop. Without one the gate only bounds concurrency.
   */
  lagMonitor?: EventLoopLagMonitor
  /** Lease timings of nodes sharing PostgreSQL (WAGATE_NODE_LEASE_MS unless a test shortens them). */
  leaseTimings?: { leaseMs?: number; renewEveryMs?: number; firstClaimDelayMs?: number }
  /** What happens when another process took this node id over; the server exits. */
  onNodeIdTaken?: (err: NodeIdInUseError) => void
  /** Event stream bounds (src/domain/event-streams.ts); tests shrink the buffer to reach an overflow. */
  eventStreams?: { bufferBytes?: number; perKey?: number }
}

/**
 * Who owns which phone: the one process of a SQLite data directory owns them all; nodes sharing
 * PostgreSQL hold leases (src/domain/phone-ownership.ts). Only `serve` starts it (services.start()),
 * so a CLI command never registers a node or claims a phone.
 */
/** The lease timings this node runs on: WAGATE_NODE_LEASE_MS, renewed every third of it, unless a test sets its own. */
function leaseTimingsOf(config: Config, overrides: ServiceOverrides): { leaseMs: number; renewEveryMs: number; firstClaimDelayMs?: number } {
  const leaseMs = overrides.leaseTimings?.leaseMs ?? config.nodeLeaseMs
  return { ...overrides.leaseTimings, leaseMs, renewEveryMs: overrides.leaseTimings?.renewEveryMs ?? renewEveryFor(leaseMs) }
}

function phoneOwnership(config: Config, overrides: ServiceOverrides, store: Store): PhoneOwnership {
  if (!store.sharedByNodes) return soleOwnership(store)
  const { clock, logger } = overrides
  return leasedOwnership({
    store,
    clock,
    logger,
    node: { nodeId: config.nodeId, instanceId: randomBase62(12) },
    maxPhones: config.nodeMaxPhones,
    url: config.nodeUrl,
    ...leaseTimingsOf(config, overrides),
    onNodeIdTaken:
      overrides.onNodeIdTaken ??
      ((err) => {
        // This process was paused past its lease and a new one took the node id over: it holds
        // nothing any more and must not go on as a second instance of the node.
        logger.error("another process took this node's id over; exiting", { node: config.nodeId, err })
        process.exit(1)
      }),
  })
}

/** Webhook attempts in flight at once, in total and per endpoint (docs/webhooks.md § "Retries"). */
export const WEBHOOK_MAX_IN_FLIGHT = 256
export const WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT = 64

/**
 * The composition root: opens and migrates the database and wires the domain services. Used
 * by `serve`, by the CLI commands and by tests, so all three run the same code.
 */
export async function createServices(config: Config, overrides: ServiceOverrides): Promise<Services> {
  const { clock, logger } = overrides
  const opened = await openStore({
    databaseUrl: config.databaseUrl,
    sqlitePath: overrides.databasePath,
    nowMs: clock.nowMs(),
    onCallbackError: (err) => logger.error("post-commit work failed", { err }),
    // From the same timings the lease keeper runs on (phoneOwnership below).
    sessionBounds: nodeSessionBounds(leaseTimingsOf(config, overrides)),
  })
  const { store } = opened
  const scheduler = createScheduler(clock)
  const metrics = createAppMetrics({ nodeId: config.nodeId })
  const ids = overrides.ids ?? ulidGenerator(clock)
  const ownership = phoneOwnership(config, overrides, store)
  const dispatcher = createDispatcher({
    store,
    clock,
    logger,
    scheduler,
    metrics,
    fetch: overrides.fetch,
    // The other nodes judge this node's claims by its heartbeat, which the phone leases renew.
    liveness: ownership,
    config: {
      nodeId: config.nodeId,
      nodeLeaseMs: leaseTimingsOf(config, overrides).leaseMs,
      retryOffsetsMs: config.webhookRetryOffsetsMs,
      timeoutMs: config.webhookTimeoutMs,
      maxInFlight: WEBHOOK_MAX_IN_FLIGHT,
      maxInFlightPerEndpoint: WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT,
      userAgent: `wagate/${VERSION}`,
    },
  })
  const wake = createEventWake()
  // With WAGATE_AMQP_URL every event goes to the log and on to RabbitMQ (docs/webhooks.md § "RabbitMQ").
  const amqp = config.amqpUrl === null ? null : createAmqpPublishing({ amqpUrl: config.amqpUrl, exchange: config.amqpExchange, nodeId: config.nodeId, store, clock, logger, metrics })
  const ctx: DomainContext = {
    store,
    clock,
    ids,
    logger,
    events: createOutbox({
      ids,
      clock,
      onDeliveryCommitted: (delivery) => dispatcher.schedule(delivery),
      version: () => store.changeVersion(),
      onLoggedCommitted: amqp ? () => amqp.wake() : undefined,
    }),
    principalCache: new Map(),
    config: {
      rateLimitPerMinute: config.rateLimitPerMinute,
      sandboxDeliveredMs: config.sandboxDeliveredMs,
      sandboxReadMs: config.sandboxReadMs,
      outboundAllowCidrs: config.outboundAllowCidrs,
      adminToken: config.adminToken,
      nodeId: config.nodeId,
    },
  }
  // One process keeps exact buckets in memory at no I/O; nodes sharing the database must share each key's bucket.
  const nodeTrust = createNodeTrust(ctx)
  const limiter = !store.sharedByNodes ? createRateLimiter(clock) : createSharedRateLimiter({ store, clock, logger, local: createRateLimiter(clock) })
  const webhookRetention = createWebhookRetention({ store, clock, logger, scheduler, retentionDays: config.webhookRetentionDays, amqpPublishing: amqp !== null })
  const waResendRetention = createWaResendRetention({ store, clock, logger, scheduler, retentionDays: config.waResendRetentionDays })
  const historyRetention = createHistoryRetention({ store, clock, logger, scheduler, retentionDays: config.historyRetentionDays })
  const usage = createUsageRecorder(ctx)
  const eventStreams = createEventStreams({ ctx, wake, ...overrides.eventStreams })
  const sandbox = createSandboxScheduler(ctx, scheduler)
  const gateway =
    overrides.gateway ??
    createBaileysGateway({
      store,
      clock,
      logger,
      wsUrl: config.waWsUrl,
      waVersion: config.waVersion,
      waVersionUrl: config.waVersionUrl,
      connectTimeoutMs: config.waConnectTimeoutMs,
      offlineMarkerWaitMs: config.waOfflineMarkerWaitMs,
      waResendRetentionDays: config.waResendRetentionDays,
      encryptedEdits: metrics.encryptedEdits,
      pollVotes: metrics.pollVotes,
      fenceOf: (phoneId) => ownership.fenceOf(phoneId),
      onFenceRefused: (phoneId) => ownership.refused(phoneId),
    })
  const lookups = createLiveLookups(clock)
  // The sessions and the send queue meet only here: the sessions write which phones are
  // connected into the links the queue listens to, and the gateway's acks and receipts reach the
  // message receipts, which tell the queue when a message is settled.
  const links = createPhoneLinks()
  // Loaded on the first media download: its TLS, DNS and type-sniffing modules would otherwise
  // cost every start (and every CLI command) about 20 ms. Sends and picture routes share it.
  const fetchMedia: FetchMedia =
    overrides.fetchMedia ??
    (async (url) => {
      const { fetchMedia } = await import("./lib/media-fetcher")
      return fetchMedia(url, { allowCidrs: config.outboundAllowCidrs, clock, tempDir: mediaTempDir(config.dataDir) })
    })
  const live = createLiveSender({
    ctx,
    scheduler,
    lookups,
    links,
    fetchMedia,
    mediaBudget: createByteBudget(config.mediaMemoryMb * 1024 * 1024),
    sendIntervalMs: config.sendIntervalMs,
    sendTimeoutMs: config.sendTimeoutMs,
    random: overrides.random,
    owns: (phoneId) => ownership.owns(phoneId),
  })
  const groups = createGroupService({ ctx, links, lookups })
  // One conversion at a time for profile and group pictures alike (src/domain/picture-source.ts).
  const pictures = { fetchMedia, conversions: createSemaphore(1) }
  const receipts = createMessageReceipts({ ctx, settled: live.settled })
  const sessions = await createSessionManager({
    ownership,
    // Only nodes sharing a database relay pairing states; one process has every socket itself.
    relay: store.sharedByNodes ? createPairingRelay({ store, clock, logger, nodeId: config.nodeId }) : localPairingRelay(),
    onAdopted: (phoneIds) => live.adopted(phoneIds),
    ctx,
    gateway,
    scheduler,
    lookups,
    links,
    receipts,
    random: overrides.random,
    connectConcurrency: config.waConnectConcurrency,
    lag: overrides.lagMonitor,
  })
  let started = false
  let stopped = false
  let unlistenEvents: (() => Promise<void>) | null = null
  // One cache for inbound media and pictures: WAGATE_MEDIA_CACHE_MB bounds them together.
  const mediaCache = createMediaCache({ dataDir: config.dataDir, maxBytes: config.mediaCacheMb * 1024 * 1024, clock })
  const contactChecks = createContactChecker({ ctx, lookups, links, perPhonePerHour: config.checksPerPhonePerHour })
  return {
    ctx,
    sqlite: opened.sqlite,
    limiter,
    usage,
    sandbox,
    dispatcher,
    webhookRetention,
    historyRetention,
    live,
    sessions,
    gateway,
    liveGroups: (phone) => sessions.liveGroups(phone),
    presence: { links, lookups },
    messageActions: { links, lookups },
    inboundMedia: { links, cache: mediaCache, maxBytes: DEFAULT_MEDIA_MAX_BYTES },
    groups,
    ownProfile: { links, pictures },
    groupPictures: { groups, links, pictures },
    contactChecks,
    contactBlocks: createContactBlocks({ ctx, links }),
    chats: createChats({ ctx, links }),
    labels: createLabels({ ctx, links }),
    eventStreams,
    ...(amqp ? { brokerStatus: () => amqp.status() } : {}),
    contactProfiles: createContactProfiles({ ctx, links, lookups, checks: contactChecks, cache: mediaCache }),
    metrics,
    metricsPublic: config.metricsPublic,
    trustedProxies: config.trustedProxies,
    version: VERSION,
    node: { nodeId: config.nodeId, leaseMs: leaseTimingsOf(config, overrides).leaseMs },
    nodeTrust,
    async start() {
      started = true
      // Generated at the first start of a cluster, so every node finds it before it forwards.
      await nodeTrust.secret()
      await sandbox.start()
      webhookRetention.start()
      waResendRetention.start()
      historyRetention.start()
      await sessions.start()
      // After the node is registered (sessions.start refuses a node id a live process holds):
      // the dispatcher frees the claims its node id left, which must never be a live process's.
      await dispatcher.start()
      await live.start()
      // The streams of this node wake on events committed by any node (src/webhooks/event-wake.ts).
      unlistenEvents = await listenForEvents(store, wake)
      amqp?.start()
    },
    async stop() {
      if (stopped) return
      stopped = true
      // Sessions may run without start() (pairing from the CLI): always close them.
      eventStreams.closeAll()
      await unlistenEvents?.().catch((err) => logger.debug("unlistening event signals failed", { err }))
      await sessions.stop()
      await live.stop()
      overrides.lagMonitor?.stop()
      scheduler.stop()
      if (started) await dispatcher.stop()
      await amqp?.stop()
      await webhookRetention.stop()
      await waResendRetention.stop()
      await historyRetention.stop()
      await usage.stop()
      await opened.close({ checkpoint: overrides.checkpointOnStop })
      logger.debug("services stopped", { at: toIso(clock.nowMs()) })
    },
  }
}
