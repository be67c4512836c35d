import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { existsSync } from "node:fs"
import { join } from "node:path"
import pkg from "../../package.json" with { type: "json" }
import { bunTooOld, isAtLeast, minimumVersion } from "../../src/cli/bun-version"
import { invocationOf } from "../../src/cli/invocation"
import { runCli } from "../../src/cli/index"
import { BUN_ENGINES } from "../../src/version"
import { makeDataDir, NEVER, removeDataDir } from "./run-cli"

describe("the Bun version check", () => {
  test.each([
    ["1.4.5", "1.4.5", true],
    ["1.4.6", "1.4.5", true],
    ["1.5.0", "1.4.5", true],
    ["2.0.0", "1.4.5", true],
    ["1.10.0", "1.4.5", true],
    ["1.4.4", "1.4.5", false],
    ["1.3.0", "1.4.5", false],
    ["0.9.9", "1.4.5", false],
    ["1.4.5-canary.12", "1.4.5", true],
    ["v1.4.5", "1.4.5", true],
    ["not a version", "1.4.5", false],
  ])("Bun %s satisfies >= %s: %p", (actual, minimum, expected) => {
    expect(isAtLeast(actual, minimum)).toBe(expected)
  })

  test("package.json's engines.bun is a range the check understands, and the check uses it", () => {
    expect(BUN_ENGINES).toBe(pkg.engines.bun)
    expect(minimumVersion(BUN_ENGINES)).toMatch(/^\d+\.\d+\.\d+$/)
    expect(bunTooOld(BUN_ENGINES, Bun.version)).toBeNull()
  })

  test("a too-old Bun gets one sentence naming both versions and the fix", () => {
    expect(bunTooOld(">=1.4.5", "1.3.0")).toBe("wagate needs Bun >= 1.4.5; this is Bun 1.3.0: upgrade with `bun upgrade`")
    expect(bunTooOld(">=1.4.5", "1.4.5")).toBeNull()
  })

  describe("serve", () => {
    let dir: string
    beforeEach(() => {
      dir = makeDataDir()
    })
    afterEach(() => removeDataDir(dir))

    test("refuses to start on a Bun older than engines.bun, exit 1, before touching the data directory", async () => {
      const dataDir = join(dir, "never-created")
      let stdout = ""
      let stderr = ""
      const code = await runCli(
        ["serve", "--port", "0", "--host", "127.0.0.1"],
        { env: { WAGATE_DATA_DIR: dataDir }, stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), isTty: false, bunVersion: "1.3.0" },
        NEVER,
      )
      expect(code).toBe(1)
      expect(stdout).toBe("")
      expect(stderr).toBe(`error: wagate needs Bun >= ${minimumVersion(BUN_ENGINES)}; this is Bun 1.3.0: upgrade with \`bun upgrade\`\n`)
      expect(existsSync(dataDir)).toBe(false)
    })

    test("refuses a WAGATE_ADMIN_TOKEN under 32 characters with one sentence saying how to make a good one, exit 1, before touching the data directory", async () => {
      const dataDir = join(dir, "never-created")
      let stdout = ""
      let stderr = ""
      const code = await runCli(
        ["serve", "--port", "0", "--host", "127.0.0.1"],
        { env: { WAGATE_DATA_DIR: dataDir, WAGATE_ADMIN_TOKEN: "x".repeat(31) }, stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), isTty: false },
        NEVER,
      )
      expect(code).toBe(1)
      expect(stdout).toBe("")
      expect(stderr).toBe("error: WAGATE_ADMIN_TOKEN must be at least 32 characters long (this one has 31): make a good one with `openssl rand -hex 32`\n")
      expect(existsSync(dataDir)).toBe(false)
    })
  })
})

describe("the command the user ran, for the commands wagate suggests", () => {
  test.each([
    ["from a checkout", "bun src/main.ts", { argv0: "bun", scriptPath: "/home/me/wagate/src/main.ts", cwd: "/home/me/wagate" }],
    ["from a checkout through bun's full path", "/usr/local/bin/bun src/main.ts", { argv0: "/usr/local/bin/bun", scriptPath: "/srv/wagate/src/main.ts", cwd: "/srv/wagate" }],
    ["from a checkout, in a subdirectory of it", "bun wagate/src/main.ts", { argv0: "bun", scriptPath: "/home/me/wagate/src/main.ts", cwd: "/home/me" }],
    ["from a checkout elsewhere", "bun /opt/wagate/src/main.ts", { argv0: "bun", scriptPath: "/opt/wagate/src/main.ts", cwd: "/home/me" }],
    ["the executable on the PATH", "wagate", { argv0: "wagate", scriptPath: "/$bunfs/root/wagate", cwd: "/home/me" }],
    ["the executable by relative path", "./dist/wagate", { argv0: "./dist/wagate", scriptPath: "/$bunfs/root/wagate", cwd: "/home/me/wagate" }],
    ["the executable by absolute path", "/usr/local/bin/wagate", { argv0: "/usr/local/bin/wagate", scriptPath: "/$bunfs/root/wagate", cwd: "/" }],
    ["the executable on Windows", "wagate.exe", { argv0: "wagate.exe", scriptPath: "B:/~BUN/root/wagate.exe", cwd: "C:/" }],
    ["a path with a space, quoted for the shell", "'/opt/my tools/wagate'", { argv0: "/opt/my tools/wagate", scriptPath: "/$bunfs/root/wagate", cwd: "/" }],
    ["no program name", "wagate", { argv0: "", scriptPath: "/$bunfs/root/wagate", cwd: "/" }],
  ])("%s: %s", (_name, expected, started) => {
    expect(invocationOf(started)).toBe(expected)
  })
})
