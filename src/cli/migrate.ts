import { join } from "node:path"
import { loadConfig } from "../config"
import { systemClock } from "../lib/clock"
import { prepareDataDir } from "../lib/data-dir"
import { redactDatabaseUrl } from "../lib/database-url"
import { DATABASE_FILE, latestSchemaVersion, migrate, openDatabase, schemaVersion } from "../store/sqlite/db"
import { MIGRATIONS } from "../store/sqlite/migrations"
import { latestPostgresSchemaVersion, migratePostgres, PG_MIGRATION_GAPS, PG_MIGRATIONS, postgresSchemaVersion } from "../store/postgres/migrations"
import { UNBOUNDED_SESSION } from "../store/session-bounds"
import { connectPostgresWhenUp } from "../store/postgres/wait-for-database"
import { parseArgs } from "./args"
import { refuseSqliteBesidePostgres } from "./database-guard"
import { cliLogger, type CliIo } from "./io"

/**
 * `wagate migrate`: applies the pending migrations of the configured database and prints each
 * one it applied. On SQLite `serve` does the same at start; on PostgreSQL it is the only way a
 * schema changes, run once for the cluster (nodes refuse an older schema). Several runs at once
 * are safe there: each migration is applied under a lock by whichever run gets it first, and
 * the others find it done. A database that is not up yet is waited for, WAGATE_DATABASE_WAIT_MS
 * at most (src/store/postgres/wait-for-database.ts).
 */
export async function migrateCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, new Set())
  const config = loadConfig(io.env, args.flags)
  const clock = io.clock ?? systemClock()
  const names = new Map<number, string>()
  let applied: number[]
  let version: number
  let latest: number
  let where: string
  let gaps: Readonly<Record<number, string>> = {}
  if (config.databaseUrl !== null) {
    const url = config.databaseUrl
    const sql = await connectPostgresWhenUp(url, {
      clock,
      waitMs: config.databaseWaitMs,
      maxConnections: 1,
      session: UNBOUNDED_SESSION,
      onWaiting: () => io.stdout(`Waiting up to ${config.databaseWaitMs / 1000} s for the PostgreSQL database at ${redactDatabaseUrl(url)} to accept connections.\n`),
    })
    try {
      applied = await migratePostgres(sql, clock.nowMs())
      version = await postgresSchemaVersion(sql)
    } finally {
      await sql.close()
    }
    for (const m of PG_MIGRATIONS) names.set(m.version, m.name)
    latest = latestPostgresSchemaVersion()
    gaps = PG_MIGRATION_GAPS
    where = `the PostgreSQL database at ${redactDatabaseUrl(config.databaseUrl)}`
  } else {
    refuseSqliteBesidePostgres(config)
    prepareDataDir(config.dataDir, cliLogger(io, config, clock))
    const path = join(config.dataDir, DATABASE_FILE)
    const db = openDatabase(path)
    try {
      applied = migrate(db, clock.nowMs())
      version = schemaVersion(db)
    } finally {
      db.close()
    }
    for (const m of MIGRATIONS) names.set(m.version, m.name)
    latest = latestSchemaVersion()
    where = `the SQLite database ${path}`
  }
  for (const [i, v] of applied.entries()) {
    for (let gap = (applied[i - 1] ?? v) + 1; gap < v; gap++) io.stdout(`There is no migration ${gap}: ${gaps[gap] ?? "its number was never used"}.\n`)
    io.stdout(`Applied migration ${v}: ${names.get(v)}\n`)
  }
  if (applied.length === 0) io.stdout(`Nothing to apply to ${where}.\n`)
  io.stdout(`Database schema is at version ${version} (latest known: ${latest}).\n`)
  return 0
}
