import type { Database } from "bun:sqlite"
import { createChangeTracker } from "../../src/store/sqlite/change-tracker"
import { createSqliteStore } from "../../src/store/sqlite/store"
import type { Store } from "../../src/store/store"
import { createWriter, type Writer } from "../../src/store/sqlite/writer"

/** The store seam over a test's own SQLite connection (and its writer, when the test drives commits). */
export function storeOver(db: Database, writer: Writer = createWriter(db)): Store {
  return createSqliteStore({ db, writer, changes: createChangeTracker(db) })
}
