import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { COMMANDS, DATA_OPTION, usageLines } from "../../src/cli/commands"
import { overview, SETTING_HELP } from "../../src/cli/help"
import { loadConfig, SETTINGS } from "../../src/config"
import { ALL_SCOPES, CANONICAL_SCOPES } from "../../src/lib/vocabulary"
import { cli, makeDataDir, removeDataDir } from "./run-cli"

let dir: string
let neverCreated: string
beforeEach(() => {
  dir = makeDataDir()
  neverCreated = join(dir, "never-created")
})
afterEach(() => removeDataDir(dir))

/** Every command and subcommand the CLI knows, from its own table, with the usage and options help must show. */
const CASES = COMMANDS.flatMap((command) => [
  { argv: [command.name], usage: usageLines(command), options: command.subcommands ? [] : (command.options ?? []).map((o) => o.flag) },
  ...(command.subcommands ?? []).map((sub) => ({ argv: [command.name, sub.name], usage: [sub.usage], options: sub.options.map((o) => o.flag) })),
])

describe("--help on every command and subcommand", () => {
  test("the table covers every command and the subcommands of accounts, keys, phones, webhooks and admin-token", () => {
    const names = CASES.map((c) => c.argv.join(" "))
    for (const expected of ["serve", "phones pair", "keys create", "webhooks deliveries", "admin-token reset", "backup", "version", "help"]) {
      expect(names).toContain(expected)
    }
  })

  test.each(CASES.flatMap((c) => ["--help", "-h"].map((flag) => ({ ...c, flag, name: `${c.argv.join(" ")} ${flag}` }))))(
    "wagate $name prints that command's usage and options, exits 0 and touches no data directory",
    async ({ argv, usage, options, flag }) => {
      const res = await cli(neverCreated, [...argv, flag])
      expect(res.stderr).toBe("")
      expect(res.code).toBe(0)
      for (const line of usage) expect(res.stdout).toContain(line)
      for (const option of options) expect(res.stdout).toContain(option)
      expect(res.stdout).not.toBe(overview())
      expect(existsSync(neverCreated)).toBe(false)
    },
  )

  test.each(CASES.map((c) => [c.argv.join(" "), c.argv] as const))("wagate help %s prints the same as --help", async (_name, argv) => {
    const viaFlag = await cli(neverCreated, [...argv, "--help"])
    const viaHelp = await cli(neverCreated, ["help", ...argv])
    expect(viaHelp.code).toBe(0)
    expect(viaHelp.stdout).toBe(viaFlag.stdout)
  })

  test("commands that use the data directory document --data; version and help do not", async () => {
    for (const command of COMMANDS) {
      const res = await cli(neverCreated, [command.name, "--help"])
      expect(res.stdout.includes(DATA_OPTION.flag)).toBe(command.usesDataDir)
    }
  })

  test("--help wins over the arguments around it: a subcommand's help with its arguments and options given", async () => {
    const pair = await cli(neverCreated, ["phones", "pair", "+14155550123", "--code", "--help"])
    expect(pair.code).toBe(0)
    expect(pair.stdout).toContain("wagate phones pair PHONE_ID|+E164 [--code]")
    expect(pair.stdout).toContain("--code")
    const create = await cli(neverCreated, ["keys", "--account", "acc_1", "create", "-h"])
    expect(create.stdout).toContain("wagate keys create")
    expect(create.stdout).not.toContain("wagate keys revoke")
  })

  test("serve --help lists every setting with its environment variable", async () => {
    const res = await cli(neverCreated, ["serve", "--help"])
    for (const setting of SETTINGS) {
      expect(res.stdout).toContain(`--${setting.flag} `)
      expect(res.stdout).toContain(`[${setting.env}]`)
    }
    // `wagate --port 4000` runs serve, so `wagate --port 4000 --help` is serve's help.
    expect((await cli(neverCreated, ["--port", "4000", "--help"])).stdout).toBe(res.stdout)
  })

  test("serve --help gives every option a description and a default", async () => {
    const res = await cli(neverCreated, ["serve", "--help"])
    for (const setting of SETTINGS) {
      const line = res.stdout.split("\n").find((l) => l.trimStart().startsWith(`--${setting.flag} `))!
      // "--flag VALUE  description (default X) [ENV]"
      expect(line).toMatch(new RegExp(`^  --${setting.flag} \\S+ +\\S.{10,} \\(default [^)]+\\) \\[${setting.env}\\]$`))
    }
  })

  test("each default serve --help states is the one the server applies", () => {
    const defaults = loadConfig({})
    for (const setting of SETTINGS) {
      const stated = SETTING_HELP[setting.flag]!.default
      // "none" and "none: …" name the absence of a value, which no flag can spell.
      if (stated.startsWith("none")) continue
      expect({ flag: setting.flag, value: loadConfig({}, { [setting.flag]: stated })[setting.key] }).toEqual({ flag: setting.flag, value: defaults[setting.key] })
    }
  })

  test("keys create --help lists every scope and the canonical default", async () => {
    const res = await cli(neverCreated, ["keys", "create", "--help"])
    for (const scope of ALL_SCOPES) expect(res.stdout).toContain(`\n  ${scope}\n`)
    expect(res.stdout).toContain(`Without --scopes a key gets the canonical ones: ${CANONICAL_SCOPES.join(", ")}.`)
  })

  test("a --help after `--` is an argument, not a request for help", async () => {
    const res = await cli(dir, ["phones", "add", "--", "--help"])
    expect(res.code).not.toBe(0)
    expect(res.stdout).not.toContain("Usage:")
  })

  test("help for an unknown command is a usage error", async () => {
    const res = await cli(neverCreated, ["frobnicate", "--help"])
    expect(res.code).toBe(2)
    expect(res.stderr).toBe('error: Unknown command "frobnicate"\nRun `wagate help` for usage.\n')
    expect(existsSync(neverCreated)).toBe(false)
  })
})

describe("a mistyped subcommand", () => {
  test.each(COMMANDS.filter((c) => c.subcommands && c.name !== "admin-token").map((c) => [c.name]))(
    "wagate %s frobnicate exits 2 with the command's usage and creates no data directory",
    async (name) => {
      const res = await cli(neverCreated, [name, "frobnicate"])
      expect(res.code).toBe(2)
      expect(res.stderr).toStartWith(`error: Unknown ${name} command "frobnicate"\n`)
      for (const line of usageLines(COMMANDS.find((c) => c.name === name)!)) expect(res.stderr).toContain(line)
      expect(existsSync(neverCreated)).toBe(false)
    },
  )
})
