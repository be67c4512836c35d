import { join } from "node:path"
import { loadConfig, type Config } from "../config"
import { createServices, type Services } from "../deps"
import { systemClock, type Clock } from "../lib/clock"
import { prepareDataDir } from "../lib/data-dir"
import { createLogger, type Logger } from "../lib/logger"
import { escapeControls } from "../lib/outside-text"
import { toIso } from "../lib/time"
import { DATABASE_FILE } from "../store/sqlite/db"
import { refuseSqliteBesidePostgres } from "./database-guard"
import type { DoctorNet } from "../lib/net-probes"

/** What a command may touch of the outside world; tests pass buffers. */
export interface CliIo {
  env: Record<string, string | undefined>
  stdout(text: string): void
  stderr(text: string): void
  isTty: boolean
  clock?: Clock
  /**
   * How the user started wagate, for the commands wagate suggests: `wagate`, `./dist/wagate`,
   * `bun src/main.ts` (see invocationOf). Default `wagate`.
   */
  invocation?: string
  /** The Bun running this process; tests pass an older one. Default Bun.version. */
  bunVersion?: string
  /** What `wagate doctor` reaches the network with; tests point it at 127.0.0.1. Default: the system's. */
  doctorNet?: DoctorNet
}

/** The logger commands use: pretty on a terminal, JSON otherwise. */
export function cliLogger(io: CliIo, config: Config, clock: Clock): Logger {
  return createLogger({
    level: config.logLevel,
    format: io.isTty ? "pretty" : "json",
    nowIso: () => toIso(clock.nowMs()),
    write: (line) => io.stderr(line + "\n"),
  })
}

/**
 * Runs a short command against the data directory directly (not through a running server).
 * SQLite in WAL mode lets it write beside a running server, which sees the change at once.
 */
export async function withServices<T>(
  io: CliIo,
  flags: Record<string, string>,
  fn: (services: Services, config: Config) => Promise<T> | T,
): Promise<T> {
  const config = loadConfig(io.env, flags)
  refuseSqliteBesidePostgres(config)
  const clock = io.clock ?? systemClock()
  const logger = cliLogger(io, config, clock)
  prepareDataDir(config.dataDir, logger)
  const services = await createServices(config, {
    clock,
    logger,
    databasePath: join(config.dataDir, DATABASE_FILE),
  })
  try {
    return await fn(services, config)
  } finally {
    await services.stop()
  }
}

/**
 * Formats rows as an aligned text table. Cells may hold text from outside (a receiver's error,
 * a row written by an older version), so control characters are printed escaped, never raw.
 */
export function table(headers: string[], rows: (string | number | null)[][]): string {
  const cells = [headers, ...rows.map((r) => r.map((c) => (c === null ? "-" : escapeControls(String(c)))))]
  const widths = headers.map((_, i) => Math.max(...cells.map((r) => r[i]!.length)))
  return cells.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join("  ").trimEnd()).join("\n") + "\n"
}

/** Prints a value as indented JSON. */
export function printJson(io: CliIo, value: unknown): void {
  io.stdout(JSON.stringify(value, null, 2) + "\n")
}
