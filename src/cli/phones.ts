import { getAccount } from "../domain/accounts"
import { addPhone, listPhones, removePhone } from "../domain/phones"
import { toIso, toIsoOrNull } from "../lib/time"
import { parseArgs, UsageError } from "./args"
import { printJson, table, withServices, type CliIo } from "./io"
import { selectAccount } from "./select-account"

export const PHONES_USAGE = `wagate phones [list] [--account ACCOUNT_ID] [--json]
wagate phones add +E164 [--account ACCOUNT_ID] [--name DISPLAY_NAME]
wagate phones remove PHONE_ID|+E164`

/** `wagate phones …`: add, list and remove phones. */
export async function phonesCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, new Set(["json"]))
  const [sub = "list", ...rest] = args.positionals
  return withServices(io, args.flags, async (services) => {
    const ctx = services.ctx
    if (sub === "list") {
      // getAccount: a mistyped --account is an error, not an empty list.
      const phones = listPhones(ctx, getAccount(ctx, selectAccount(services, args.flags.account)).id)
      if (args.switches.has("json")) {
        printJson(io, phones)
        return 0
      }
      io.stdout(
        table(
          ["ID", "NUMBER", "NAME", "STATUS", "LAST CONNECTED", "CREATED"],
          phones.map((p) => [p.id, p.phoneNumber, p.displayName, p.connectionStatus, toIsoOrNull(p.lastConnectedAtMs), toIso(p.createdAtMs)]),
        ),
      )
      return 0
    }
    if (sub === "add") {
      const number = rest[0]
      if (!number) throw new UsageError("phones add needs a phone number in E.164 form, for example +14155550123")
      const phone = await addPhone(ctx, selectAccount(services, args.flags.account), number, args.flags.name)
      io.stdout(
        `Added phone ${phone.id} (${phone.phoneNumber}), status ${phone.connectionStatus}.\n` +
          `Test keys can send from it now: fromPhoneId "${phone.phoneNumber}".\n`,
      )
      return 0
    }
    if (sub === "remove") {
      const ref = rest[0]
      if (!ref) throw new UsageError("phones remove needs a PHONE_ID or +E164 number")
      const phone = await removePhone(ctx, ref)
      io.stdout(`Removed phone ${phone.id} (${phone.phoneNumber}); its messages are kept.\n`)
      return 0
    }
    throw new UsageError(`Unknown phones command "${sub}"\n${PHONES_USAGE}`)
  })
}
