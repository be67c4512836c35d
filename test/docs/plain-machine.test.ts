import { SQL } from "bun"
import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { testPostgres } from "../helpers/postgres"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { cli, makeDataDir, printedAccountId, removeDataDir, serve, type InProcessServer } from "../cli/run-cli"

/*
 * docs/operations.md § "On plain machines (no Compose)" run as written against the run's
 * throwaway PostgreSQL: its SQL as the superuser, then its commands. Only what cannot be the
 * same here is replaced: the names `wagate` of the role and database (the throwaway server's
 * superuser is already called wagate) by a fresh name, the database's host and port by the
 * throwaway server's, the paths by temporary ones, and serve gets `--port 0 --host 127.0.0.1`
 * (no test binds a fixed port).
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const DOC = readFileSync(join(import.meta.dir, "..", "..", "docs", "operations.md"), "utf8")

/** The recipe: from its heading to the next heading of the same level. */
function recipe(): string {
  const start = DOC.indexOf("### On plain machines (no Compose)\n")
  expect(start).toBeGreaterThan(-1)
  const rest = DOC.slice(start + 1)
  return rest.slice(0, rest.search(/\n### /))
}

/** The fenced blocks of one language, in order, with the list's indentation removed. */
function blocks(text: string, lang: string): string[] {
  return [...text.matchAll(new RegExp("^( *)```" + lang + "\\n([\\s\\S]*?)^\\1```$", "gm"))].map((m) =>
    m[2]!.split("\n").map((l) => l.slice(m[1]!.length)).join("\n").trim(),
  )
}

/** A shell line's words; the recipe quotes only the URL, in single quotes. */
function words(line: string): string[] {
  return line.split(" ").map((w) => w.replace(/^'(.*)'$/, "$1"))
}

let dirs: string[] = []
let running: InProcessServer | null = null
beforeEach(() => {
  dirs = [makeDataDir(), makeDataDir(), makeDataDir()]
})
afterEach(async () => {
  await running?.stop()
  running = null
  for (const dir of dirs) removeDataDir(dir)
})

describe("docs/operations.md: PostgreSQL on plain machines, run as written", () => {
  test("the SQL makes a role that is no superuser, migrate and import work as it, and a node then serves the imported data from a data directory holding no database", async () => {
    const [sqliteDir, nodeDir, otherDir] = dirs as [string, string, string]
    const text = recipe()
    const name = `plain_${crypto.randomUUID().replaceAll("-", "").slice(0, 12)}`
    const rename = (s: string) => s.replace(/\bwagate(?=[ ;:@]|$)/gm, name)

    // 1. The SQL, statement by statement, as the superuser.
    const [sqlBlock] = blocks(text, "sql")
    const server = await testPostgres()
    const admin = new SQL(server.adminUrl, { max: 1 })
    try {
      for (const statement of rename(sqlBlock!).split(/;\s*$/m).map((s) => s.trim()).filter(Boolean)) await admin.unsafe(statement)
      expect(await admin`SELECT rolsuper, rolcreatedb, rolcreaterole FROM pg_roles WHERE rolname = ${name}`).toEqual([{ rolsuper: false, rolcreatedb: false, rolcreaterole: false }])
    } finally {
      await admin.close()
    }

    // 2. The URL and migrate.
    const [migrateBlock, importBlock, serveBlock] = blocks(text, "sh") as [string, string, string]
    const [exportLine, migrateLine] = migrateBlock.split("\n") as [string, string]
    const documented = /^export WAGATE_DATABASE_URL='([^']+)'$/.exec(exportLine)![1]!
    const url = rename(documented.replace("@db.example.internal:5432/", `@127.0.0.1:${server.port}/`))
    expect(new URL(url).username).toBe(name)
    const env = { WAGATE_DATABASE_URL: url }
    expect(migrateLine).toBe("wagate migrate")
    const migrated = await cli(otherDir, words(migrateLine).slice(1), { env })
    expect({ code: migrated.code, stderr: migrated.stderr }).toEqual({ code: 0, stderr: "" })

    // 3. An export of a single node, imported before any node starts.
    const accountId = printedAccountId((await cli(sqliteDir, ["accounts", "create", "--name", "Acme", "--email", "ops@acme.example"])).stdout)
    expect((await cli(sqliteDir, ["phones", "add", "+14155550123", "--account", accountId])).code).toBe(0)
    const file = join(otherDir, "move.ndjson")
    expect((await cli(sqliteDir, ["export", "--out", file])).code).toBe(0)
    const importArgv = words(importBlock).slice(1).map((w) => (w === "move.ndjson" ? file : w))
    expect(importArgv).toEqual(["import", "--in", file])
    const imported = await cli(otherDir, importArgv, { env })
    expect({ code: imported.code, stderr: imported.stderr }).toEqual({ code: 0, stderr: "" })

    // 4. A node with its own data directory serves the imported account and phone.
    const serveArgv = words(serveBlock).slice(1).map((w) => (w === "/var/lib/wagate" ? nodeDir : w))
    expect(serveArgv).toContain(nodeDir)
    running = await serve(nodeDir, [...serveArgv, "--port", "0", "--host", "127.0.0.1"], "wagate", env)
    const phones = await cli(nodeDir, ["phones", "list", "--account", accountId, "--json"], { env })
    expect(JSON.parse(phones.stdout).map((p: { phoneNumber: string }) => p.phoneNumber)).toEqual(["+14155550123"])
    const nodes = JSON.parse((await cli(nodeDir, ["nodes", "--json"], { env })).stdout)
    expect(nodes.nodes.map((n: { nodeId: string; state: string }) => [n.nodeId, n.state])).toEqual([["node1", "live"]])
    // The data directory holds the lock and no database, as the recipe says.
    expect(readdirSync(nodeDir)).toContain("wagate.lock")
    expect(existsSync(join(nodeDir, "wagate.db"))).toBe(false)
    expect(text).toContain("`wagate.db` never appears there")

    // "before any node starts": once one has, the import is refused and changes nothing.
    const late = await cli(otherDir, importArgv, { env })
    expect(late.code).toBe(1)
    expect(late.stderr).toContain("is not empty")
    expect(late.stderr).toContain("import only into a freshly migrated database, before any node has started on it")
  })
})
