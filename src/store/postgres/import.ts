import type { SQL } from "bun"
import { createReadStream } from "node:fs"
import { createInterface } from "node:readline"
import { boundedOutsideText } from "../../lib/outside-text"
import {
  EXPORT_FORMAT,
  EXPORT_FORMAT_VERSION,
  importedTables,
  planOf,
  TRANSFER_PLAN,
  TransferError,
  type ExportColumn,
  type ExportHeader,
  type FixedValues,
} from "../transfer"
import { latestPostgresSchemaVersion, postgresSchemaVersion } from "./migrations"

/*
 * Loads an export file (src/store/transfer.ts) into an empty, migrated PostgreSQL database in
 * one transaction: either every row is in, or none is and the database is as it was. The file
 * is read a line at a time and its rows inserted in batches, so memory stays small whatever the
 * install's size. PostgreSQL converts each value to its column's type (json_populate_recordset);
 * the two conversions it cannot guess are made here: SQLite's 0/1 flags become booleans and
 * base64 BLOBs become bytea.
 */

/** Rows per INSERT, and the most text one INSERT carries. */
const BATCH_ROWS = 500
const BATCH_BYTES = 4 << 20

/*
 * Two imports started at once into the same database would both find it empty: the second
 * waits on this transaction-scoped lock and then finds the first one's rows. The key is an
 * arbitrary constant that no other part of wagate uses.
 */
const IMPORT_LOCK_KEY = 0x77696d70 // "wimp"

export interface ImportSummary {
  /** Rows read from the file, by SQLite table. */
  rows: Record<string, number>
  /** Rows inserted into PostgreSQL. */
  imported: number
}

type Line = { number: number; text: string }

/** The lines of a file, read as a stream. */
function readLines(path: string) {
  const stream = createReadStream(path, { encoding: "utf8" })
  const reader = createInterface({ input: stream, crlfDelay: Infinity })
  const lines = reader[Symbol.asyncIterator]()
  let number = 0
  return {
    async next(): Promise<Line | null> {
      const r = await lines.next()
      if (r.done) return null
      number++
      return { number, text: r.value }
    },
    close() {
      reader.close()
      stream.destroy()
    },
  }
}

function parseLine(file: string, line: Line): unknown {
  try {
    return JSON.parse(line.text)
  } catch {
    throw new TransferError(`${file} is damaged: line ${line.number} is not JSON; copy or export it again.`)
  }
}

/** Refuses a file that is not an export this wagate can load. */
function checkHeader(file: string, first: Line | null, latest: number): void {
  const header = (first ? parseLineOrNull(first.text) : null) as Partial<ExportHeader> | null
  // The file comes from outside: what it says is bounded and escaped before a message quotes it.
  const said = (value: unknown) => boundedOutsideText(String(value))
  if (header?.format !== EXPORT_FORMAT || typeof header.sqliteSchemaVersion !== "number") throw new TransferError(`${file} is not a wagate export: its first line is not the header \`wagate export\` writes.`)
  if (header.formatVersion !== EXPORT_FORMAT_VERSION) {
    throw new TransferError(`${file} is written in export format ${said(header.formatVersion)}, but this wagate reads format ${EXPORT_FORMAT_VERSION}: import it with the wagate version that exported it.`)
  }
  if (header.sqliteSchemaVersion !== latest) {
    throw new TransferError(
      header.sqliteSchemaVersion < latest
        ? `${file} holds SQLite schema version ${said(header.sqliteSchemaVersion)}, but this wagate imports version ${latest}: run \`wagate migrate\` on the SQLite install with this wagate, then export it again.`
        : `${file} holds SQLite schema version ${said(header.sqliteSchemaVersion)}, newer than this wagate knows (${latest}): import it with the wagate version that exported it.`,
    )
  }
}

function parseLineOrNull(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return null
  }
}

/** Refuses a database at another schema version, or one that holds any row already. */
async function checkTarget(tx: SQL, where: string): Promise<void> {
  const version = await postgresSchemaVersion(tx)
  const latest = latestPostgresSchemaVersion()
  if (version !== latest) {
    throw new TransferError(
      version < latest
        ? `The PostgreSQL database at ${where} has schema version ${version}, but this wagate imports into version ${latest}: run \`wagate migrate\` with the same URL first.`
        : `The PostgreSQL database at ${where} has schema version ${version}, newer than this wagate knows (${latest}): import with the wagate version the nodes run.`,
    )
  }
  const tables = [...importedTables(), "nodes"]
  const probe = tables.map((t) => `SELECT '${t}' AS t WHERE EXISTS (SELECT 1 FROM "${t}")`).join(" UNION ALL ")
  const full = (await tx.unsafe<{ t: string }[]>(probe)).map((r) => r.t)
  if (full.length > 0) {
    throw new TransferError(
      `The PostgreSQL database at ${where} is not empty (${full.join(", ")} already hold rows): import only into a freshly migrated database, before any node has started on it.`,
    )
  }
}

