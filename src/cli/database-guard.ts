import { join } from "node:path"
import { ConfigError, type Config } from "../config"
import { heldLockOwner, LOCK_FILE } from "../lib/lockfile"
import { boundedOutsideText } from "../lib/outside-text"
import { DATABASE_FLAG } from "./suggest"

/**
 * Refuses to open SQLite in a data directory whose running server uses PostgreSQL. A command
 * run without the database URL (a new shell, a pasted hint) would otherwise create an empty
 * SQLite database beside that server and answer from it: no account, "run accounts create".
 * The lock file says which database its server runs on (LockOwner.database).
 */
export function refuseSqliteBesidePostgres(config: Config): void {
  if (config.databaseUrl !== null) return
  const owner = heldLockOwner(join(config.dataDir, LOCK_FILE))
  if (owner?.database === undefined || owner.database === "sqlite") return
  throw new ConfigError(
    `the wagate server running on ${config.dataDir} (pid ${owner.pid}) uses the PostgreSQL database ${boundedOutsideText(owner.database)}, ` +
      `and this command has no database URL, so it would create SQLite here: set WAGATE_DATABASE_URL or pass${DATABASE_FLAG}`,
  )
}
