import type { Database } from "bun:sqlite"

/**
 * Tells whether anything cached from the database may be stale: SQLite's `data_version` moves
 * when another connection (a CLI command beside the server) commits, and `bump()` records a
 * change made through this process's own connection, which `data_version` does not see.
 */
export interface ChangeTracker {
  /** A token that differs whenever cached rows may have changed. */
  version(): string
  /** Marks a change written by this process (a key revoked, an endpoint edited…). */
  bump(): void
}

export function createChangeTracker(db: Database): ChangeTracker {
  const dataVersion = db.query<{ data_version: number }, []>("PRAGMA data_version")
  let local = 0
  return {
    version: () => `${dataVersion.get()!.data_version}:${local}`,
    bump: () => void local++,
  }
}
