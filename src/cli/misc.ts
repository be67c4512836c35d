import { resetAdminToken } from "../domain/admin"
import { existsSync, statSync } from "node:fs"
import { dirname, join, resolve } from "node:path"
import { backupDatabase, DATABASE_FILE } from "../store/sqlite/db"
import { parseArgs, UsageError } from "./args"
import { withServices, type CliIo } from "./io"

/** `wagate admin-token reset`: replaces the stored admin token and prints the new one once. */
export async function adminTokenCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, new Set())
  if (args.positionals[0] !== "reset") throw new UsageError("usage: wagate admin-token reset")
  return withServices(io, args.flags, async (services, config) => {
    const token = await resetAdminToken(services.ctx)
    io.stdout(`New admin token (shown only now):\n\n  ${token}\n\n`)
    if (config.adminToken !== null) io.stdout("Note: WAGATE_ADMIN_TOKEN is set and takes precedence over the stored token.\n")
    return 0
  })
}

/** `wagate backup FILE`: a consistent copy of the database, safe beside a running server. */
export async function backupCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, new Set())
  const target = args.positionals[0]
  if (!target) throw new UsageError("usage: wagate backup FILE")
  const path = resolve(target)
  // A target that cannot be written is the operator's to fix, not wrong usage: one line, exit 1.
  const problem = backupTargetProblem(path)
  if (problem) return fail(io, problem)
  return withServices(io, args.flags, (services, config) => {
    // PostgreSQL is backed up with its own tools, which know its WAL and its replicas.
    if (services.sqlite === null) return fail(io, "this wagate uses PostgreSQL (WAGATE_DATABASE_URL): back it up with pg_dump or your PostgreSQL's own backups, see docs/operations.md")
    try {
      backupDatabase(services.sqlite, path)
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code
      if (typeof code !== "string") throw err
      return fail(io, `cannot write the backup to ${path} (${code})`)
    }
    io.stdout(`Backed up the database to ${path}.\n${restoreHint(path, join(config.dataDir, DATABASE_FILE))}`)
    return 0
  })
}

/** Why a backup cannot go to `path`, before the database is opened, or null. */
function backupTargetProblem(path: string): string | null {
  if (existsSync(path)) return `${path} already exists; choose a new file name`
  const folder = dirname(path)
  if (!existsSync(folder)) return `the folder ${folder} does not exist; create it first or choose another path`
  if (!statSync(folder).isDirectory()) return `${folder} is not a folder; choose another path`
  return null
}

function fail(io: CliIo, message: string): number {
  io.stderr(`error: ${message}\n`)
  return 1
}

/**
 * How to restore a backup. The -wal and -shm files beside the database belong to the database
 * being replaced: left in place, SQLite could replay that old write-ahead log onto the restored
 * copy at the next start.
 */
function restoreHint(backupPath: string, databasePath: string): string {
  return (
    `To restore it: stop wagate, delete ${databasePath}-wal and ${databasePath}-shm if they exist, ` +
    `then copy ${backupPath} to ${databasePath}.\n`
  )
}
