import { SQL } from "bun"
import { afterEach, describe } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createChangeTracker } from "../../../src/store/sqlite/change-tracker"
import { migrate, openDatabase } from "../../../src/store/sqlite/db"
import { migratePostgres } from "../../../src/store/postgres/migrations"
import { openPostgresStore, type PostgresStore } from "../../../src/store/postgres/store"
import { createSqliteStore } from "../../../src/store/sqlite/store"
import { createWriter } from "../../../src/store/sqlite/writer"
import { freshDatabase, testPostgres } from "../../helpers/postgres"
import { TEST_EPOCH_MS } from "../../helpers/test-clock"
import { SLOW_HOOK_TIMEOUT_MS } from "../../helpers/timeouts"

/*
 * The store contract harness: the same test body runs against a fresh SQLite store and a fresh
 * PostgreSQL store, each with its real migrations, so the two implementations of the seam
 * (src/store/store.ts) cannot drift apart. Files that use it start PostgreSQL, so they call
 * setDefaultTimeout(SLOW_TEST_TIMEOUT_MS).
 *
 *   describeStores("settings", (open) => {
 *     test("a setting reads back as written", async () => {
 *       const store = await open()
 *       …
 *     })
 *   })
 */

export type StoreKind = "sqlite" | "postgres"

/**
 * What the contract tests may use: the PostgreSQL store's type, which has the query groups that
 * PostgreSQL implements so far (the SQLite store has them all, so it fits too).
 */
export type ContractStore = PostgresStore

export interface OpenOptions {
  /** Receives errors of after-commit callbacks and before-commit hooks (default: the test fails with them). */
  onCallbackError?: (err: unknown) => void
}

export type OpenStore = (options?: OpenOptions) => Promise<ContractStore>

/** A row to put straight into a table, column name → value (booleans become 0/1 on SQLite). */
export type SeedRow = Record<string, string | number | boolean | null>

interface Opened {
  store: ContractStore
  cleanup(): Promise<void>
}

const seeders = new WeakMap<ContractStore, (table: string, rows: readonly SeedRow[]) => Promise<void>>()

/**
 * Inserts rows with plain SQL, bypassing the store: for the rows a test needs from a query group
 * that is not under test (a message for a send job, a delivery for a statistic).
 */
export async function seed(store: ContractStore, table: string, rows: readonly SeedRow[]): Promise<void> {
  const seeder = seeders.get(store)
  if (!seeder) throw new Error("seed() needs a store opened by the contract harness")
  await seeder(table, rows)
}

const insertText = (table: string, columns: string[], placeholder: (i: number) => string) =>
  `INSERT INTO ${table} (${columns.join(", ")}) VALUES (${columns.map((_, i) => placeholder(i + 1)).join(", ")})`

/** A fresh SQLite store on a temporary file, wired as src/deps.ts wires it. */
export async function openSqliteContractStore(options: OpenOptions = {}): Promise<Opened> {
  const dir = mkdtempSync(join(tmpdir(), "wagate-contract-"))
  const db = openDatabase(join(dir, "wagate.db"))
  migrate(db, TEST_EPOCH_MS)
  const changes = createChangeTracker(db)
  const writer = createWriter(db, { onCallbackError: options.onCallbackError, onCachedTablesChanged: () => changes.bump() })
  const store = createSqliteStore({ db, writer, changes })
  seeders.set(store, async (table, rows) => {
    for (const row of rows) {
      const columns = Object.keys(row)
      db.query(insertText(table, columns, (i) => `?${i}`)).run(...columns.map((c) => (typeof row[c] === "boolean" ? (row[c] ? 1 : 0) : row[c]!)))
    }
  })
  return {
    store,
    async cleanup() {
      await store.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

let template: Promise<string> | null = null

/**
 * A migrated database to copy: CREATE DATABASE … TEMPLATE copies it in a few milliseconds,
 * where migrating every test's database would cost a transaction per migration each time.
 */
function migratedTemplate(): Promise<string> {
  template ??= (async () => {
    const url = await freshDatabase()
    const sql = new SQL(url, { max: 1 })
    try {
      await migratePostgres(sql, TEST_EPOCH_MS)
    } finally {
      await sql.close()
    }
    return new URL(url).pathname.slice(1)
  })()
  return template
}

/** A new database with the real PostgreSQL migrations applied; returns its URL. */
export async function freshMigratedDatabase(): Promise<string> {
  const [templateName, server] = await Promise.all([migratedTemplate(), testPostgres()])
  const name = `c_${crypto.randomUUID().replaceAll("-", "")}`
  const admin = new SQL(server.adminUrl, { max: 1 })
  try {
    await admin.unsafe(`CREATE DATABASE ${name} TEMPLATE ${templateName} STRATEGY FILE_COPY`)
  } finally {
    await admin.close()
  }
  return `postgres://wagate@127.0.0.1:${server.port}/${name}`
}

/** Drops a test database (each is a few megabytes on a disk the machine shares). */
async function dropDatabase(url: string): Promise<void> {
  const server = await testPostgres()
  const admin = new SQL(server.adminUrl, { max: 1 })
  try {
    await admin.unsafe(`DROP DATABASE IF EXISTS ${new URL(url).pathname.slice(1)} WITH (FORCE)`)
  } finally {
    await admin.close()
  }
}

/**
 * A fresh PostgreSQL store on a database of its own, dropped at cleanup; or, given `url`, a
 * second node of that database (which its first node's cleanup drops).
 */
export async function openPostgresContractStore(options: OpenOptions & { url?: string } = {}): Promise<Opened & { url: string }> {
  const ownsDatabase = options.url === undefined
  const url = options.url ?? (await freshMigratedDatabase())
  const store = await openPostgresStore(url, { maxConnections: 4, onCallbackError: options.onCallbackError })
  const sql = new SQL(url, { max: 1 })
  seeders.set(store, async (table, rows) => {
    for (const row of rows) {
      const columns = Object.keys(row)
      await sql.unsafe(insertText(table, columns, (i) => `$${i}`), columns.map((c) => row[c]))
    }
  })
  return {
    store,
    url,
    async cleanup() {
      await sql.close()
      await store.close()
      if (ownsDatabase) await dropDatabase(url)
    },
  }
}

const OPENERS: Record<StoreKind, (options?: OpenOptions) => Promise<Opened>> = {
  sqlite: openSqliteContractStore,
  postgres: openPostgresContractStore,
}

/**
 * Registers `body`'s tests once per store, in a describe block named after the store. `open`
 * gives a fresh, migrated, empty store; each is closed (and its files removed) after its test.
 */
export function describeStores(name: string, body: (open: OpenStore, kind: StoreKind) => void): void {
  for (const kind of ["sqlite", "postgres"] as const) {
    describe(`${name} (${kind})`, () => {
      const opened: Opened[] = []
      afterEach(async () => {
        for (const o of opened.splice(0)) await o.cleanup()
      }, SLOW_HOOK_TIMEOUT_MS)
      body(async (options) => {
        const o = await OPENERS[kind](options)
        opened.push(o)
        return o.store
      }, kind)
    })
  }
}
