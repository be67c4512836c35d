import { afterEach, describe, expect, test } from "bun:test"
import { existsSync, mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { latestSchemaVersion, migrate, openDatabase, schemaVersion, type Database } from "../../src/store/sqlite/db"
import { SchemaTooNewError } from "../../src/store/schema-version"
import { MIGRATIONS, type Migration } from "../../src/store/sqlite/migrations"
import { TEST_EPOCH_MS } from "../helpers/test-clock"

const dirs: string[] = []
const open: Database[] = []
afterEach(() => {
  for (const d of open.splice(0)) d.close()
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "wagate-db-"))
  dirs.push(dir)
  return dir
}

function openDb(path = ":memory:"): Database {
  const db = openDatabase(path)
  open.push(db)
  return db
}

/** Names and SQL of every schema object, to compare schemas. */
const schemaOf = (db: Database) =>
  db.query<{ type: string; name: string; sql: string | null }, []>("SELECT type, name, sql FROM sqlite_master ORDER BY type, name").all()

const pragma = (db: Database, name: string) => Object.values(db.query(`PRAGMA ${name}`).get() as Record<string, unknown>)[0]

describe("migrate", () => {
  test("a fresh database gets every migration, ending at latestSchemaVersion()", () => {
    const db = openDb()
    expect(schemaVersion(db)).toBe(0)
    const applied = migrate(db, TEST_EPOCH_MS)
    expect(applied).toEqual(MIGRATIONS.map((m) => m.version))
    expect(schemaVersion(db)).toBe(latestSchemaVersion())
    expect(latestSchemaVersion()).toBe(MIGRATIONS.at(-1)!.version)
  })

  test("each applied migration is recorded with its name and the given time", () => {
    const db = openDb()
    migrate(db, TEST_EPOCH_MS)
    const rows = db.query("SELECT version, name, applied_at_ms AS appliedAtMs FROM schema_migrations ORDER BY version").all()
    expect(rows).toEqual(MIGRATIONS.map((m) => ({ version: m.version, name: m.name, appliedAtMs: TEST_EPOCH_MS })))
  })

  test("the tables the store relies on exist", () => {
    const db = openDb()
    migrate(db, TEST_EPOCH_MS)
    const tables = schemaOf(db).filter((o) => o.type === "table").map((o) => o.name)
    for (const t of ["accounts", "api_keys", "phones", "messages", "message_counts", "message_daily_counts", "message_sequences"]) {
      expect(tables).toContain(t)
    }
  })

  test("migrating again applies nothing and changes nothing", () => {
    const db = openDb()
    migrate(db, TEST_EPOCH_MS)
    const before = schemaOf(db)
    expect(migrate(db, TEST_EPOCH_MS + 1_000)).toEqual([])
    expect(schemaOf(db)).toEqual(before)
    expect(db.query("SELECT COUNT(*) AS n FROM schema_migrations").get()).toEqual({ n: MIGRATIONS.length })
  })

  test("only migrations newer than the database are applied", () => {
    const db = openDb()
    const ran: number[] = []
    const m = (version: number): Migration => ({
      version,
      name: `m${version}`,
      up: (d) => {
        ran.push(version)
        d.run(`CREATE TABLE m${version} (x INTEGER) STRICT`)
      },
    })
    expect(migrate(db, TEST_EPOCH_MS, [m(1), m(2)])).toEqual([1, 2])
    expect(migrate(db, TEST_EPOCH_MS, [m(1), m(2), m(3)])).toEqual([3])
    expect(ran).toEqual([1, 2, 3])
    expect(schemaVersion(db)).toBe(3)
  })

  test("a failing migration leaves no trace and the earlier ones stay applied", () => {
    const db = openDb()
    const good: Migration = { version: 1, name: "good", up: (d) => d.run("CREATE TABLE good (x INTEGER) STRICT") }
    const bad: Migration = {
      version: 2,
      name: "bad",
      up: (d) => {
        d.run("CREATE TABLE half_done (x INTEGER) STRICT")
        d.run("THIS IS NOT SQL")
      },
    }
    expect(() => migrate(db, TEST_EPOCH_MS, [good, bad])).toThrow()
    expect(schemaVersion(db)).toBe(1)
    const tables = schemaOf(db).map((o) => o.name)
    expect(tables).toContain("good")
    expect(tables).not.toContain("half_done")
  })

  test("a database newer than this binary is refused with SchemaTooNewError", () => {
    const db = openDb()
    migrate(db, TEST_EPOCH_MS)
    const newer = latestSchemaVersion() + 1
    db.run("INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES (?, 'from the future', ?)", [newer, TEST_EPOCH_MS])
    const before = schemaOf(db)
    let caught: unknown
    try {
      migrate(db, TEST_EPOCH_MS)
    } catch (err) {
      caught = err
    }
    expect(caught).toBeInstanceOf(SchemaTooNewError)
    const err = caught as SchemaTooNewError
    expect(err.databaseVersion).toBe(newer)
    expect(err.supportedVersion).toBe(latestSchemaVersion())
    expect(err.message).toContain(`version ${newer}`)
    expect(schemaOf(db)).toEqual(before)
  })

  test("a database newer than this binary is refused when reopened from its file", () => {
    const path = join(tempDir(), "wagate.db")
    const first = openDatabase(path)
    migrate(first, TEST_EPOCH_MS)
    first.run("INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES (?, 'x', 0)", [latestSchemaVersion() + 5])
    first.close()
    expect(() => migrate(openDb(path), TEST_EPOCH_MS)).toThrow(SchemaTooNewError)
  })
})

describe("openDatabase", () => {
  test("a file database runs with WAL, synchronous=FULL, foreign keys and a 5 s busy timeout", () => {
    const db = openDb(join(tempDir(), "wagate.db"))
    expect(pragma(db, "journal_mode")).toBe("wal")
    expect(pragma(db, "synchronous")).toBe(2)
    expect(pragma(db, "foreign_keys")).toBe(1)
    expect(pragma(db, "busy_timeout")).toBe(5_000)
  })

  test("an in-memory database has the same integrity settings", () => {
    const db = openDb()
    expect(pragma(db, "synchronous")).toBe(2)
    expect(pragma(db, "foreign_keys")).toBe(1)
    expect(pragma(db, "busy_timeout")).toBe(5_000)
  })

  test("missing parent directories are created", () => {
    const path = join(tempDir(), "a", "b", "wagate.db")
    openDb(path)
    expect(existsSync(path)).toBe(true)
  })

  test("foreign keys are enforced", () => {
    const db = openDb()
    migrate(db, TEST_EPOCH_MS)
    expect(() =>
      db.run(
        "INSERT INTO phones (id, account_id, phone_number, display_name, created_at_ms, updated_at_ms) VALUES ('ph_1', 'acc_missing', '+14155550100', 'x', 0, 0)",
      ),
    ).toThrow(/FOREIGN KEY/)
  })

  test("a second connection writes beside the first (WAL, busy timeout)", () => {
    const path = join(tempDir(), "wagate.db")
    const server = openDb(path)
    migrate(server, TEST_EPOCH_MS)
    const cli = openDb(path)
    cli.run("INSERT INTO settings (key, value) VALUES ('k', 'v')")
    expect(server.query("SELECT value FROM settings WHERE key = 'k'").get()).toEqual({ value: "v" })
  })
})
