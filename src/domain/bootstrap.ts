import { type AccountRow } from "../store/accounts"
import { sha256Hex } from "../lib/secrets"
import { hasAdminToken, newAdminToken } from "./admin"
import { newAccount } from "./accounts"
import { newApiKey } from "./api-keys"
import type { DomainContext } from "./context"
import { CANONICAL_SCOPES } from "./scopes"

export const DEFAULT_ACCOUNT_NAME = "Default account"
export const DEFAULT_ACCOUNT_EMAIL = "owner@localhost"

/** What first-run setup created; secrets are present only here, once. */
export interface BootstrapResult {
  account: AccountRow | null
  sandboxKey: string | null
  adminToken: string | null
}

/**
 * First-run setup (docs/decisions.md § "Product shape"): on a data directory without accounts, creates the default
 * account and a sandbox key with every scope; generates an admin token unless one is configured
 * or stored. Runs in one transaction, so a crash leaves either all of it or none.
 */
export async function bootstrap(ctx: DomainContext): Promise<BootstrapResult> {
  const needsAccount = (await ctx.store.listAccounts()).length === 0
  const needsToken = !await hasAdminToken(ctx)
  if (!needsAccount && !needsToken) return { account: null, sandboxKey: null, adminToken: null }
  const account = needsAccount ? newAccount(ctx, DEFAULT_ACCOUNT_NAME, DEFAULT_ACCOUNT_EMAIL) : null
  const key = account
    ? newApiKey(ctx, { accountId: account.id, env: "test", scopes: [...CANONICAL_SCOPES], name: "Sandbox key" })
    : null
  const adminToken = needsToken ? newAdminToken() : null
  await ctx.store.write(async (q) => {
    if (account) await q.insertAccount(account)
    if (key) await q.insertApiKey(key.row)
    if (adminToken) await q.setSetting("admin_token_hash", sha256Hex(adminToken))
  }, { changed: ["accounts", "api_keys"] })
  return { account, sandboxKey: key?.key ?? null, adminToken }
}
