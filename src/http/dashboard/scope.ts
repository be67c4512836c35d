import { listAccounts } from "../../domain/accounts"
import type { DomainContext } from "../../domain/context"
import type { AccountRow } from "../../store/accounts"
import type { Environment } from "../../store/api-keys"

/**
 * What every page is scoped to, from the query string so a link can be shared: the account
 * (`?account=acc_…`, the first account when absent) and the environment (`?env=test|live`,
 * test when absent), so test and live data never share a list.
 */
export interface Scope {
  accounts: AccountRow[]
  /** Null only when the instance has no account yet (or the one asked for does not exist). */
  account: AccountRow | null
  /** True when `?account=` named an account that does not exist. */
  unknownAccount: boolean
  env: Environment
}

export async function resolveScope(ctx: DomainContext, url: URL): Promise<Scope> {
  const accounts = await listAccounts(ctx)
  const wanted = url.searchParams.get("account")
  const account = wanted ? (accounts.find((a) => a.id === wanted) ?? null) : (accounts[0] ?? null)
  const env: Environment = url.searchParams.get("env") === "live" ? "live" : "test"
  return { accounts, account, unknownAccount: wanted !== null && account === null, env }
}

/** The scope moved to a record's account and environment (a shared link to it needs neither). */
export function scopeAt(scope: Scope, accountId: string, env: Environment): Scope {
  return { ...scope, account: scope.accounts.find((a) => a.id === accountId) ?? scope.account, env, unknownAccount: false }
}

/**
 * A dashboard link that keeps the scope: `path` plus the account and environment, plus any
 * extra query parameters (nulls are left out).
 */
export function href(path: string, scope: Pick<Scope, "account" | "env">, extra: Record<string, string | null | undefined> = {}): string {
  const params = new URLSearchParams()
  if (scope.account) params.set("account", scope.account.id)
  params.set("env", scope.env)
  for (const [name, value] of Object.entries(extra)) if (value != null && value !== "") params.set(name, value)
  return `${path}?${params.toString()}`
}
