import type { Config } from "./config"
import type { DomainContext } from "./domain/context"
import { createRateLimiter, type RateLimiter } from "./domain/rate-limits"
import { createSandboxScheduler, type SandboxScheduler } from "./domain/sandbox"
import { createUsageRecorder, type UsageRecorder } from "./domain/usage"
import type { HttpDeps } from "./http/deps"
import type { Clock } from "./lib/clock"
import { ulidGenerator, type IdGenerator } from "./lib/ids"
import type { Logger } from "./lib/logger"
import { toIso } from "./lib/time"
import { migrate, openDatabase, type Database } from "./store/db"
import { createWriter } from "./store/writer"
import { VERSION } from "./version"

/** Everything a running wagate is made of, wired once. */
export interface Services extends HttpDeps {
  db: Database
  limiter: RateLimiter
  usage: UsageRecorder
  sandbox: SandboxScheduler
  /** Starts the background work (scheduled sandbox transitions). */
  start(): void
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
}

/**
 * The composition root: opens and migrates the database and wires the domain services. Used
 * by `serve`, by the CLI commands and by tests, so all three run the same code.
 */
export function createServices(config: Config, overrides: ServiceOverrides): Services {
  const { clock, logger } = overrides
  const db = openDatabase(overrides.databasePath)
  migrate(db, clock.nowMs())
  const writer = createWriter(db)
  const ctx: DomainContext = {
    db,
    writer,
    clock,
    ids: overrides.ids ?? ulidGenerator(clock),
    logger,
    config: {
      rateLimitPerMinute: config.rateLimitPerMinute,
      sandboxDeliveredMs: config.sandboxDeliveredMs,
      sandboxReadMs: config.sandboxReadMs,
      outboundAllowCidrs: config.outboundAllowCidrs,
      adminToken: config.adminToken,
    },
  }
  const limiter = createRateLimiter(clock)
  const usage = createUsageRecorder(ctx)
  const sandbox = createSandboxScheduler(ctx)
  let stopped = false
  return {
    ctx,
    db,
    limiter,
    usage,
    sandbox,
    liveGroups: null,
    version: VERSION,
    start: () => sandbox.start(),
    async stop() {
      if (stopped) return
      stopped = true
      sandbox.stop()
      await usage.stop()
      writer.flush()
      if (overrides.checkpointOnStop) db.run("PRAGMA wal_checkpoint(TRUNCATE)")
      db.close()
      logger.debug("services stopped", { at: toIso(clock.nowMs()) })
    },
  }
}
