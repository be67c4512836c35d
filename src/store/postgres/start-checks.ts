import { SQL } from "bun"
import { redactDatabaseUrl } from "../../lib/database-url"
import { boundedOutsideText } from "../../lib/outside-text"
import { SchemaTooNewError } from "../schema-version"
import { latestPostgresSchemaVersion, postgresSchemaVersion } from "./migrations"
import type { SessionBounds } from "../session-bounds"
import { sessionParameters } from "./session-bounds"

/*
 * What a node checks before it uses PostgreSQL (docs/operations.md § "Running several nodes"):
 * the database answers and lets wagate in, and its schema is the one this binary was built for.
 * Each failure is one sentence naming the URL with its password hidden; the server's own words,
 * which come from outside, are bounded and escaped.
 */

/** How long opening a connection may take before the database counts as unreachable. */
export const DEFAULT_CONNECT_TIMEOUT_MS = 10_000

/** The database cannot be used as configured; the message says what to check. */
export class DatabaseStartError extends Error {
  /** `cause` is the driver's error, for a caller that tells a starting server from a wrong URL. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options)
    this.name = "DatabaseStartError"
  }
}

interface PostgresErrorLike {
  code?: string
  errno?: string
  message?: string
}

/** The one sentence for a failure to connect to `url`. */
export function connectionFailureMessage(err: unknown, url: string, connectTimeoutMs: number): string {
  const e = (err ?? {}) as PostgresErrorLike
  const where = redactDatabaseUrl(url)
  if (e.code === "ERR_POSTGRES_SERVER_ERROR") {
    return `The PostgreSQL server at ${where} refused the connection (${boundedOutsideText(e.message ?? "no reason given")}): check WAGATE_DATABASE_URL.`
  }
  const reason =
    e.code === "ERR_POSTGRES_CONNECTION_REFUSED"
      ? "connection refused"
      : e.code === "ERR_POSTGRES_CONNECTION_TIMEOUT"
        ? `no answer within ${connectTimeoutMs / 1000} s`
        : boundedOutsideText(e.message ?? String(err))
  return `Cannot reach the PostgreSQL database at ${where} (${reason}): check WAGATE_DATABASE_URL.`
}

export interface ConnectOptions {
  maxConnections?: number
  connectTimeoutMs?: number
  /** Set on every connection of the pool (src/store/postgres/session-bounds.ts); the server's defaults without. */
  session?: SessionBounds
}

/** A pool on `url` that has answered once; a DatabaseStartError when it cannot. */
export async function connectPostgres(url: string, options: ConnectOptions = {}): Promise<SQL> {
  const connectTimeoutMs = options.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS
  const sql = new SQL(url, {
    max: options.maxConnections ?? 10,
    connectionTimeout: Math.max(1, Math.ceil(connectTimeoutMs / 1000)),
    ...(options.session ? { connection: sessionParameters(options.session) } : {}),
  })
  try {
    await sql`SELECT 1`
    return sql
  } catch (err) {
    await sql.close({ timeout: 0 }).catch(() => {})
    throw new DatabaseStartError(connectionFailureMessage(err, url, connectTimeoutMs), { cause: err })
  }
}

/**
 * Refuses a schema this binary cannot use: an older one must be migrated first (`wagate
 * migrate`, run once for the cluster, never implicitly by a node), a newer one means this
 * binary is older than the cluster's.
 */
export async function checkPostgresSchema(sql: SQL, url: string, latest: number = latestPostgresSchemaVersion()): Promise<void> {
  const version = await postgresSchemaVersion(sql)
  if (version > latest) throw new SchemaTooNewError(version, latest)
  if (version < latest) {
    throw new DatabaseStartError(
      `The PostgreSQL database at ${redactDatabaseUrl(url)} has schema version ${version}, but this wagate needs version ${latest}: run \`wagate migrate\` once, then start the nodes.`,
    )
  }
}