/** The data types of a PostgreSQL table's columns. */
async function columnTypes(tx: SQL, table: string): Promise<Map<string, string>> {
  const rows = await tx.unsafe<{ name: string; type: string }[]>(
    "SELECT column_name AS name, data_type AS type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1",
    [table],
  )
  return new Map(rows.map((r) => [r.name, r.type]))
}

type Convert = (value: unknown, row: number) => unknown

/** How each file column's value becomes its PostgreSQL column's. */
function converters(file: string, table: string, columns: ExportColumn[], types: Map<string, string>, into: string): Convert[] {
  return columns.map((c) => {
    const type = types.get(c.name)
    if (type === undefined) throw new TransferError(`${file} has a column ${table}.${boundedOutsideText(c.name)} that the PostgreSQL table ${into} lacks: this wagate cannot import it.`)
    if (type === "boolean") {
      return (v, row) => {
        if (v === null || v === 0 || v === 1) return v === null ? null : v === 1
        throw new TransferError(`${file} is damaged: row ${row} of ${table} has ${JSON.stringify(v)} in ${c.name}, which is neither 0 nor 1.`)
      }
    }
    // The export writes every BLOB as base64; bytea's text input takes hex.
    if (type === "bytea") return (v) => (typeof v === "string" ? `\\x${Buffer.from(v, "base64").toString("hex")}` : v)
    return (v) => v
  })
}

/** One table being loaded: its rows are gathered and inserted a batch at a time. */
interface TableLoad {
  table: string
  into: string | null
  /** How many values each row of the file has. */
  width: number
  /** The file's columns that are loaded (those the plan does not fix), and where each stands in a row. */
  columns: ExportColumn[]
  positions: number[]
  convert: Convert[]
  fixed: FixedValues
  rows: number
  batch: Record<string, unknown>[]
  batchBytes: number
}

async function flush(tx: SQL, load: TableLoad): Promise<number> {
  if (load.into === null || load.batch.length === 0) return 0
  const names = [...load.columns.map((c) => c.name), ...Object.keys(load.fixed)]
  const list = names.map((n) => `"${n}"`).join(", ")
  const inserted = load.batch.length
  try {
    await tx.unsafe(`INSERT INTO "${load.into}" (${list}) SELECT ${list} FROM json_populate_recordset(NULL::"${load.into}", $1::text::json)`, [JSON.stringify(load.batch)])
  } catch (err) {
    // A row PostgreSQL cannot hold (a NUL character in a text, a row whose foreign key points
    // nowhere) ends the whole import; the server's words come from outside, so they are bounded.
    const reason = boundedOutsideText((err as { message?: string }).message ?? String(err))
    throw new TransferError(`PostgreSQL refused rows of ${load.table} (${reason}): nothing was imported.`)
  }
  load.batch = []
  load.batchBytes = 0
  return inserted
}

async function startTable(tx: SQL, file: string, value: { table?: unknown; columns?: unknown }, seen: Set<string>): Promise<TableLoad> {
  const table = String(value.table)
  const plan = planOf(table)
  const wellFormed = Array.isArray(value.columns) && value.columns.every((c) => typeof (c as ExportColumn | null)?.name === "string")
  if (!plan || seen.has(table) || !wellFormed) throw new TransferError(`${file} is damaged: the table ${boundedOutsideText(table)} is unknown, appears twice or lists its columns wrongly; export it again.`)
  seen.add(table)
  const all = value.columns as ExportColumn[]
  const base = { table, width: all.length, rows: 0, batch: [] as Record<string, unknown>[], batchBytes: 0 }
  if (!("into" in plan)) return { ...base, into: null, columns: [], positions: [], convert: [], fixed: {} }
  const fixed = plan.set ?? {}
  const positions = all.flatMap((c, i) => (c.name in fixed ? [] : [i]))
  const columns = positions.map((i) => all[i]!)
  const convert = converters(file, table, columns, await columnTypes(tx, plan.into), plan.into)
  return { ...base, into: plan.into, columns, positions, convert, fixed }
}

