import { UsageError } from "./args"
import { findCommand, type CommandSpec } from "./commands"
import type { CliIo } from "./io"

/*
 * Keep this module's imports light: it runs for every command, `wagate version` included, and
 * each command's module (and with it the server, the store and the domain) is loaded from the
 * command table only when that command runs.
 */

/** Whether the command line asks for help: `--help` or `-h` anywhere before a `--`. */
function asksForHelp(argv: readonly string[]): boolean {
  const end = argv.indexOf("--")
  return (end === -1 ? argv : argv.slice(0, end)).some((a) => a === "--help" || a === "-h")
}

/** The command to run and its arguments; `wagate --port 4000` means `wagate serve --port 4000`. */
function resolveCommand(argv: readonly string[]): { command: CommandSpec; args: string[] } {
  const [name = "serve", ...rest] = argv
  if (name === "--version") return { command: findCommand("version")!, args: rest }
  const command = findCommand(name)
  if (command) return { command, args: rest }
  if (name.startsWith("--")) return { command: findCommand("serve")!, args: [...argv] }
  throw new UsageError(`Unknown command "${name}"`)
}

/**
 * Runs one command and returns its exit code: 0 success, 1 failure, 2 wrong usage. Expected
 * failures print one clear line; nothing here calls process.exit, so tests run it in-process.
 */
export async function runCli(argv: string[], io: CliIo, stopSignal: Promise<string>): Promise<number> {
  try {
    if (asksForHelp(argv)) {
      const { helpFor } = await import("./help")
      // `wagate --port 4000 --help` asks about serve, like `wagate --port 4000` runs it.
      const words = argv[0]?.startsWith("--") && argv[0] !== "--help" ? ["serve"] : argv.filter((a) => !a.startsWith("-"))
      io.stdout(helpFor(words))
      return 0
    }
    const { command, args } = resolveCommand(argv)
    const { refuseUnknownOptions } = await import("./options")
    refuseUnknownOptions(command, args, command.takesSettings ? (await import("../config")).SETTINGS.map((s) => s.flag) : [])
    const run = await command.load()
    return await run(args, io, stopSignal)
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`error: ${err.message}\nRun \`${io.invocation ?? "wagate"} help\` for usage.\n`)
      return 2
    }
    // Loaded only on failure, so that a command that succeeds never loads what it did not use.
    const { expectedFailureMessage } = await import("./failures")
    const message = expectedFailureMessage(err)
    if (message === null) throw err
    io.stderr(`error: ${message}\n`)
    return 1
  }
}
