import { existsSync, statSync } from "node:fs"
import { resolve } from "node:path"
import { loadConfig } from "../config"
import { redactDatabaseUrl } from "../lib/database-url"
import { importIntoPostgres } from "../store/postgres/import"
import { latestPostgresSchemaVersion } from "../store/postgres/migrations"
import { UNBOUNDED_SESSION } from "../store/session-bounds"
import { connectPostgres } from "../store/postgres/start-checks"
import { latestSchemaVersion } from "../store/sqlite/db"
import { TransferError } from "../store/transfer"
import { parseArgs, UsageError } from "./args"
import { commandUsage } from "./commands"
import type { CliIo } from "./io"
import { leftOutText } from "./transfer-text"

/**
 * `wagate import --in FILE`: loads a file `wagate export` wrote into the PostgreSQL database of
 * WAGATE_DATABASE_URL, which must be migrated (`wagate migrate`) and empty. One transaction: an
 * import that fails leaves the database as it was, so it can simply be run again.
 */
export async function importCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, new Set())
  const { in: input, ...flags } = args.flags
  if (args.positionals.length > 0) throw new UsageError(`import takes no argument, got "${args.positionals[0]}"\n${commandUsage("import")}`)
  if (!input) throw new UsageError(`import needs --in FILE\n${commandUsage("import")}`)
  const config = loadConfig(io.env, flags)
  if (config.databaseUrl === null) throw new UsageError(`import loads into PostgreSQL: set WAGATE_DATABASE_URL or pass --database-url\n${commandUsage("import")}`)
  const path = resolve(input)
  if (!existsSync(path) || !statSync(path).isFile()) throw new TransferError(`There is no file ${path} to import.`)
  const where = redactDatabaseUrl(config.databaseUrl)
  const sql = await connectPostgres(config.databaseUrl, { maxConnections: 1, session: UNBOUNDED_SESSION })
  try {
    const summary = await importIntoPostgres(sql, path, where, latestSchemaVersion())
    io.stdout(
      `Imported ${summary.imported} rows from ${path} into the PostgreSQL database at ${where} (schema version ${latestPostgresSchemaVersion()}).\n` +
        leftOutText(summary.rows, "Left out") +
        "New messages are numbered after the imported ones. Start the nodes now; delete the export file once they serve the data.\n",
    )
    return 0
  } finally {
    await sql.close()
  }
}