/** Adds one row of the file to its table's batch. */
function addRow(file: string, load: TableLoad, value: unknown[], line: Line): void {
  load.rows++
  if (value.length !== load.width) throw new TransferError(`${file} is damaged: line ${line.number} has ${value.length} values where ${load.table} has ${load.width} columns.`)
  if (load.into === null) return
  const row: Record<string, unknown> = { ...load.fixed }
  for (let k = 0; k < load.columns.length; k++) row[load.columns[k]!.name] = load.convert[k]!(value[load.positions[k]!], load.rows)
  load.batch.push(row)
  load.batchBytes += line.text.length
}

/** Moves every identity sequence of the imported tables past the largest imported value, so new rows continue after them. */
async function advanceSequences(tx: SQL): Promise<void> {
  const identities = await tx.unsafe<{ t: string; c: string }[]>(
    "SELECT table_name AS t, column_name AS c FROM information_schema.columns WHERE table_schema = current_schema() AND is_identity = 'YES' ORDER BY table_name",
  )
  for (const { t, c } of identities) {
    await tx.unsafe(`SELECT setval(pg_get_serial_sequence('"${t}"', '${c}'), COALESCE(MAX("${c}"), 0) + 1, false) FROM "${t}"`)
  }
}

/** Checks the last line against what was read: a file cut short or altered is refused. */
function checkEnd(file: string, end: { rows?: Record<string, number> } | null, counted: Record<string, number>): void {
  if (end === null) throw new TransferError(`${file} ends before its last line: it was cut short; copy or export it again.`)
  for (const { table } of TRANSFER_PLAN) {
    if (end.rows?.[table] !== counted[table]) {
      throw new TransferError(`${file} is damaged: it holds ${counted[table] ?? "no"} rows of ${table} where its last line says ${end.rows?.[table] ?? "none"}; copy or export it again.`)
    }
  }
}

/**
 * Imports the export at `path` into the database `sql` reaches (`where` names it, password
 * hidden, for messages). Refuses, changing nothing, a file that is not a complete export of this
 * version and a database that is not empty or not at this version's schema. `sqliteSchemaVersion`
 * is the SQLite schema this wagate exports: the caller reads it from src/store/sqlite/db.ts, so
 * that the PostgreSQL store needs nothing of the SQLite one.
 */
export async function importIntoPostgres(sql: SQL, path: string, where: string, sqliteSchemaVersion: number): Promise<ImportSummary> {
  const lines = readLines(path)
  try {
    checkHeader(path, await lines.next(), sqliteSchemaVersion)
    return await sql.begin(async (tx) => {
      await tx`SELECT pg_advisory_xact_lock(${IMPORT_LOCK_KEY}::int8)`
      await checkTarget(tx, where)
      // The file carries chats and contacts as the SQLite install kept them: the triggers of migration 15 stand aside.
      await tx.unsafe("SET LOCAL wagate.importing = 'on'")
      const summary = await loadRows(tx, path, lines)
      await advanceSequences(tx)
      return summary
    })
  } finally {
    lines.close()
  }
}

async function loadRows(tx: SQL, file: string, lines: ReturnType<typeof readLines>): Promise<ImportSummary> {
  const counted: Record<string, number> = {}
  const seen = new Set<string>()
  let imported = 0
  let load: TableLoad | null = null
  let end: { rows?: Record<string, number> } | null = null
  for (let line = await lines.next(); line !== null; line = await lines.next()) {
    if (end !== null) throw new TransferError(`${file} is damaged: line ${line.number} follows its last line; copy or export it again.`)
    const value = parseLine(file, line)
    if (Array.isArray(value)) {
      if (load === null) throw new TransferError(`${file} is damaged: line ${line.number} is a row outside any table.`)
      addRow(file, load, value, line)
      if (load.batch.length >= BATCH_ROWS || load.batchBytes >= BATCH_BYTES) imported += await flush(tx, load)
      continue
    }
    const object = (value ?? {}) as { table?: unknown; columns?: unknown; end?: unknown; rows?: Record<string, number> }
    if (load !== null) {
      imported += await flush(tx, load)
      counted[load.table] = load.rows
    }
    load = null
    if (object.end === true) {
      end = object
      continue
    }
    load = await startTable(tx, file, object, seen)
  }
  checkEnd(file, end, counted)
  return { rows: counted, imported }
}
