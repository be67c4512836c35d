import { createApiKey, listApiKeys, revokeApiKey } from "../domain/api-keys"
import { apiKeyView } from "../domain/api-views"
import { CANONICAL_SCOPES } from "../domain/scopes"
import { toIso, toIsoOrNull } from "../lib/time"
import { parseArgs, UsageError } from "./args"
import { commandUsage, requireSubcommand } from "./commands"
import { printJson, table, withServices, type CliIo } from "./io"
import { suggester } from "./suggest"
import { selectAccount } from "./select-account"

/** `wagate keys …`: create, list and revoke API keys. */
export async function keysCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, new Set(["json"]))
  const [sub = "list", ...rest] = args.positionals
  requireSubcommand("keys", sub)
  return withServices(io, args.flags, async (services, config) => {
    const suggest = suggester(io, config.dataDir, config.databaseUrl)
    const ctx = services.ctx
    if (sub === "list") {
      const accountId = await selectAccount(services, args.flags.account, suggest)
      const keys = await listApiKeys(ctx, accountId)
      if (args.switches.has("json")) {
        printJson(io, keys.map(apiKeyView))
        return 0
      }
      io.stdout(
        table(
          ["ID", "NAME", "ENV", "KEY", "SCOPES", "CREATED", "LAST USED", "EXPIRES", "REVOKED"],
          keys.map((k) => [
            k.id,
            k.name,
            k.env,
            `${k.prefix}…${k.last4}`,
            k.scopes.join(","),
            toIso(k.createdAtMs),
            toIsoOrNull(k.lastUsedAtMs),
            toIsoOrNull(k.expiresAtMs),
            toIsoOrNull(k.revokedAtMs),
          ]),
        ),
      )
      return 0
    }
    if (sub === "create") {
      const accountId = await selectAccount(services, args.flags.account, suggest)
      const env = args.flags.env ?? "test"
      if (env !== "test" && env !== "live") throw new UsageError("--env must be test or live")
      const scopes = args.flags.scopes ? args.flags.scopes.split(",").map((s) => s.trim()).filter(Boolean) : [...CANONICAL_SCOPES]
      let expiresAtMs: number | null = null
      if (args.flags.expires !== undefined) {
        expiresAtMs = Date.parse(args.flags.expires)
        if (Number.isNaN(expiresAtMs)) throw new UsageError("--expires must be an ISO 8601 time, for example 2027-01-01T00:00:00Z")
      }
      const { row, key } = await createApiKey(ctx, { accountId, env, scopes, name: args.flags.name, expiresAtMs })
      io.stdout(
        `Created ${row.env} key ${row.id} (${row.name}) with scopes ${row.scopes.join(", ")}.\n` +
          `\n  ${key}\n\nStore it now: it is not shown again.\n`,
      )
      return 0
    }
    if (sub === "revoke") {
      const keyId = rest[0]
      if (!keyId) throw new UsageError("keys revoke needs a KEY_ID")
      const row = await revokeApiKey(ctx, keyId)
      io.stdout(`Revoked key ${row.id}; it is refused from its next request on.\n`)
      return 0
    }
    throw new UsageError(`Unknown keys command "${sub}"\n${commandUsage("keys")}`)
  })
}
