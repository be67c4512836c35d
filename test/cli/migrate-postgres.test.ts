import { SQL } from "bun"
import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { PG_MIGRATION_GAPS, PG_MIGRATIONS, latestPostgresSchemaVersion, postgresSchemaVersion } from "../../src/store/postgres/migrations"
import { freshDatabase } from "../helpers/postgres"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { cli, makeDataDir, removeDataDir } from "./run-cli"

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

let dirs: string[]
beforeEach(() => {
  dirs = [makeDataDir(), makeDataDir()]
})
afterEach(() => {
  for (const dir of dirs) removeDataDir(dir)
})

/** Each migration applied, and a line for each number between them that has none, saying why. */
const applyAll = PG_MIGRATIONS.map((m, i) => {
  const gaps = Array.from({ length: m.version - (PG_MIGRATIONS[i - 1]?.version ?? m.version) - 1 }, (_, k) => (PG_MIGRATIONS[i - 1]!.version + k + 1))
  return `${gaps.map((g) => `There is no migration ${g}: ${PG_MIGRATION_GAPS[g]}.\n`).join("")}Applied migration ${m.version}: ${m.name}\n`
}).join("")
const atLatest = `Database schema is at version ${latestPostgresSchemaVersion()} (latest known: ${latestPostgresSchemaVersion()}).\n`

describe("wagate migrate on PostgreSQL", () => {
  test("every number below the latest migration that has none is explained, and the first run says it between its neighbours", () => {
    const versions = new Set(PG_MIGRATIONS.map((m) => m.version))
    for (let v = 1; v < latestPostgresSchemaVersion(); v++) if (!versions.has(v)) expect([v, PG_MIGRATION_GAPS[v]]).toEqual([v, expect.any(String)])
    expect(applyAll).toContain("Applied migration 1: initial: the schema of SQLite migration 14, for several nodes\nThere is no migration 2: the number was set aside")
  })

  test("applies every migration to an empty database and prints each; a second run applies nothing", async () => {
    const url = await freshDatabase()
    const first = await cli(dirs[0]!, ["migrate"], { env: { WAGATE_DATABASE_URL: url } })
    expect(first).toEqual({ code: 0, stdout: applyAll + atLatest, stderr: "" })
    const again = await cli(dirs[0]!, ["migrate", "--database-url", url])
    expect(again.code).toBe(0)
    expect(again.stdout).toBe(`Nothing to apply to the PostgreSQL database at ${url}.\n${atLatest}`)
    const sql = new SQL(url, { max: 1 })
    try {
      expect(await postgresSchemaVersion(sql)).toBe(latestPostgresSchemaVersion())
    } finally {
      await sql.close()
    }
  })

  test("two nodes running it at once: one applies each migration, both exit 0", async () => {
    const url = await freshDatabase()
    const runs = await Promise.all(dirs.map((dir) => cli(dir, ["migrate"], { env: { WAGATE_DATABASE_URL: url } })))
    expect(runs.map((r) => r.code)).toEqual([0, 0])
    const printed = runs.map((r) => r.stdout).join("")
    for (const m of PG_MIGRATIONS) expect(printed.split(`Applied migration ${m.version}: `).length - 1).toBe(1)
    for (const r of runs) expect(r.stdout).toEndWith(atLatest)
  })

  test("an unreachable database: exit 1 and one line naming it with the password hidden", async () => {
    const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } })
    const port = probe.port
    probe.stop(true)
    const res = await cli(dirs[0]!, ["migrate"], { env: { WAGATE_DATABASE_URL: `postgres://wagate:s3cret@127.0.0.1:${port}/x` } })
    expect(res.code).toBe(1)
    expect(res.stderr).toBe(`error: Cannot reach the PostgreSQL database at postgres://wagate:***@127.0.0.1:${port}/x (connection refused): check WAGATE_DATABASE_URL.\n`)
  })

  test("a URL that is not PostgreSQL's is refused before anything is opened", async () => {
    const res = await cli(dirs[0]!, ["migrate"], { env: { WAGATE_DATABASE_URL: "mysql://u:pw@h/db" } })
    expect(res.code).toBe(1)
    expect(res.stderr).toContain('WAGATE_DATABASE_URL must be a postgres:// or postgresql:// URL')
    expect(res.stderr).not.toContain("pw@")
  })
})
