import { resetAdminToken } from "../domain/admin"
import { latestSchemaVersion, schemaVersion } from "../store/db"
import { VERSION } from "../version"
import { parseArgs, UsageError } from "./args"
import { withServices, type CliIo } from "./io"

/** `wagate version` */
export function versionCommand(io: CliIo): number {
  io.stdout(`wagate ${VERSION} (schema ${latestSchemaVersion()}, bun ${Bun.version})\n`)
  return 0
}

/** `wagate migrate`: applies pending migrations (serve also does this at start). */
export async function migrateCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, new Set())
  return withServices(io, args.flags, (services) => {
    io.stdout(`Database schema is at version ${schemaVersion(services.db)} (latest known: ${latestSchemaVersion()}).\n`)
    return 0
  })
}

/** `wagate admin-token reset`: replaces the stored admin token and prints the new one once. */
export async function adminTokenCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, new Set())
  if (args.positionals[0] !== "reset") throw new UsageError("usage: wagate admin-token reset")
  return withServices(io, args.flags, async (services, config) => {
    const token = await resetAdminToken(services.ctx)
    io.stdout(`New admin token (shown only now):\n\n  ${token}\n\n`)
    if (config.adminToken !== null) io.stdout("Note: WAGATE_ADMIN_TOKEN is set and takes precedence over the stored token.\n")
    return 0
  })
}
