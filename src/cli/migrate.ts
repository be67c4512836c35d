import { join } from "node:path"
import { loadConfig } from "../config"
import { systemClock } from "../lib/clock"
import { prepareDataDir } from "../lib/data-dir"
import { redactDatabaseUrl } from "../lib/database-url"
import { DATABASE_FILE, latestSchemaVersion, migrate, openDatabase, schemaVersion } from "../store/sqlite/db"
import { MIGRATIONS } from "../store/sqlite/migrations"
import { latestPostgresSchemaVersion, migratePostgres, PG_MIGRATIONS, postgresSchemaVersion } from "../store/postgres/migrations"
import { connectPostgres } from "../store/postgres/start-checks"
import { parseArgs } from "./args"
import { cliLogger, type CliIo } from "./io"

/**
 * `wagate migrate`: applies the pending migrations of the configured database and prints each
 * one it applied. On SQLite `serve` does the same at start; on PostgreSQL it is the only way a
 * schema changes, run once for the cluster (nodes refuse an older schema). Several runs at once
 * are safe there: each migration is applied under a lock by whichever run gets it first, and
 * the others find it done.
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
  if (config.databaseUrl !== null) {
    const sql = await connectPostgres(config.databaseUrl, { maxConnections: 1 })
    try {
      applied = await migratePostgres(sql, clock.nowMs())
      version = await postgresSchemaVersion(sql)
    } finally {
      await sql.close()
    }
    for (const m of PG_MIGRATIONS) names.set(m.version, m.name)
    latest = latestPostgresSchemaVersion()
    where = `the PostgreSQL database at ${redactDatabaseUrl(config.databaseUrl)}`
  } else {
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
  for (const v of applied) io.stdout(`Applied migration ${v}: ${names.get(v)}\n`)
  if (applied.length === 0) io.stdout(`Nothing to apply to ${where}.\n`)
  io.stdout(`Database schema is at version ${version} (latest known: ${latest}).\n`)
  return 0
}
