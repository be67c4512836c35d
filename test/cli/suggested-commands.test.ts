import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { resolve } from "node:path"
import { runCli } from "../../src/cli/index"
import { suggester } from "../../src/cli/suggest"
import { cli, makeDataDir, NEVER, printedAccountId, removeDataDir } from "./run-cli"

/*
 * Every command wagate suggests works as printed (issue 19): it starts the way the user started
 * wagate, and carries --data unless the data directory is ./data of the working directory, so
 * pasted into another shell (one without WAGATE_DATA_DIR, as under systemd) it acts on the same
 * data.
 */

let dir: string
beforeEach(() => {
  dir = makeDataDir()
})
afterEach(() => removeDataDir(dir))

/** Runs a suggested command as a shell without WAGATE_DATA_DIR would: its words, nothing else. */
async function runAsPrinted(command: string, invocation: string): Promise<{ code: number; stdout: string; stderr: string }> {
  expect(command.startsWith(`${invocation} `)).toBe(true)
  // The data directories here hold no spaces or quotes, so the words split on spaces.
  const argv = command.slice(invocation.length + 1).split(" ")
  let stdout = ""
  let stderr = ""
  const code = await runCli(argv, { env: {}, stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), isTty: false, invocation }, NEVER)
  return { code, stdout, stderr }
}

describe("the commands wagate suggests", () => {
  test.each([
    ["the default ./data of the working directory", resolve("./data"), "wagate phones list"],
    ["another directory", "/var/lib/wagate", "wagate phones list --data /var/lib/wagate"],
    ["a directory with a space, quoted for the shell", "/srv/my data", "wagate phones list --data '/srv/my data'"],
  ])("carry --data unless it is the default: %s", (_name, dataDir, expected) => {
    expect(suggester({ env: {}, stdout: () => {}, stderr: () => {}, isTty: false }, dataDir)("phones list")).toBe(expected)
  })

  test("after accounts create, the next step names the command as run and the data directory, and works as printed", async () => {
    const invocation = "bun src/main.ts"
    const res = await cli(dir, ["accounts", "create", "--name", "Acme", "--email", "ops@acme.example"], { invocation })
    expect(res.code).toBe(0)
    const id = printedAccountId(res.stdout)
    const next = /^Next: (.*)$/m.exec(res.stdout)![1]!
    expect(next).toBe(`bun src/main.ts keys create --account ${id} --env test --data ${dir}`)
    const followed = await runAsPrinted(next, invocation)
    expect(followed.code).toBe(0)
    expect(followed.stdout).toMatch(/sk_test_/)
  })

  test("with no account yet, the hint names the command as run and the data directory, and works as printed", async () => {
    const invocation = "bun src/main.ts"
    const res = await cli(dir, ["keys", "create"], { invocation })
    expect(res.code).toBe(2)
    const hint = /run `([^`]+)`/.exec(res.stderr)![1]!
    expect(hint).toBe(`bun src/main.ts accounts create --name NAME --email EMAIL --data ${dir}`)
    const followed = await runAsPrinted(hint.replace("NAME", "Acme").replace("EMAIL", "ops@acme.example"), invocation)
    expect(followed.code).toBe(0)
    expect((await cli(dir, ["keys", "create"])).code).toBe(0)
  })

  test("after phones logout, the pairing hint names the command as run and the data directory", async () => {
    await cli(dir, ["accounts", "create", "--name", "Acme", "--email", "ops@acme.example"])
    expect((await cli(dir, ["phones", "add", "+14155550123"])).code).toBe(0)
    const res = await cli(dir, ["phones", "logout", "+14155550123"], { invocation: "./dist/wagate" })
    expect(res.code).toBe(0)
    expect(res.stdout).toContain(`pair it again with \`./dist/wagate phones pair +14155550123 --data ${dir}\``)
  })

  test("phones add with a bad number on a fresh data directory reports the number, not the missing account", async () => {
    const res = await cli(dir, ["phones", "add", "12345"])
    expect(res.code).toBe(1)
    expect(res.stderr).toBe("error: phoneNumber must be an E.164 number (+ and 8–15 digits)\n")
  })
})
