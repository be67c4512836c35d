import { SQL } from "bun"
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { migrate, openDatabase, type Database } from "../../src/store/sqlite/db"
import { TRANSFER_PLAN } from "../../src/store/transfer"
import { TEST_EPOCH_MS } from "../helpers/test-clock"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { freshMigratedDatabase } from "./contract/stores"

/*
 * `wagate export`/`import` (src/store/transfer.ts) must move every table the product keeps. A
 * migration that adds a SQLite table, or a column on either side, fails here until the transfer
 * plan says where its rows go on PostgreSQL, or why they do not.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/** PostgreSQL tables the import leaves to the nodes: each has a SQLite twin whose plan says why. */
const FILLED_BY_THE_NODES = ["nodes", "phone_leases", "rate_buckets", "schema_migrations"]

let db: Database
let sql: SQL
beforeAll(async () => {
  db = openDatabase(":memory:")
  migrate(db, TEST_EPOCH_MS)
  sql = new SQL(await freshMigratedDatabase(), { max: 1 })
}, SLOW_HOOK_TIMEOUT_MS)
afterAll(async () => {
  db.close()
  await sql.close()
})

const sqliteTables = () =>
  (db.query("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name").all() as { name: string }[]).map((t) => t.name)
const sqliteColumns = (table: string) => new Map((db.query(`PRAGMA table_info("${table}")`).all() as { name: string; type: string }[]).map((c) => [c.name, c.type]))

async function pgColumns(table: string): Promise<Map<string, string>> {
  const rows = await sql.unsafe<{ name: string; type: string }[]>(
    "SELECT column_name AS name, data_type AS type FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1",
    [table],
  )
  return new Map(rows.map((r) => [r.name, r.type]))
}

describe("the export/import plan covers the whole schema", () => {
  test("every SQLite table has exactly one entry in the plan, and the plan names no table SQLite lacks", () => {
    const planned = TRANSFER_PLAN.map((p) => p.table)
    expect(new Set(planned).size).toBe(planned.length)
    expect([...planned].sort()).toEqual(sqliteTables())
  })

  test("every PostgreSQL table is filled by the import or left to the nodes on purpose", async () => {
    const rows = await sql.unsafe<{ name: string }[]>("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() ORDER BY table_name")
    const targets = TRANSFER_PLAN.flatMap((p) => ("into" in p ? [p.into] : []))
    expect(rows.map((r) => r.name)).toEqual([...targets, ...FILLED_BY_THE_NODES].sort())
  })

  test("each imported table's PostgreSQL columns are its SQLite columns plus the values the plan fixes or PostgreSQL generates, and BLOBs land in bytea", async () => {
    const mismatches: string[] = []
    for (const plan of TRANSFER_PLAN) {
      if (!("into" in plan)) continue
      const from = sqliteColumns(plan.table)
      const to = await pgColumns(plan.into)
      const expected = [...new Set([...from.keys(), ...Object.keys(plan.set ?? {}), ...(plan.generated ?? [])])].sort()
      if (JSON.stringify([...to.keys()].sort()) !== JSON.stringify(expected)) mismatches.push(`${plan.table} → ${plan.into}: ${[...to.keys()].sort()} vs ${expected}`)
      for (const [name, type] of from) {
        if ((type === "BLOB") !== (to.get(name) === "bytea")) mismatches.push(`${plan.table}.${name}: ${type} → ${to.get(name)}`)
      }
    }
    expect(mismatches).toEqual([])
  })

  test("every PostgreSQL boolean of an imported table is a SQLite INTEGER (a 0/1 flag the import turns into false/true)", async () => {
    const mismatches: string[] = []
    for (const plan of TRANSFER_PLAN) {
      if (!("into" in plan)) continue
      for (const [name, type] of await pgColumns(plan.into)) {
        if (type === "boolean" && sqliteColumns(plan.table).get(name) !== "INTEGER") mismatches.push(`${plan.table}.${name}`)
      }
    }
    expect(mismatches).toEqual([])
  })
})
