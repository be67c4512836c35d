import { isAbsolute, relative } from "node:path"

/** What main.ts knows about how this process was started. */
export interface StartedAs {
  /** The program name as the user typed it (process.argv0): `wagate`, `./dist/wagate`, `bun`. */
  argv0: string
  /** The entry script (process.argv[1]); inside the executable's own file system when compiled. */
  scriptPath: string | undefined
  cwd: string
}

/** Where `bun build --compile` places the entry script (Linux and macOS, then Windows). */
function isCompiledEntry(scriptPath: string): boolean {
  return scriptPath.startsWith("/$bunfs/") || /^[A-Z]:[\\/]~BUN[\\/]/i.test(scriptPath)
}

/** Quotes a word for a POSIX shell when it holds anything but safe characters. */
export function shellWord(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`
}

/**
 * The command prefix the user would type to run wagate again the same way, for the commands
 * wagate suggests: `wagate` or `./dist/wagate` for the executable (as typed), and `bun
 * src/main.ts` from a checkout (the script relative to the working directory when it lies
 * below it, else absolute).
 */
export function invocationOf(started: StartedAs): string {
  const program = started.argv0 === "" ? "wagate" : started.argv0
  if (started.scriptPath === undefined || isCompiledEntry(started.scriptPath)) return shellWord(program)
  const rel = relative(started.cwd, started.scriptPath)
  const script = rel === "" || rel.startsWith("..") || isAbsolute(rel) ? started.scriptPath : rel
  return `${shellWord(program)} ${shellWord(script)}`
}
