import { listAccounts } from "../domain/accounts"
import type { Services } from "../deps"
import { UsageError } from "./args"
import type { Suggest } from "./suggest"

/**
 * The account a command acts on: --account, or the only account when there is just one. The
 * commands it suggests are written by `suggest`, so they work as printed.
 */
export async function selectAccount(services: Services, flag: string | undefined, suggest: Suggest): Promise<string> {
  if (flag !== undefined) return flag
  const accounts = await listAccounts(services.ctx)
  if (accounts.length === 1) return accounts[0]!.id
  if (accounts.length === 0) throw new UsageError(`There is no account yet: run \`${suggest("accounts create --name NAME --email EMAIL")}\``)
  throw new UsageError(`There are ${accounts.length} accounts: pass --account (see \`${suggest("accounts list")}\`)`)
}
