import { existsSync, statSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { loadConfig } from "../config"
import { systemClock } from "../lib/clock"
import { LOCK_FILE, liveLockOwner } from "../lib/lockfile"
import { DATABASE_FILE, openDatabase } from "../store/sqlite/db"
import { exportSqlite } from "../store/sqlite/export"
import { TransferError } from "../store/transfer"
import { VERSION } from "../version"
import { parseArgs, UsageError } from "./args"
import { commandUsage } from "./commands"
import type { CliIo } from "./io"
import { leftOutText } from "./transfer-text"

/**
 * `wagate export --out FILE`: writes every row of a single node's SQLite database to FILE, a
 * portable snapshot that `wagate import` loads into PostgreSQL (docs/operations.md § "Moving from
 * one node (SQLite)"). It reads one consistent snapshot, so it is safe beside a running server,
 * but what that server accepts afterwards is not in the file: stop it first for a move.
 */
export async function exportCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, new Set())
  const { out, ...flags } = args.flags
  if (args.positionals.length > 0) throw new UsageError(`export takes no argument, got "${args.positionals[0]}"\n${commandUsage("export")}`)
  if (!out) throw new UsageError(`export needs --out FILE\n${commandUsage("export")}`)
  const config = loadConfig(io.env, flags)
  if (config.databaseUrl !== null) {
    throw new TransferError("wagate export reads the SQLite database of a single node, but WAGATE_DATABASE_URL (or --database-url) is set: unset it to export, or copy a PostgreSQL database with pg_dump.")
  }
  const path = resolve(out)
  checkTarget(path)
  const databasePath = join(config.dataDir, DATABASE_FILE)
  if (!existsSync(databasePath)) throw new TransferError(`There is no wagate database at ${databasePath}: point --data (WAGATE_DATA_DIR) at the data directory of the install to export.`)
  if (liveLockOwner(join(config.dataDir, LOCK_FILE))) {
    io.stderr("note: a server is running on this data directory; what it accepts after this snapshot is not in the file. For a move, stop it first and export again.\n")
  }
  const db = openDatabase(databasePath)
  try {
    const summary = exportSqlite(db, databasePath, path, { wagateVersion: VERSION, nowMs: (io.clock ?? systemClock()).nowMs() })
    const total = Object.values(summary.rows).reduce((a, b) => a + b, 0)
    io.stdout(
      `Exported ${total} rows of ${Object.keys(summary.rows).length} tables (SQLite schema version ${summary.sqliteSchemaVersion}) from ${databasePath} to ${path}.\n` +
        leftOutText(summary.rows, "`wagate import` will leave out") +
        "The file has mode 0600: it holds the phones' WhatsApp credentials, the API key hashes and the webhook secrets. Keep it private and delete it once imported.\n",
    )
    return 0
  } finally {
    db.close()
  }
}

/** Refuses a target that exists (the file holds secrets: never overwrite one by mistake) or whose folder is missing. */
function checkTarget(path: string): void {
  if (existsSync(path)) throw new TransferError(`${path} already exists; choose a new file name.`)
  const folder = dirname(path)
  if (!existsSync(folder) || !statSync(folder).isDirectory()) throw new TransferError(`The folder ${folder} does not exist; create it first or choose another path.`)
}
