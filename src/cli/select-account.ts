import { listAccounts } from "../domain/accounts"
import type { Services } from "../deps"
import { UsageError } from "./args"

/** The account a command acts on: --account, or the only account when there is just one. */
export function selectAccount(services: Services, flag: string | undefined): string {
  if (flag !== undefined) return flag
  const accounts = listAccounts(services.ctx)
  if (accounts.length === 1) return accounts[0]!.id
  if (accounts.length === 0) throw new UsageError("There is no account yet: run `wagate accounts create --name NAME --email EMAIL`")
  throw new UsageError(`There are ${accounts.length} accounts: pass --account (see \`wagate accounts list\`)`)
}
