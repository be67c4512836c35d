import type { Database } from "bun:sqlite"
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from "node:fs"
import { DATA_FILE_MODE } from "../../lib/data-dir"
import { latestSchemaVersion, schemaVersion } from "./db"
import { SchemaTooNewError } from "../schema-version"
import { EXPORT_FORMAT, EXPORT_FORMAT_VERSION, planOf, TRANSFER_PLAN, TransferError, type ExportColumn, type ExportEnd, type ExportHeader, type TableStart } from "../transfer"

/*
 * Writes the export file of src/store/transfer.ts from a SQLite database. Every table is read in
 * one read transaction, so the file is one consistent snapshot even while a server writes beside
 * it (WAL lets readers keep their snapshot). Rows are streamed from SQLite to the file through a
 * small buffer: a large install is never held in memory.
 */

/** How much text is gathered before it is written out. */
const FLUSH_BYTES = 1 << 20

export interface ExportSummary {
  sqliteSchemaVersion: number
  /** Rows written, by table, in the order written. */
  rows: Record<string, number>
}

const TABLES = "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name"

/** The buffered lines of one file descriptor. */
function lineWriter(fd: number) {
  let parts: string[] = []
  let size = 0
  const flush = () => {
    if (size === 0) return
    const bytes = Buffer.from(parts.join(""), "utf8")
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at)
    parts = []
    size = 0
  }
  return {
    line(value: unknown) {
      const text = JSON.stringify(value)
      parts.push(text, "\n")
      size += text.length + 1
      if (size >= FLUSH_BYTES) flush()
    },
    flush,
  }
}

/** A value as the file holds it: BLOBs become base64, everything else is JSON already. */
const encode = (value: unknown) => (value instanceof Uint8Array ? Buffer.from(value).toString("base64") : value)

/** Refuses a database this binary's plan does not describe: an older or newer schema, or an unknown table. */
function checkSchema(db: Database, databasePath: string): number {
  const version = schemaVersion(db)
  const latest = latestSchemaVersion()
  if (version > latest) throw new SchemaTooNewError(version, latest)
  if (version < latest) {
    throw new TransferError(
      `The SQLite database ${databasePath} has schema version ${version}, but this wagate exports version ${latest}: run \`wagate migrate\` with this wagate first (it upgrades the database in place), then export.`,
    )
  }
  const tables = (db.query(TABLES).all() as { name: string }[]).map((t) => t.name)
  const unknown = tables.filter((t) => !planOf(t))
  if (unknown.length > 0) throw new TransferError(`The SQLite database ${databasePath} has tables this wagate cannot export (${unknown.join(", ")}): it is not a database of this version.`)
  return version
}

/** The columns of a table, in their order, with their declared types. */
function columnsOf(db: Database, table: string): ExportColumn[] {
  return (db.query(`PRAGMA table_info("${table}")`).all() as { name: string; type: string }[]).map((c) => ({ name: c.name, type: c.type.toUpperCase() }))
}

/**
 * Writes the export of `db` to `path`, created with mode 0600 (the rows hold the phones'
 * WhatsApp credentials, API key hashes and webhook secrets). The file is written beside `path`
 * and renamed into place once complete, so `path` is either absent or whole.
 */
export function exportSqlite(db: Database, databasePath: string, path: string, meta: { wagateVersion: string; nowMs: number }): ExportSummary {
  const partial = `${path}.partial`
  rmSync(partial, { force: true })
  const fd = openSync(partial, "wx", DATA_FILE_MODE)
  let done = false
  try {
    const summary = writeSnapshot(db, databasePath, lineWriter(fd), meta)
    fsyncSync(fd)
    done = true
    return summary
  } finally {
    closeSync(fd)
    if (done) renameSync(partial, path)
    else rmSync(partial, { force: true })
  }
}

function writeSnapshot(db: Database, databasePath: string, out: ReturnType<typeof lineWriter>, meta: { wagateVersion: string; nowMs: number }): ExportSummary {
  const rows: Record<string, number> = {}
  db.run("BEGIN")
  try {
    const version = checkSchema(db, databasePath)
    const header: ExportHeader = { format: EXPORT_FORMAT, formatVersion: EXPORT_FORMAT_VERSION, sqliteSchemaVersion: version, wagateVersion: meta.wagateVersion, exportedAtMs: meta.nowMs }
    out.line(header)
    for (const plan of TRANSFER_PLAN) {
      const table = plan.table
      const columns = columnsOf(db, table)
      const start: TableStart = { table, columns }
      out.line(start)
      let n = 0
      const only = "only" in plan && plan.only !== undefined ? ` WHERE ${plan.only}` : ""
      const select = db.query(`SELECT ${columns.map((c) => `"${c.name}"`).join(", ")} FROM "${table}"${only}`)
      for (const row of select.iterate() as IterableIterator<Record<string, unknown>>) {
        out.line(columns.map((c) => encode(row[c.name])))
        n++
      }
      rows[table] = n
    }
    const end: ExportEnd = { end: true, rows }
    out.line(end)
    out.flush()
    return { sqliteSchemaVersion: version, rows }
  } finally {
    db.run("COMMIT")
  }
}
