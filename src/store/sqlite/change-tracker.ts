import type { Database } from "bun:sqlite"

/**
 * Tells whether anything cached from the database may be stale: SQLite's `data_version` moves
 * when another connection (a CLI command beside the server) commits, and `bump()` records a
 * change made through this process's own connection, which `data_version` does not see.
 */
export interface ChangeTracker {
  /** A token that differs whenever cached rows may have changed. */
  version(): string
  /**
   * Marks a change written by this process (a key revoked, an endpoint edited…). Only the writer
   * calls it, for a write that says it changed a cached table (Writer.write's `changed`).
   */
  bump(): void
}

/**
 * `data_version` is read once per event-loop turn: every request handled in one turn shares the
 * answer (reading it is a statement of its own, with SQLite's locks, on every authenticated
 * request), and a commit by another process is seen from the next turn on. `nextTurn` runs a
 * callback after the current turn; tests may pass their own.
 */
export function createChangeTracker(db: Database, nextTurn: (fn: () => void) => void = setImmediate): ChangeTracker {
  const dataVersion = db.query<{ data_version: number }, []>("PRAGMA data_version")
  let local = 0
  let cached: string | null = null
  return {
    version() {
      if (cached === null) {
        cached = `${dataVersion.get()!.data_version}:${local}`
        nextTurn(() => (cached = null))
      }
      return cached
    },
    bump() {
      local++
      cached = null
    },
  }
}
