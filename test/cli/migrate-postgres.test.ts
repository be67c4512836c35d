import { SQL } from "bun"
import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { PG_MIGRATIONS, latestPostgresSchemaVersion, postgresSchemaVersion } from "../../src/store/postgres/migrations"
import { runCli } from "../../src/cli/index"
import { isNotUpYet } from "../../src/store/postgres/wait-for-database"
import { freshDatabase, separatePostgres } from "../helpers/postgres"
import { TestClock } from "../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { cli, makeDataDir, NEVER, removeDataDir } from "./run-cli"

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

let dirs: string[]
beforeEach(() => {
  dirs = [makeDataDir(), makeDataDir()]
})
afterEach(() => {
  for (const dir of dirs) removeDataDir(dir)
})

/** A port on 127.0.0.1 that nothing listens on (the kernel just handed it out). */
function deadPort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } })
  const port = probe.port
  probe.stop(true)
  return port
}

const applyAll = PG_MIGRATIONS.map((m) => `Applied migration ${m.version}: ${m.name}\n`).join("")
const atLatest = `Database schema is at version ${latestPostgresSchemaVersion()} (latest known: ${latestPostgresSchemaVersion()}).\n`

describe("wagate migrate on PostgreSQL", () => {
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

  test("an unreachable database with no wait: exit 1 at once and one line naming it with the password hidden", async () => {
    const port = deadPort()
    const res = await cli(dirs[0]!, ["migrate"], { env: { WAGATE_DATABASE_URL: `postgres://wagate:s3cret@127.0.0.1:${port}/x`, WAGATE_DATABASE_WAIT_MS: "0" } })
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

describe("wagate migrate waits for a PostgreSQL that is not up yet", () => {
  test("a server that listens on its socket only, then restarts on TCP (the image's first start): migrate waits, then applies every migration", async () => {
    const pg = await separatePostgres()
    try {
      await pg.start({ tcp: false })
      let stdout = ""
      let stderr = ""
      const io = { env: { WAGATE_DATA_DIR: dirs[0]!, WAGATE_DATABASE_URL: pg.url, WAGATE_DATABASE_WAIT_MS: "60000" }, stdout: (t: string) => void (stdout += t), stderr: (t: string) => void (stderr += t), isTty: false }
      const run = runCli(["migrate"], io, NEVER)
      const waiting = `Waiting up to 60 s for the PostgreSQL database at ${pg.url} to accept connections.\n`
      // The real server's start is what the command waits for, so this test waits on real time.
      while (stdout !== waiting && stderr === "") await Bun.sleep(10)
      expect({ stdout, stderr }).toEqual({ stdout: waiting, stderr: "" })
      await pg.stop()
      await pg.start()
      expect(await run).toBe(0)
      expect({ stdout, stderr }).toEqual({ stdout: waiting + applyAll + atLatest, stderr: "" })
    } finally {
      await pg.stop()
    }
  })

  test("a database that never comes up: exit 1 after WAGATE_DATABASE_WAIT_MS, the error saying how long it waited", async () => {
    const port = deadPort()
    const clock = new TestClock()
    const startedAt = clock.nowMs()
    let settled = false
    const run = cli(dirs[0]!, ["migrate"], { env: { WAGATE_DATABASE_URL: `postgres://wagate:s3cret@127.0.0.1:${port}/x`, WAGATE_DATABASE_WAIT_MS: "5000" }, clock })
    void run.finally(() => (settled = true))
    // Each try is a real (refused) connection; the pauses between them run on the test clock.
    while (!settled) {
      if (clock.pendingTimers > 0) clock.advance(1_000)
      else await Bun.sleep(1)
    }
    const res = await run
    expect(res).toEqual({
      code: 1,
      stdout: `Waiting up to 5 s for the PostgreSQL database at postgres://wagate:***@127.0.0.1:${port}/x to accept connections.\n`,
      stderr: `error: Cannot reach the PostgreSQL database at postgres://wagate:***@127.0.0.1:${port}/x (connection refused): check WAGATE_DATABASE_URL. Waited 5 s for it to accept connections (WAGATE_DATABASE_WAIT_MS).\n`,
    })
    // It gave up once the bound had passed, not before and not long after (pauses are at most 2 s).
    expect(clock.nowMs() - startedAt).toBeGreaterThanOrEqual(5_000)
    expect(clock.nowMs() - startedAt).toBeLessThanOrEqual(7_000)
  })

  test("a database that answers but refuses (no such database): exit 1 at once, without waiting", async () => {
    const url = (await freshDatabase()).replace(/\/[^/]+$/, "/t_no_such_database")
    const clock = new TestClock()
    const res = await cli(dirs[0]!, ["migrate"], { env: { WAGATE_DATABASE_URL: url, WAGATE_DATABASE_WAIT_MS: "60000" }, clock })
    expect(res.code).toBe(1)
    expect(res.stdout).toBe("")
    expect(res.stderr).toContain('database \"t_no_such_database\" does not exist')
    expect(clock.pendingTimers).toBe(0)
  })

  test("what counts as not up yet: refused, closed or timed-out connections and a server starting or shutting down; a refusal does not", () => {
    const server = (errno: string) => ({ code: "ERR_POSTGRES_SERVER_ERROR", errno })
    expect(
      [
        { code: "ERR_POSTGRES_CONNECTION_REFUSED" },
        { code: "ERR_POSTGRES_CONNECTION_CLOSED" },
        { code: "ERR_POSTGRES_CONNECTION_TIMEOUT" },
        server("57P03"),
        server("57P01"),
        server("57P02"),
      ].map(isNotUpYet),
    ).toEqual([true, true, true, true, true, true])
    expect([server("28P01"), server("3D000"), server("28000"), new Error("boom"), null].map(isNotUpYet)).toEqual([false, false, false, false, false])
  })
})
