import { Database } from "bun:sqlite"
import { closeSync, mkdirSync, openSync, renameSync, rmSync } from "node:fs"
import { dirname } from "node:path"
import { DATA_DIR_MODE, DATA_FILE_MODE } from "../../lib/data-dir"
import { MIGRATIONS, type Migration } from "./migrations"
import { SchemaTooNewError } from "../schema-version"

export type { Database }

/** The file name of the database inside the data directory. */
export const DATABASE_FILE = "wagate.db"

/**
 * Opens a database with the durability settings of docs/decisions.md § "Configuration and operations": WAL, synchronous=FULL
 * (an acknowledged send must survive a power loss), a busy timeout so that a CLI command and
 * the server can write side by side, and foreign keys on. bun:sqlite's defaults are none of
 * these, so they are set at every open.
 */
export function openDatabase(path: string): Database {
  if (path !== ":memory:") {
    mkdirSync(dirname(path), { recursive: true, mode: DATA_DIR_MODE })
    // Created 0600 before SQLite opens it: SQLite gives the -wal and -shm files the database
    // file's mode, and all three hold WhatsApp credentials and webhook secrets.
    closeSync(openSync(path, "a", DATA_FILE_MODE))
  }
  const db = new Database(path, { create: true, strict: true })
  db.run("PRAGMA busy_timeout = 5000")
  if (path !== ":memory:") db.run("PRAGMA journal_mode = WAL")
  db.run("PRAGMA synchronous = FULL")
  db.run("PRAGMA foreign_keys = ON")
  db.run("PRAGMA temp_store = MEMORY")
  db.run("PRAGMA journal_size_limit = 67108864")
  return db
}

const CREATE_MIGRATIONS_TABLE = `CREATE TABLE IF NOT EXISTS schema_migrations (
  version INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  applied_at_ms INTEGER NOT NULL
) STRICT`
const SELECT_VERSION = "SELECT COALESCE(MAX(version), 0) AS version FROM schema_migrations"
const INSERT_MIGRATION = "INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES (?, ?, ?)"

/** The schema version a database is at (0 for an empty one). */
export function schemaVersion(db: Database): number {
  db.run(CREATE_MIGRATIONS_TABLE)
  return (db.query(SELECT_VERSION).get() as { version: number }).version
}

/**
 * Applies every pending migration, each in its own transaction, and returns the versions
 * applied. Refuses a database newer than the migrations this binary carries.
 */
export function migrate(db: Database, nowMs: number, migrations: readonly Migration[] = MIGRATIONS): number[] {
  const current = schemaVersion(db)
  const latest = migrations.at(-1)?.version ?? 0
  if (current > latest) throw new SchemaTooNewError(current, latest)
  const applied: number[] = []
  for (const m of migrations) {
    if (m.version <= current) continue
    db.transaction(() => {
      m.up(db)
      db.run(INSERT_MIGRATION, [m.version, m.name, nowMs])
    })()
    applied.push(m.version)
  }
  return applied
}

/** The newest schema version this binary knows. */
export function latestSchemaVersion(): number {
  return MIGRATIONS.at(-1)?.version ?? 0
}

/** Named parameters of a statement. */
export type SqlParams = Record<string, string | number | bigint | boolean | null>

/**
 * Writes a consistent, compacted copy of the database to `path` (SQLite `VACUUM INTO`), safe
 * while a server writes: it reads one snapshot. The copy is written beside the target and
 * renamed into place, so `path` is either absent or complete. It is created 0600.
 */
export function backupDatabase(db: Database, path: string): void {
  const partial = `${path}.partial`
  rmSync(partial, { force: true })
  // VACUUM INTO fills an existing empty file and keeps its mode: a backup is as secret as the database.
  closeSync(openSync(partial, "wx", DATA_FILE_MODE))
  db.query("VACUUM INTO ?").run(partial)
  renameSync(partial, path)
}
