import { SQL } from "bun"
import type { Database } from "bun:sqlite"
import { afterEach, describe } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createChangeTracker } from "../../../src/store/sqlite/change-tracker"
import { migrate, openDatabase } from "../../../src/store/sqlite/db"
import type { LeaseQueries } from "../../../src/store/leases"
import { openPostgresStore } from "../../../src/store/postgres/store"
import { createSqliteStore } from "../../../src/store/sqlite/store"
import { createWriter } from "../../../src/store/sqlite/writer"
import { TEST_EPOCH_MS } from "../../helpers/test-clock"
import { SLOW_HOOK_TIMEOUT_MS } from "../../helpers/timeouts"
import { freshMigratedDatabase, type StoreKind } from "./stores"

/*
 * The lease contract tests need what the shared harness (stores.ts) does not give: phones seeded
 * without the phones query group, and, on PostgreSQL, several nodes, each with a pool of its own
 * on the same database. A world is one fresh database; `node()` opens a store on it as another
 * node would (on SQLite, where one process owns the file, every node shares the one store).
 */

export interface LeaseStore extends LeaseQueries {
  close(): Promise<void>
}

export interface LeaseWorld {
  kind: StoreKind
  /** A store on the world's database, with a connection pool of its own on PostgreSQL. */
  node(): Promise<LeaseStore>
  /**
   * Inserts `count` phones (ids phone_0000, phone_0001, …) with their account; returns their ids.
   * They are paired (`disconnected`), so they need a connection and are leased, unless `status` says otherwise.
   */
  seedPhones(count: number, status?: SeededStatus): Promise<string[]>
  /** Sets a phone's connection status and stays-offline mark, as a status write would. */
  setPhoneStatus(id: string, status: SeededStatus, staysOffline?: boolean): Promise<void>
  /** Deletes a phone. */
  deletePhone(id: string): Promise<void>
  /** The PostgreSQL URL (null on SQLite), for tests that watch the server's locks. */
  url: string | null
}

/** A connection status as the phones table stores it. */
export type SeededStatus = "unpaired" | "pairing" | "connecting" | "connected" | "disconnected" | "logged_out"

const ACCOUNT = "INSERT INTO accounts (id, name, email, created_at_ms, updated_at_ms) VALUES ('acc_leases', 'Leases', 'l@example.com', 0, 0) ON CONFLICT DO NOTHING"
const phoneIds = (count: number) => Array.from({ length: count }, (_, i) => `phone_${String(i).padStart(4, "0")}`)

async function sqliteWorld(cleanups: (() => Promise<void>)[]): Promise<LeaseWorld> {
  const dir = mkdtempSync(join(tmpdir(), "wagate-leases-"))
  const db: Database = openDatabase(join(dir, "wagate.db"))
  migrate(db, TEST_EPOCH_MS)
  const changes = createChangeTracker(db)
  const writer = createWriter(db, { onCachedTablesChanged: () => changes.bump() })
  const store = createSqliteStore({ db, writer, changes })
  cleanups.push(async () => {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })
  return {
    kind: "sqlite",
    url: null,
    node: async () => ({ ...store, close: async () => {} }),
    async seedPhones(count, status = "disconnected") {
      const ids = phoneIds(count)
      db.run(ACCOUNT)
      const insert = db.query("INSERT INTO phones (id, account_id, phone_number, display_name, connection_status, created_at_ms, updated_at_ms) VALUES (?, 'acc_leases', ?, ?, ?, 0, 0)")
      db.transaction(() => ids.forEach((id, i) => insert.run(id, `+1555${String(i).padStart(7, "0")}`, id, status)))()
      return ids
    },
    setPhoneStatus: async (id, status, staysOffline = false) => void db.run("UPDATE phones SET connection_status = ?, stays_offline = ? WHERE id = ?", [status, staysOffline ? 1 : 0, id]),
    deletePhone: async (id) => void db.run("DELETE FROM phones WHERE id = ?", [id]),
  }
}

async function postgresWorld(cleanups: (() => Promise<void>)[]): Promise<LeaseWorld> {
  const url = await freshMigratedDatabase()
  const admin = new SQL(url, { max: 1 })
  cleanups.push(() => admin.close())
  return {
    kind: "postgres",
    url,
    async node() {
      const store = await openPostgresStore(url, { maxConnections: 2 })
      cleanups.push(() => store.close().catch(() => {}))
      return store
    },
    async seedPhones(count, status = "disconnected") {
      const ids = phoneIds(count)
      await admin.unsafe(ACCOUNT)
      await admin.unsafe(
        `INSERT INTO phones (id, account_id, phone_number, display_name, connection_status, created_at_ms, updated_at_ms)
         SELECT id, 'acc_leases', '+1555' || lpad(ord::text, 7, '0'), id, $2, 0, 0 FROM unnest($1::text[]) WITH ORDINALITY AS t(id, ord)`,
        [ids, status],
      )
      return ids
    },
    setPhoneStatus: async (id, status, staysOffline = false) =>
      void (await admin.unsafe("UPDATE phones SET connection_status = $2, stays_offline = $3 WHERE id = $1", [id, status, staysOffline])),
    deletePhone: async (id) => void (await admin.unsafe("DELETE FROM phones WHERE id = $1", [id])),
  }
}

/** A fresh world on one store; `cleanups` receives what closes it. */
export function openLeaseWorld(kind: StoreKind, cleanups: (() => Promise<void>)[]): Promise<LeaseWorld> {
  return kind === "sqlite" ? sqliteWorld(cleanups) : postgresWorld(cleanups)
}

/** Registers `body`'s tests once per store; `world()` gives a fresh database, cleaned up after the test. */
export function describeLeaseStores(name: string, body: (world: () => Promise<LeaseWorld>, kind: StoreKind) => void): void {
  for (const kind of ["sqlite", "postgres"] as const) {
    describe(`${name} (${kind})`, () => {
      const cleanups: (() => Promise<void>)[] = []
      afterEach(async () => {
        for (const fn of cleanups.splice(0).reverse()) await fn()
      }, SLOW_HOOK_TIMEOUT_MS)
      body(() => openLeaseWorld(kind, cleanups), kind)
    })
  }
}
