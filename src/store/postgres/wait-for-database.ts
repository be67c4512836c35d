import type { SQL } from "bun"
import type { Clock } from "../../lib/clock"
import type { SessionBounds } from "../session-bounds"
import { connectPostgres, DatabaseStartError, DEFAULT_CONNECT_TIMEOUT_MS } from "./start-checks"

/*
 * `wagate migrate` may start while PostgreSQL is still coming up: in Compose, the official image
 * runs a first server on its socket only while it creates the database, then restarts it on TCP
 * (docs/operations.md § "Database"). Refused connections and a server that says it is starting
 * or shutting down are waited out, within a bound; a wrong password, user or database name fails
 * at once, since waiting cannot mend it.
 */

/** The first pause between two tries; each next one doubles, up to MAX_RETRY_PAUSE_MS. */
export const FIRST_RETRY_PAUSE_MS = 250
export const MAX_RETRY_PAUSE_MS = 2_000

/** SQLSTATEs of a server that is not accepting sessions yet, or no longer: 57P01–57P03. */
const NOT_UP_SQLSTATES = new Set(["57P01", "57P02", "57P03"])
const NOT_UP_CODES = new Set(["ERR_POSTGRES_CONNECTION_REFUSED", "ERR_POSTGRES_CONNECTION_CLOSED", "ERR_POSTGRES_CONNECTION_TIMEOUT"])

/** Whether a failure to connect is one a server that is still starting gives (Bun's SQL errors). */
export function isNotUpYet(err: unknown): boolean {
  const e = (err ?? {}) as { code?: unknown; errno?: unknown }
  if (typeof e.code === "string" && NOT_UP_CODES.has(e.code)) return true
  return e.code === "ERR_POSTGRES_SERVER_ERROR" && typeof e.errno === "string" && NOT_UP_SQLSTATES.has(e.errno)
}

export interface WaitOptions {
  clock: Clock
  /** How long to keep trying after the first failure; 0 tries once. */
  waitMs: number
  maxConnections?: number
  /** Set on every connection of the pool, as connectPostgres's `session`. */
  session?: SessionBounds
  /** Called once, at the first failure that is waited out. */
  onWaiting?: () => void
}

function pause(clock: Clock, ms: number): Promise<void> {
  return new Promise((resolve) => clock.setTimer(ms, resolve))
}

/**
 * A pool on `url` that has answered once, trying again with growing pauses while the server is
 * not up yet. After `waitMs` the last failure is thrown, saying how long it was waited for.
 */
export async function connectPostgresWhenUp(url: string, options: WaitOptions): Promise<SQL> {
  const { clock, waitMs } = options
  const deadlineMs = clock.nowMs() + waitMs
  let pauseMs = FIRST_RETRY_PAUSE_MS
  let waiting = false
  for (;;) {
    const leftMs = deadlineMs - clock.nowMs()
    // A try never runs far past the bound: its connect timeout is what is left (1 s at least).
    const connectTimeoutMs = Math.min(DEFAULT_CONNECT_TIMEOUT_MS, Math.max(1_000, leftMs))
    try {
      return await connectPostgres(url, { maxConnections: options.maxConnections, connectTimeoutMs, session: options.session })
    } catch (err) {
      const cause = err instanceof DatabaseStartError ? err.cause : err
      const remainingMs = deadlineMs - clock.nowMs()
      if (!isNotUpYet(cause)) throw err
      if (remainingMs <= 0) {
        // With no wait at all the one try's sentence is the whole story.
        if (!waiting || !(err instanceof Error)) throw err
        throw new DatabaseStartError(`${err.message} Waited ${waitMs / 1000} s for it to accept connections (WAGATE_DATABASE_WAIT_MS).`, { cause })
      }
      if (!waiting) options.onWaiting?.()
      waiting = true
      await pause(clock, Math.min(pauseMs, remainingMs))
      pauseMs = Math.min(pauseMs * 2, MAX_RETRY_PAUSE_MS)
    }
  }
}
