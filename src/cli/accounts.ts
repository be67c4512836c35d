import { accountProfile, createAccount, listAccounts, updateAccount, type AccountPatch } from "../domain/accounts"
import { adminAccountView } from "../domain/api-views"
import { parseArgs, UsageError } from "./args"
import { commandUsage, requireSubcommand } from "./commands"
import { printJson, table, withServices, type CliIo } from "./io"
import { suggester } from "./suggest"

/** `wagate accounts …`: list, create and update accounts. */
export async function accountsCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, new Set(["json"]))
  const [sub = "list", ...rest] = args.positionals
  requireSubcommand("accounts", sub)
  return withServices(io, args.flags, async (services, config) => {
    const suggest = suggester(io, config.dataDir, config.databaseUrl)
    const ctx = services.ctx
    if (sub === "list") {
      const profiles = await Promise.all((await listAccounts(ctx)).map((a) => accountProfile(ctx, a.id)))
      if (args.switches.has("json")) {
        printJson(io, profiles.map(adminAccountView))
        return 0
      }
      io.stdout(
        table(
          ["ID", "NAME", "EMAIL", "SUBSCRIPTION", "RATE LIMIT", "KEYS", "PHONES", "MESSAGES"],
          profiles.map((p) => [
            p.account.id,
            p.account.name,
            p.account.email,
            p.account.subscriptionStatus,
            p.account.rateLimitPerMinute ?? "default",
            p.stats.apiKeys,
            p.stats.phoneNumbers,
            p.stats.messages,
          ]),
        ),
      )
      return 0
    }
    if (sub === "create") {
      const name = args.flags.name
      const email = args.flags.email
      if (!name || !email) throw new UsageError("accounts create needs --name and --email")
      const account = await createAccount(ctx, name, email)
      io.stdout(`Created account ${account.id} (${account.name}).\nNext: ${suggest(`keys create --account ${account.id} --env test`)}\n`)
      return 0
    }
    if (sub === "update") {
      const accountId = rest[0]
      if (!accountId) throw new UsageError("accounts update needs an ACCOUNT_ID")
      const patch: AccountPatch = {}
      if (args.flags.name !== undefined) patch.name = args.flags.name
      if (args.flags.email !== undefined) patch.email = args.flags.email
      const subscription = args.flags.subscription
      if (subscription !== undefined) {
        if (subscription !== "active" && subscription !== "inactive") throw new UsageError("--subscription must be active or inactive")
        patch.subscriptionStatus = subscription
      }
      const rateLimit = args.flags["rate-limit"]
      if (rateLimit !== undefined) {
        if (rateLimit === "default") patch.rateLimitPerMinute = null
        else if (/^[1-9]\d{0,6}$/.test(rateLimit)) patch.rateLimitPerMinute = Number(rateLimit)
        else throw new UsageError("--rate-limit must be a positive whole number or `default`")
      }
      const account = await updateAccount(ctx, accountId, patch)
      io.stdout(`Updated account ${account.id}: subscription ${account.subscriptionStatus}, rate limit ${account.rateLimitPerMinute ?? "default"}.\n`)
      return 0
    }
    throw new UsageError(`Unknown accounts command "${sub}"\n${commandUsage("accounts")}`)
  })
}
