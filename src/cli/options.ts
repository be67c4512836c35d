import { closestWord } from "../lib/closest-word"
import { UsageError } from "./args"
import { ownAndDataDirOptions, usageLines, type CommandSpec, type OptionHelp } from "./commands"

/*
 * A misspelt option used to be read as an option nobody looked at: `serve --hots 127.0.0.1`
 * listened on every interface. The options a command takes are the ones its help lists (the
 * command table, plus the data directory's and the server's settings), so the check is made
 * from the same table before the command's module is loaded: a new command is covered as soon
 * as it is in the table, and a refused command line opens nothing. It loads nothing but the
 * table, so `wagate version` stays as quick to start as before; the settings' names are passed
 * in, and only for a command that takes them.
 */

/** `--json` is a switch; `--account ACCOUNT_ID` takes a value. */
function optionName(option: OptionHelp): { name: string; switch: boolean } {
  const [flag = "", value] = option.flag.split(" ")
  return { name: flag.replace(/^--/, ""), switch: value === undefined }
}

/** What a command line holds, as typed: its options (`--name`, `--name=value`, `-x`) and its other words, up to a `--`. */
function scan(argv: readonly string[], valueOptions: ReadonlySet<string>): { typed: { name: string; shown: string }[]; words: string[] } {
  const typed: { name: string; shown: string }[] = []
  const words: string[] = []
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === "--") break
    if (arg.startsWith("--")) {
      const name = arg.slice(2).split("=")[0]!
      typed.push({ name, shown: `--${name}` })
      // A value option's next word is its value, even when it starts with a dash (`--rate-limit -1`).
      if (!arg.includes("=") && valueOptions.has(name)) i++
    } else if (/^-[A-Za-z]/.test(arg)) typed.push({ name: arg.slice(1), shown: arg })
    else words.push(arg)
  }
  return { typed, words }
}

/** The options `command` takes on this command line: its subcommand's when it names one, else any of them. */
function allowedOptions(
  command: CommandSpec,
  argv: readonly string[],
  settings: readonly string[],
): { names: string[]; typed: { name: string; shown: string }[]; usage: string } {
  const subs = command.subcommands ?? []
  const options = (own: readonly OptionHelp[]) => [...ownAndDataDirOptions(command, own).map(optionName), ...settings.map((name) => ({ name, switch: false }))]
  const every = options([...(command.options ?? []), ...subs.flatMap((s) => s.options)])
  const { typed, words } = scan(argv, new Set(every.filter((o) => !o.switch).map((o) => o.name)))
  const sub = subs.find((s) => s.name === (words[0] ?? "list"))
  const own = sub ? options(sub.options) : every
  return { names: [...new Set(own.map((o) => o.name))], typed, usage: sub ? sub.usage : usageLines(command).join("\n") }
}

/**
 * Refuses, as wrong usage, the first option `command` does not take, naming the closest one it
 * does: "unknown option --hots; did you mean --host?". `settings` are the server settings'
 * flag names, for a command that takes them (`takesSettings`), else none.
 */
export function refuseUnknownOptions(command: CommandSpec, argv: readonly string[], settings: readonly string[] = []): void {
  const allowed = allowedOptions(command, argv, settings)
  for (const typed of allowed.typed) {
    if (allowed.names.includes(typed.name)) continue
    const closest = closestWord(typed.name, allowed.names)
    const hint = closest !== null ? `; did you mean --${closest}?` : allowed.names.length === 0 ? `; ${command.name} takes no option` : ""
    throw new UsageError(`unknown option ${typed.shown}${hint}\n${allowed.usage}`)
  }
}
