import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { Database } from "bun:sqlite"
import { copyFileSync, existsSync, rmSync } from "node:fs"
import { join } from "node:path"
import { COMMANDS, usageLines } from "../../src/cli/commands"
import { overview } from "../../src/cli/help"
import { latestSchemaVersion } from "../../src/store/sqlite/db"
import { MIGRATIONS } from "../../src/store/sqlite/migrations"
import { VERSION } from "../../src/version"
import { cli, makeDataDir, printedAccountId, removeDataDir, serverOn } from "./run-cli"

let dir: string
beforeEach(() => {
  dir = makeDataDir()
})
afterEach(() => removeDataDir(dir))

describe("wagate version, help and usage errors", () => {
  test.each([["version"], ["--version"]])("%s prints the version, schema and Bun version", async (arg) => {
    const res = await cli(dir, [arg])
    expect(res.code).toBe(0)
    expect(res.stdout).toBe(`wagate ${VERSION} (schema ${latestSchemaVersion()}, bun ${Bun.version})\n`)
    expect(res.stderr).toBe("")
  })

  test("version touches no data directory", async () => {
    const res = await cli(join(dir, "never-created"), ["version"])
    expect(res.code).toBe(0)
    expect(existsSync(join(dir, "never-created"))).toBe(false)
  })

  test.each([["help"], ["--help"], ["-h"]])("%s prints the usage of every command", async (arg) => {
    const res = await cli(dir, [arg])
    expect(res.code).toBe(0)
    expect(res.stdout).toBe(overview())
    for (const line of COMMANDS.flatMap(usageLines)) expect(res.stdout).toContain(line)
    expect(res.stdout).toContain("With no command, wagate serves.")
  })

  test("an unknown command exits 2 with a hint", async () => {
    const res = await cli(dir, ["frobnicate"])
    expect(res.code).toBe(2)
    expect(res.stdout).toBe("")
    expect(res.stderr).toBe('error: Unknown command "frobnicate"\nRun `wagate help` for usage.\n')
  })

  test("an unknown subcommand exits 2 and shows that command's usage", async () => {
    const res = await cli(dir, ["keys", "rotate"])
    expect(res.code).toBe(2)
    expect(res.stderr).toContain('Unknown keys command "rotate"')
    expect(res.stderr).toContain("wagate keys revoke KEY_ID")
  })

  test("an invalid setting exits 1 with an actionable message", async () => {
    const res = await cli(dir, ["accounts", "list"], { env: { WAGATE_LOG_LEVEL: "loud" } })
    expect(res.code).toBe(1)
    expect(res.stderr).toBe('error: WAGATE_LOG_LEVEL must be one of debug, info, warn, error, got "loud"\n')
    const flag = await cli(dir, ["accounts", "list", "--log-level", "loud"])
    expect(flag.code).toBe(1)
    expect(flag.stderr).toBe('error: --log-level must be one of debug, info, warn, error, got "loud"\n')
  })
})

describe("wagate migrate", () => {
  test("creates and migrates the database of an empty data directory, printing each migration it applied", async () => {
    const res = await cli(dir, ["migrate"])
    expect(res.code).toBe(0)
    const latest = latestSchemaVersion()
    expect(res.stdout).toBe(
      `${MIGRATIONS.map((m) => `Applied migration ${m.version}: ${m.name}\n`).join("")}Database schema is at version ${latest} (latest known: ${latest}).\n`,
    )
    expect(existsSync(join(dir, "wagate.db"))).toBe(true)
    // Idempotent: a second run applies nothing and says so.
    expect((await cli(dir, ["migrate"])).stdout).toBe(
      `Nothing to apply to the SQLite database ${join(dir, "wagate.db")}.\nDatabase schema is at version ${latest} (latest known: ${latest}).\n`,
    )
  })

  test("refuses a database written by a newer wagate", async () => {
    expect((await cli(dir, ["migrate"])).code).toBe(0)
    const db = new Database(join(dir, "wagate.db"))
    db.run("INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES (?, 'from the future', 0)", [latestSchemaVersion() + 1])
    db.close()
    const res = await cli(dir, ["migrate"])
    expect(res.code).toBe(1)
    expect(res.stderr).toContain(`The database schema is version ${latestSchemaVersion() + 1}, but this wagate supports up to version ${latestSchemaVersion()}`)
  })
})

