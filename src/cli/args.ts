/** A command line split into positionals and `--flag value` / `--flag=value` / `--switch` options. */
export interface ParsedArgs {
  positionals: string[]
  flags: Record<string, string>
  switches: Set<string>
}

/**
 * Parses argv. `booleanFlags` names the options that take no value; every other `--name` takes
 * the next argument (or the part after `=`).
 */
export function parseArgs(argv: readonly string[], booleanFlags: ReadonlySet<string>): ParsedArgs {
  const positionals: string[] = []
  const flags: Record<string, string> = {}
  const switches = new Set<string>()
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!
    if (arg === "--") {
      positionals.push(...argv.slice(i + 1))
      break
    }
    if (!arg.startsWith("--")) {
      positionals.push(arg)
      continue
    }
    const eq = arg.indexOf("=")
    const name = eq === -1 ? arg.slice(2) : arg.slice(2, eq)
    if (booleanFlags.has(name)) {
      switches.add(name)
    } else if (eq !== -1) {
      flags[name] = arg.slice(eq + 1)
    } else {
      const value = argv[i + 1]
      if (value === undefined) throw new UsageError(`--${name} needs a value`)
      flags[name] = value
      i++
    }
  }
  return { positionals, flags, switches }
}

/** A mistake in how a command was called; printed with a hint, exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = "UsageError"
  }
}
