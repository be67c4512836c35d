import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"
import { runCli } from "../../src/cli/index"
import { DATABASE_FILE } from "../../src/store/sqlite/db"
import { freshDatabase } from "../helpers/postgres"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { cli, makeDataDir, NEVER, removeDataDir, serve, type InProcessServer } from "./run-cli"

/*
 * On PostgreSQL a command run without the database URL used to open SQLite in the data
 * directory: the first start's `phones add … --data DIR`, pasted into a new shell, created an
 * empty SQLite database there and then advised `accounts create`.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

let dir: string
let running: InProcessServer | null = null
beforeEach(() => {
  dir = makeDataDir()
})
afterEach(async () => {
  await running?.stop()
  running = null
  removeDataDir(dir)
})

/** The throwaway server trusts every login, so the URL can carry a password that must never be printed. */
async function databaseWithPassword(): Promise<string> {
  return (await freshDatabase()).replace("postgres://wagate@", "postgres://wagate:s3cret-pw@")
}

/** Runs a printed command as a new shell would: `$WAGATE_DATABASE_URL` expanded from `env` (empty when unset), nothing else inherited. */
async function runInNewShell(command: string, env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const words = command.replace('"$WAGATE_DATABASE_URL"', env.WAGATE_DATABASE_URL ?? "").split(" ")
  // An unset variable in double quotes is still one (empty) word.
  if (env.WAGATE_DATABASE_URL === undefined) words.splice(words.indexOf("--database-url") + 1, 0, "")
  const argv = words.slice(1).map((w) => w.replace(/^'(.*)'$/, "$1")).filter((w, i, all) => w !== "" || all[i - 1] === "--database-url")
  let stdout = ""
  let stderr = ""
  const code = await runCli(argv, { env, stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), isTty: false, invocation: "wagate" }, NEVER)
  return { code, stdout, stderr }
}

describe("the commands wagate suggests on PostgreSQL name the database", () => {
  test("the first start's next step carries the database as its variable, never the password, and works as printed in a new shell", async () => {
    const url = await databaseWithPassword()
    expect((await cli(dir, ["migrate"], { env: { WAGATE_DATABASE_URL: url } })).code).toBe(0)
    running = await serve(dir, ["serve", "--port", "0", "--host", "127.0.0.1"], "wagate", { WAGATE_DATABASE_URL: url })
    const out = running.stdout()
    expect(out).not.toContain("s3cret-pw")
    const next = /^ {2}(wagate phones add .*)$/m.exec(out)![1]!
    expect(next).toBe(`wagate phones add +14155550123 --name 'Support' --data ${dir} --database-url "$WAGATE_DATABASE_URL"`)
    expect(out).toContain(`in a shell where WAGATE_DATABASE_URL holds this database's URL: ${url.replace("s3cret-pw", "***")}`)

    // A new shell without the variable is refused, and creates nothing in the data directory.
    const bare = await runInNewShell(next.replace("'Support'", "Support"), {})
    expect(bare.code).toBe(1)
    expect(bare.stderr).toBe("error: --database-url is empty: set WAGATE_DATABASE_URL in this shell to the database's URL\n")
    expect(existsSync(join(dir, DATABASE_FILE))).toBe(false)

    const followed = await runInNewShell(next.replace("'Support'", "Support"), { WAGATE_DATABASE_URL: url })
    expect(followed.stderr).toBe("")
    expect(followed.code).toBe(0)
    expect(followed.stdout).toContain("Added phone")
    expect(existsSync(join(dir, DATABASE_FILE))).toBe(false)
  })

  test("a command without the database URL, on a data directory whose server runs on PostgreSQL, says so and creates no SQLite", async () => {
    const url = await databaseWithPassword()
    expect((await cli(dir, ["migrate"], { env: { WAGATE_DATABASE_URL: url } })).code).toBe(0)
    running = await serve(dir, ["serve", "--port", "0", "--host", "127.0.0.1"], "wagate", { WAGATE_DATABASE_URL: url })
    expect(JSON.parse(readFileSync(join(dir, "wagate.lock"), "utf8")).database).toBe(url.replace("s3cret-pw", "***"))
    for (const argv of [["phones", "list"], ["accounts", "create", "--name", "A", "--email", "a@example.com"], ["migrate"], ["nodes"]]) {
      const res = await cli(dir, argv)
      expect(res.code).toBe(1)
      expect(res.stderr).toStartWith(`error: the wagate server running on ${dir} (pid ${process.pid}) uses the PostgreSQL database ${url.replace("s3cret-pw", "***")}, `)
      expect(res.stderr).toContain('set WAGATE_DATABASE_URL or pass --database-url "$WAGATE_DATABASE_URL"')
      expect(res.stderr).not.toContain("s3cret-pw")
      expect(existsSync(join(dir, DATABASE_FILE))).toBe(false)
    }
    const withUrl = await cli(dir, ["accounts", "list"], { env: { WAGATE_DATABASE_URL: url } })
    expect(withUrl.code).toBe(0)
  })
})
