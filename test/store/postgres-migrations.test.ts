import { SQL } from "bun"
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { migrate, openDatabase } from "../../src/store/sqlite/db"
import { SchemaTooNewError } from "../../src/store/schema-version"
import { latestPostgresSchemaVersion, migratePostgres, PG_MIGRATIONS, postgresSchemaVersion, sqlMigration } from "../../src/store/postgres/migrations"
import { freshDatabase } from "../helpers/postgres"
import { TEST_EPOCH_MS } from "../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const pools: SQL[] = []
afterEach(async () => {
  for (const sql of pools.splice(0)) await sql.close()
})

async function connect(url?: string): Promise<SQL> {
  const sql = new SQL(url ?? (await freshDatabase()), { max: 2 })
  pools.push(sql)
  return sql
}

describe("migratePostgres", () => {
  test("a fresh database gets every migration, ending at the latest version, and a second run applies nothing", async () => {
    const sql = await connect()
    expect(await postgresSchemaVersion(sql)).toBe(0)
    expect(await migratePostgres(sql, TEST_EPOCH_MS)).toEqual(PG_MIGRATIONS.map((m) => m.version))
    expect(await postgresSchemaVersion(sql)).toBe(latestPostgresSchemaVersion())
    expect(await migratePostgres(sql, TEST_EPOCH_MS + 1)).toEqual([])
    const rows = await sql`SELECT version, name, applied_at_ms::text AS at FROM schema_migrations ORDER BY version`
    expect(rows.map((r: { version: number; at: string }) => [r.version, r.at])).toEqual(PG_MIGRATIONS.map((m) => [m.version, String(TEST_EPOCH_MS)]))
  })

  test("two nodes migrating at once apply each migration exactly once, and both succeed", async () => {
    const url = await freshDatabase()
    const [a, b] = [await connect(url), await connect(url)]
    const [appliedA, appliedB] = await Promise.all([migratePostgres(a, TEST_EPOCH_MS), migratePostgres(b, TEST_EPOCH_MS)])
    expect([...appliedA, ...appliedB].sort((x, y) => x - y)).toEqual(PG_MIGRATIONS.map((m) => m.version))
    const [{ n }] = await a`SELECT COUNT(*)::int4 AS n FROM schema_migrations`
    expect(n).toBe(PG_MIGRATIONS.length)
  })

  test("a failing migration leaves nothing of itself behind and the version where it was", async () => {
    const sql = await connect()
    const broken = [...PG_MIGRATIONS, sqlMigration(latestPostgresSchemaVersion() + 1, "broken", "CREATE TABLE half_done (x int4); SELECT no_such_function()")]
    await expect(migratePostgres(sql, TEST_EPOCH_MS, broken)).rejects.toThrow()
    expect(await postgresSchemaVersion(sql)).toBe(latestPostgresSchemaVersion())
    const [{ present }] = await sql`SELECT to_regclass('half_done') IS NOT NULL AS present`
    expect(present).toBe(false)
  })

  test("a database migrated by a newer wagate is refused with SchemaTooNewError", async () => {
    const sql = await connect()
    const newer = [...PG_MIGRATIONS, sqlMigration(latestPostgresSchemaVersion() + 1, "from the future", "CREATE TABLE future (x int4)")]
    await migratePostgres(sql, TEST_EPOCH_MS, newer)
    const refusal = migratePostgres(sql, TEST_EPOCH_MS)
    await expect(refusal).rejects.toBeInstanceOf(SchemaTooNewError)
    await expect(refusal).rejects.toThrow(`version ${latestPostgresSchemaVersion() + 1}`)
  })
})

describe("the PostgreSQL schema", () => {
  test("has every SQLite index under the same name, and every SQLite table but the per-account counter rows", async () => {
    const lite = openDatabase(":memory:")
    migrate(lite, TEST_EPOCH_MS)
    const liteIndexes = lite.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL").all().map((r) => r.name)
    const liteTables = lite.query<{ name: string }, []>("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'").all().map((r) => r.name)
    lite.close()
    const sql = await connect()
    await migratePostgres(sql, TEST_EPOCH_MS)
    const pgIndexes = (await sql`SELECT indexname FROM pg_indexes WHERE schemaname = 'public'`).map((r: { indexname: string }) => r.indexname)
    const pgTables = (await sql`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`).map((r: { tablename: string }) => r.tablename)
    expect(liteIndexes.length).toBeGreaterThan(10)
    expect(liteIndexes.filter((name) => !pgIndexes.includes(name))).toEqual([])
    // message_sequences is a sequence per table in PostgreSQL; the request counters are append-only rows.
    const replaced: Record<string, string> = { message_sequences: "(identity columns)", api_request_daily_counts: "api_request_counts" }
    expect(liteTables.filter((name) => !pgTables.includes(name) && !(name in replaced)).sort()).toEqual([])
    expect(pgTables).toContain("api_request_counts")
  })

  test("every epoch-millisecond column is int8", async () => {
    const sql = await connect()
    await migratePostgres(sql, TEST_EPOCH_MS)
    const notInt8 = await sql`SELECT table_name || '.' || column_name AS col, data_type FROM information_schema.columns
      WHERE table_schema = 'public' AND column_name LIKE '%\_ms' AND data_type <> 'bigint'`
    expect(notInt8).toEqual([])
  })
})

describe("collation", () => {
  test("text columns order bytes as SQLite does, whatever the database's locale", async () => {
    const sql = await connect()
    await migratePostgres(sql, TEST_EPOCH_MS)
    const ids = ["a_1", "B_2", "a-1", "A1", "b"]
    await sql`INSERT INTO settings ${sql(ids.map((key) => ({ key, value: "" })))}`
    const keys = (await sql`SELECT key FROM settings ORDER BY key`).map((r: { key: string }) => r.key)
    expect(keys).toEqual([...ids].sort())
    const columns = await sql`SELECT table_name || '.' || column_name AS col FROM information_schema.columns
      WHERE table_schema = 'public' AND table_name <> 'schema_migrations' AND data_type = 'text' AND (collation_name IS NULL OR collation_name <> 'C')`
    expect(columns).toEqual([])
  })
})
