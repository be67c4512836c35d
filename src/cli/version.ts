import { latestSchemaVersion } from "../store/sqlite/db"
import { VERSION } from "../version"
import type { CliIo } from "./io"

/** `wagate version`: touches no data directory. */
export function versionCommand(_argv: string[], io: CliIo): number {
  io.stdout(`wagate ${VERSION} (schema ${latestSchemaVersion()}, bun ${io.bunVersion ?? Bun.version})\n`)
  return 0
}
