import { createChangeTracker } from "./sqlite/change-tracker"
import { migrate, openDatabase, type Database } from "./sqlite/db"
import type { SessionBounds } from "./session-bounds"
import { openPostgresStore } from "./postgres/store"
import { createSqliteStore } from "./sqlite/store"
import type { Store } from "./store"
import { createWriter } from "./sqlite/writer"

/** The configured store, and the SQLite connection behind it when it is the embedded one. */
export interface OpenedStore {
  store: Store
  /**
   * The SQLite connection of the embedded store (backups, a WAL checkpoint at stop, tests that
   * look at rows directly); null on PostgreSQL, whose backups are the operator's `pg_dump`.
   */
  sqlite: Database | null
  /** Commits what is pending and closes the database (and, on SQLite, checkpoints the WAL when asked). */
  close(options?: { checkpoint?: boolean }): Promise<void>
}

/**
 * Opens the database wagate is configured for: PostgreSQL when `databaseUrl` is set (its schema
 * is checked, never migrated here: `wagate migrate` does that, once for the cluster), else the
 * SQLite file at `sqlitePath`, migrated at open as it always was.
 */
export async function openStore(options: {
  databaseUrl: string | null
  sqlitePath: string
  nowMs: number
  onCallbackError: (err: unknown) => void
  /** PostgreSQL only: the bounds of the node's sessions (src/store/postgres/session-bounds.ts). */
  sessionBounds?: SessionBounds
}): Promise<OpenedStore> {
  if (options.databaseUrl !== null) {
    const store: Store = await openPostgresStore(options.databaseUrl, { onCallbackError: options.onCallbackError, sessionBounds: options.sessionBounds })
    return { store, sqlite: null, close: () => store.close() }
  }
  const db = openDatabase(options.sqlitePath)
  migrate(db, options.nowMs)
  const changes = createChangeTracker(db)
  const writer = createWriter(db, { onCallbackError: options.onCallbackError, onCachedTablesChanged: () => changes.bump() })
  const store = createSqliteStore({ db, writer, changes })
  return {
    store,
    sqlite: db,
    async close(closeOptions = {}) {
      await writer.flush()
      if (closeOptions.checkpoint) db.run("PRAGMA wal_checkpoint(TRUNCATE)")
      db.close()
    },
  }
}
