import { resolve } from "node:path"
import { DEFAULT_DATA_DIR } from "../config"
import type { CliIo } from "./io"
import { shellWord } from "./invocation"

/** Writes the words of a wagate command for the user to run next. */
export type Suggest = (words: string) => string

/**
 * How to write the commands wagate suggests so that they work as printed: started the way the
 * user started it (`bun src/main.ts`, `./dist/wagate`, `wagate`), with `--data DIR` unless the
 * data directory is the default `./data` of the working directory, and on PostgreSQL with the
 * database (DATABASE_FLAG). Under systemd the directory comes from WAGATE_DATA_DIR, which the
 * operator's shell does not have: without the flag a pasted command would create a stray
 * `./data` where it is run.
 */
export function suggester(io: CliIo, dataDir: string, databaseUrl: string | null = null): Suggest {
  const program = io.invocation ?? "wagate"
  const dataFlag = dataDir === resolve(DEFAULT_DATA_DIR) ? "" : ` --data ${shellWord(dataDir)}`
  return (words) => `${program} ${words}${dataFlag}${databaseUrl === null ? "" : DATABASE_FLAG}`
}

/**
 * On PostgreSQL a suggested command names the database too: without it, it would open (and
 * create) SQLite in the data directory. The URL carries the password, so the command reads it
 * from the variable; an empty one is refused (loadConfig), never taken as "no database".
 */
export const DATABASE_FLAG = ' --database-url "$WAGATE_DATABASE_URL"'
