import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { existsSync } from "node:fs"
import { join } from "node:path"
import { COMMANDS, type CommandSpec, type OptionHelp } from "../../src/cli/commands"
import { commandOptions } from "../../src/cli/help"
import { refuseUnknownOptions } from "../../src/cli/options"
import { SETTINGS } from "../../src/config"
import { cli, makeDataDir, removeDataDir } from "./run-cli"

let dir: string
let neverCreated: string
beforeEach(() => {
  dir = makeDataDir()
  neverCreated = join(dir, "never-created")
})
afterEach(() => removeDataDir(dir))

/** Every command and subcommand from the CLI's own table, with the options its help lists: a new command is covered as soon as it is in the table. */
const CASES: { name: string; argv: string[]; command: CommandSpec; options: OptionHelp[] }[] = COMMANDS.flatMap((command) =>
  command.subcommands
    ? command.subcommands.map((sub) => ({ name: `${command.name} ${sub.name}`, argv: [command.name, sub.name], command, options: commandOptions(command, sub.options) }))
    : [{ name: command.name, argv: [command.name], command, options: commandOptions(command, command.options ?? []) }],
)

/** `--account ACCOUNT_ID` → `account`, and whether it takes a value. */
function parts(option: OptionHelp): { name: string; takesValue: boolean } {
  const [flag = "", value] = option.flag.split(" ")
  return { name: flag.slice(2), takesValue: value !== undefined }
}

/** The option with its first two letters swapped, as a typist would misspell it: `--acount`-like. */
function misspelt(name: string): string {
  return `${name[1]}${name[0]}${name.slice(2)}`
}

const MISSPELLINGS = CASES.flatMap((c) =>
  c.options.map(parts).map(({ name, takesValue }) => ({ ...c, option: name, typed: [`--${misspelt(name)}`, ...(takesValue ? ["x"] : [])], label: `${c.name} --${misspelt(name)}` })),
)

describe("every command refuses an option it does not take, naming the closest one", () => {
  test("the table covers every command, and every subcommand of the commands that have some", () => {
    const names = CASES.map((c) => c.name)
    for (const command of COMMANDS) {
      if (command.subcommands) for (const sub of command.subcommands) expect(names).toContain(`${command.name} ${sub.name}`)
      else expect(names).toContain(command.name)
    }
    expect(MISSPELLINGS.length).toBeGreaterThan(CASES.length)
  })

  test.each(MISSPELLINGS)("wagate $label exits 2 with the option it meant, and touches no data directory", async ({ argv, typed, option }) => {
    const res = await cli(neverCreated, [...argv, ...typed])
    expect(res.code).toBe(2)
    expect(res.stderr).toStartWith(`error: unknown option ${typed[0]}; did you mean --${option}?\n`)
    expect(res.stderr).toContain("Run `wagate help` for usage.")
    expect(res.stdout).toBe("")
    expect(existsSync(neverCreated)).toBe(false)
  })

  test.each(CASES)("wagate $name refuses an option no command has, with its usage", async ({ argv, options }) => {
    const res = await cli(neverCreated, [...argv, "--frobnicate"])
    expect(res.code).toBe(2)
    expect(res.stderr).toStartWith(`error: unknown option --frobnicate${options.length === 0 ? `; ${argv[0]} takes no option` : ""}\n`)
    expect(existsSync(neverCreated)).toBe(false)
  })

  test.each(CASES)("wagate $name accepts every option its help lists", ({ argv, command, options }) => {
    const settings = command.takesSettings ? SETTINGS.map((s) => s.flag) : []
    for (const { name, takesValue } of options.map(parts)) {
      expect(() => refuseUnknownOptions(command, [...argv.slice(1), `--${name}`, ...(takesValue ? ["x"] : [])], settings)).not.toThrow()
      if (takesValue) expect(() => refuseUnknownOptions(command, [...argv.slice(1), `--${name}=x`], settings)).not.toThrow()
    }
  })
})

describe("what a new user mistyped", () => {
  test.each([
    [["serve", "--hots", "127.0.0.1"], "unknown option --hots; did you mean --host?"],
    [["--prot", "3000"], "unknown option --prot; did you mean --port?"],
    [["phones", "list", "--acount", "x"], "unknown option --acount; did you mean --account?"],
    [["keys", "create", "--scope=messages:send"], "unknown option --scope; did you mean --scopes?"],
    [["accounts", "update", "acc_1", "--rate", "5"], "unknown option --rate; did you mean --rate-limit?"],
    [["phones", "add", "+14155550123", "--json"], "unknown option --json\nwagate phones add +E164"],
    [["serve", "-p", "3000"], "unknown option -p\n"],
  ])("wagate %p is refused: %s", async (argv, message) => {
    const res = await cli(neverCreated, argv)
    expect(res.code).toBe(2)
    expect(res.stderr).toStartWith(`error: ${message}`)
    expect(existsSync(neverCreated)).toBe(false)
  })

  test("a value that starts with a dash is the option's value, not an option, and words after -- are never options", () => {
    const accounts = COMMANDS.find((c) => c.name === "accounts")!
    expect(() => refuseUnknownOptions(accounts, ["update", "acc_1", "--name", "-x-"])).not.toThrow()
    expect(() => refuseUnknownOptions(accounts, ["update", "acc_1", "--", "--anything"])).not.toThrow()
  })
})