describe("--account with several accounts", () => {
  test("keys and phones commands require --account when there is more than one account", async () => {
    const a = printedAccountId((await cli(dir, ["accounts", "create", "--name", "A", "--email", "a@x.example"])).stdout)
    // One account: chosen implicitly.
    expect((await cli(dir, ["phones", "add", "+14155550123"])).code).toBe(0)
    const b = printedAccountId((await cli(dir, ["accounts", "create", "--name", "B", "--email", "b@x.example"])).stdout)

    for (const argv of [["keys", "create"], ["keys", "list"], ["phones", "add", "+14155550124"], ["phones", "list"]]) {
      const res = await cli(dir, argv)
      expect(res.code).toBe(2)
      expect(res.stderr).toContain(`There are 2 accounts: pass --account (see \`wagate accounts list --data ${dir}\`)`)
    }

    expect((await cli(dir, ["phones", "add", "+14155550124", "--account", b])).code).toBe(0)
    expect((await cli(dir, ["keys", "create", "--account", b])).code).toBe(0)
    const phonesOfA = JSON.parse((await cli(dir, ["phones", "list", "--json", "--account", a])).stdout)
    const phonesOfB = JSON.parse((await cli(dir, ["phones", "list", "--json", "--account", b])).stdout)
    expect(phonesOfA.map((p: { phoneNumber: string }) => p.phoneNumber)).toEqual(["+14155550123"])
    expect(phonesOfB.map((p: { phoneNumber: string }) => p.phoneNumber)).toEqual(["+14155550124"])
    expect(JSON.parse((await cli(dir, ["keys", "list", "--json", "--account", a])).stdout)).toEqual([])
    expect(JSON.parse((await cli(dir, ["keys", "list", "--json", "--account", b])).stdout)).toHaveLength(1)
  })
})

describe("wagate admin-token reset", () => {
  const printedToken = (out: string) => /^ {2}(adm_[0-9A-Za-z]{43})$/m.exec(out)?.[1]

  test("prints a new admin token once; it works and the previous one stops working", async () => {
    const first = await cli(dir, ["admin-token", "reset"])
    expect(first.code).toBe(0)
    expect(first.stdout).toStartWith("New admin token (shown only now):\n\n  adm_")
    const old = printedToken(first.stdout)!
    expect(old).toBeDefined()

    const second = await cli(dir, ["admin-token", "reset"])
    expect(second.code).toBe(0)
    const current = printedToken(second.stdout)!
    expect(current).not.toBe(old)
    expect(second.stdout).not.toContain("WAGATE_ADMIN_TOKEN")

    const server = await serverOn(dir)
    try {
      expect((await server.get("/admin/v1/accounts", current)).status).toBe(200)
      expect((await server.get("/admin/v1/accounts", old)).status).toBe(401)
    } finally {
      await server.close()
    }
  })

  test("warns that WAGATE_ADMIN_TOKEN takes precedence when it is set", async () => {
    const res = await cli(dir, ["admin-token", "reset"], { env: { WAGATE_ADMIN_TOKEN: "configured-admin-token-0123456789" } })
    expect(res.code).toBe(0)
    expect(res.stdout).toContain("Note: WAGATE_ADMIN_TOKEN is set and takes precedence over the stored token.")
  })

  test("admin-token without `reset` is a usage error", async () => {
    const res = await cli(dir, ["admin-token"])
    expect(res.code).toBe(2)
    expect(res.stderr).toContain("usage: wagate admin-token reset")
  })
})

describe("wagate backup", () => {
  test("prints how to restore: stop wagate, delete the -wal and -shm files beside the database, copy the backup over it", async () => {
    const id = printedAccountId((await cli(dir, ["accounts", "create", "--name", "Kept", "--email", "kept@x.example"])).stdout)
    const target = join(dir, "backup.db")
    const res = await cli(dir, ["backup", target])
    expect(res.code).toBe(0)
    const db = join(dir, "wagate.db")
    expect(res.stdout).toBe(
      `Backed up the database to ${target}.\n` +
        `To restore it: stop wagate, delete ${db}-wal and ${db}-shm if they exist, then copy ${target} to ${db}.\n`,
    )

    // Following the hint restores the backed-up state, even over a database changed since.
    expect((await cli(dir, ["accounts", "create", "--name", "Later", "--email", "later@x.example"])).code).toBe(0)
    for (const file of [`${db}-wal`, `${db}-shm`]) rmSync(file, { force: true })
    copyFileSync(target, db)
    const accounts = JSON.parse((await cli(dir, ["accounts", "list", "--json"])).stdout)
    expect(accounts.map((a: { accountId: string }) => a.accountId)).toEqual([id])
  })

  test("into a folder that does not exist: one error line naming the folder, exit 1, nothing written", async () => {
    const missing = join(dir, "missing-dir")
    const res = await cli(dir, ["backup", join(missing, "x.db")])
    expect(res.code).toBe(1)
    expect(res.stdout).toBe("")
    expect(res.stderr).toBe(`error: the folder ${missing} does not exist; create it first or choose another path\n`)
    expect(existsSync(missing)).toBe(false)
  })

  test("onto an existing file: one error line, exit 1 (not a usage error), the file untouched", async () => {
    const target = join(dir, "taken.db")
    await Bun.write(target, "keep me")
    const res = await cli(dir, ["backup", target])
    expect(res.code).toBe(1)
    expect(res.stderr).toBe(`error: ${target} already exists; choose a new file name\n`)
    expect(await Bun.file(target).text()).toBe("keep me")
  })

  test("a file the system refuses to create: one error line with the reason, exit 1", async () => {
    // A name longer than the file system allows (255 bytes) fails the same way for root and everyone.
    const res = await cli(dir, ["backup", join(dir, `${"x".repeat(300)}.db`)])
    expect(res.code).toBe(1)
    expect(res.stdout).toBe("")
    expect(res.stderr).toMatch(/^error: cannot write the backup to .*x\.db \(ENAMETOOLONG\)\n$/)
  })
})
