import { SQL, type Socket } from "bun"
import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { SchemaTooNewError } from "../../src/store/schema-version"
import { latestPostgresSchemaVersion, migratePostgres, PG_MIGRATIONS, sqlMigration } from "../../src/store/postgres/migrations"
import { checkPostgresSchema, DatabaseStartError } from "../../src/store/postgres/start-checks"
import { openPostgresStore } from "../../src/store/postgres/store"
import { freshDatabase, testPostgres } from "../helpers/postgres"
import { TEST_EPOCH_MS } from "../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * A node refuses to start on a database it cannot use, in one sentence that names the URL
 * without its password and says what to do (docs/operations.md § "Running several nodes").
 */

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const fn of cleanups.splice(0)) await fn()
})

/** The message of the error `open` rejects with (the test fails if it resolves). */
async function refusal(open: Promise<{ close(): Promise<void> }>): Promise<Error> {
  try {
    const store = await open
    await store.close()
  } catch (err) {
    return err as Error
  }
  throw new Error("the store opened")
}

/** A port nothing listens on: bound by the kernel, then closed. */
function closedPort(): number {
  const probe = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } })
  const port = probe.port
  probe.stop(true)
  return port
}

/**
 * A server that speaks just enough of PostgreSQL's protocol to ask for a password and refuse it
 * as PostgreSQL does (SQLSTATE 28P01): the run's throwaway server trusts every local login.
 */
function passwordRefusingServer(): number {
  const int32 = (n: number) => {
    const b = Buffer.alloc(4)
    b.writeInt32BE(n)
    return b
  }
  const message = (type: string, body: Buffer) => Buffer.concat([Buffer.from(type), int32(body.length + 4), body])
  const server = Bun.listen<{ startup: boolean }>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open: (s) => void (s.data = { startup: true }),
      data(s: Socket<{ startup: boolean }>, chunk) {
        if (s.data.startup && chunk.length >= 8 && chunk.readInt32BE(4) === 80877103) return void s.write("N")
        if (s.data.startup) {
          s.data.startup = false
          return void s.write(message("R", int32(3)))
        }
        const fields = ["SFATAL", "VFATAL", "C28P01", 'Mpassword authentication failed for user "wagate"'].map((f) => `${f}\u0000`).join("")
        s.write(message("E", Buffer.from(`${fields}\u0000`)))
        s.end()
      },
    },
  })
  cleanups.push(() => server.stop(true))
  return server.port
}

/** A server that accepts connections and never says a word. */
function silentServer(): number {
  const server = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } })
  cleanups.push(() => server.stop(true))
  return server.port
}

describe("an unusable WAGATE_DATABASE_URL", () => {
  test("an unreachable port: one sentence naming the URL with the password hidden", async () => {
    const url = `postgres://wagate:s3cret@127.0.0.1:${closedPort()}/x`
    const err = await refusal(openPostgresStore(url))
    expect(err).toBeInstanceOf(DatabaseStartError)
    expect(err.message).toBe(`Cannot reach the PostgreSQL database at ${url.replace("s3cret", "***")} (connection refused): check WAGATE_DATABASE_URL.`)
  })

  test("a server that never answers: refused once the connect timeout has passed", async () => {
    const url = `postgres://wagate:s3cret@127.0.0.1:${silentServer()}/x`
    const err = await refusal(openPostgresStore(url, { connectTimeoutMs: 1_000 }))
    expect(err).toBeInstanceOf(DatabaseStartError)
    expect(err.message).toStartWith(`Cannot reach the PostgreSQL database at postgres://wagate:***@127.0.0.1:`)
    expect(err.message).toEndWith(": check WAGATE_DATABASE_URL.")
    expect(err.message).not.toContain("s3cret")
  })

  test("a wrong password: the server's refusal, quoted", async () => {
    const url = `postgres://wagate:wrong@127.0.0.1:${passwordRefusingServer()}/wagate`
    const err = await refusal(openPostgresStore(url))
    expect(err).toBeInstanceOf(DatabaseStartError)
    expect(err.message).toBe(
      `The PostgreSQL server at ${url.replace("wrong", "***")} refused the connection (password authentication failed for user "wagate"): check WAGATE_DATABASE_URL.`,
    )
  })

  test("a database that does not exist, and a user that does not exist", async () => {
    const { port } = await testPostgres()
    const noDatabase = await refusal(openPostgresStore(`postgres://wagate:pw@127.0.0.1:${port}/no_such_db`))
    expect(noDatabase.message).toBe(`The PostgreSQL server at postgres://wagate:***@127.0.0.1:${port}/no_such_db refused the connection (database "no_such_db" does not exist): check WAGATE_DATABASE_URL.`)
    const noUser = await refusal(openPostgresStore(`postgres://nobody:pw@127.0.0.1:${port}/postgres`))
    expect(noUser.message).toBe(`The PostgreSQL server at postgres://nobody:***@127.0.0.1:${port}/postgres refused the connection (role "nobody" does not exist): check WAGATE_DATABASE_URL.`)
  })
})

describe("the schema version", () => {
  async function migrated(migrations = PG_MIGRATIONS): Promise<string> {
    const url = await freshDatabase()
    const sql = new SQL(url, { max: 1 })
    try {
      await migratePostgres(sql, TEST_EPOCH_MS, migrations)
    } finally {
      await sql.close()
    }
    return url
  }

  test("an empty (older) database is refused with `wagate migrate`, and nothing is created in it", async () => {
    const url = await freshDatabase()
    const err = await refusal(openPostgresStore(url))
    expect(err).toBeInstanceOf(DatabaseStartError)
    expect(err.message).toContain(`has schema version 0, but this wagate needs version ${latestPostgresSchemaVersion()}: run \`wagate migrate\``)
    const sql = new SQL(url, { max: 1 })
    cleanups.push(() => sql.close())
    expect(await sql`SELECT tablename FROM pg_tables WHERE schemaname = 'public'`).toEqual([])
  })

  test("a schema older than the binary's is refused with `wagate migrate`", async () => {
    const next = latestPostgresSchemaVersion() + 1
    const withNext = [...PG_MIGRATIONS, sqlMigration(next, "next", "CREATE TABLE next_thing (x int4)")]
    const url = await migrated()
    const sql = new SQL(url, { max: 1 })
    cleanups.push(() => sql.close())
    const err = await checkPostgresSchema(sql, url, next).then(() => null, (e: Error) => e)
    expect(err).toBeInstanceOf(DatabaseStartError)
    expect(err!.message).toContain(`has schema version ${next - 1}, but this wagate needs version ${next}: run \`wagate migrate\``)
    await migratePostgres(sql, TEST_EPOCH_MS, withNext)
    await checkPostgresSchema(sql, url, next)
  })

  test("a schema newer than the binary's is refused as SQLite's is", async () => {
    const url = await migrated([...PG_MIGRATIONS, sqlMigration(latestPostgresSchemaVersion() + 1, "future", "CREATE TABLE future (x int4)")])
    const err = await refusal(openPostgresStore(url))
    expect(err).toBeInstanceOf(SchemaTooNewError)
    expect(err.message).toContain("Upgrade wagate")
  })

  test("the current schema opens", async () => {
    const store = await openPostgresStore(await migrated())
    cleanups.push(() => store.close())
    await store.ping()
  })
})
