import { getAccount } from "../domain/accounts"
import { adminPhoneView } from "../domain/api-views"
import { addPhone, findPhoneAnywhere, listPhones, removePhone, requireE164 } from "../domain/phones"
import { loadConfig } from "../config"
import { pairCommand } from "./pair"
import { adminCall, runningServer } from "./server-client"
import { toIso, toIsoOrNull } from "../lib/time"
import { parseArgs, UsageError } from "./args"
import { commandUsage, requireSubcommand } from "./commands"
import { printJson, table, withServices, type CliIo } from "./io"
import { suggester } from "./suggest"
import { selectAccount } from "./select-account"
import { callPolicyCommand } from "./call-policy"
import { historySettingsCommand } from "./history-settings"

/**
 * `wagate phones …`: add, list, pair, log out and remove phones. Commands that touch a live
 * connection go through the running server when one owns the data directory (it holds the
 * sockets); otherwise they act on the data directory directly.
 */
export async function phonesCommand(argv: string[], io: CliIo, stopSignal: Promise<string>): Promise<number> {
  if (argv[0] === "pair") return pairCommand(argv.slice(1), io, stopSignal)
  const args = parseArgs(argv, new Set(["json"]))
  const [sub = "list", ...rest] = args.positionals
  requireSubcommand("phones", sub)
  const server = runningServer(loadConfig(io.env, args.flags).dataDir)
  return withServices(io, args.flags, async (services, config) => {
    const suggest = suggester(io, config.dataDir, config.databaseUrl)
    const ctx = services.ctx
    if (sub === "list") {
      // getAccount: a mistyped --account is an error, not an empty list.
      const phones = await listPhones(ctx, (await getAccount(ctx, await selectAccount(services, args.flags.account, suggest))).id)
      if (args.switches.has("json")) {
        printJson(io, phones.map(adminPhoneView))
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
      // The number is checked before the account is chosen: a bad number is reported first.
      requireE164(number)
      const phone = await addPhone(ctx, await selectAccount(services, args.flags.account, suggest), number, args.flags.name)
      io.stdout(
        `Added phone ${phone.id} (${phone.phoneNumber}), status ${phone.connectionStatus}.\n` +
          `Test keys can send from it now: fromPhoneId "${phone.phoneNumber}".\n`,
      )
      return 0
    }
    if (sub === "remove" || sub === "logout") {
      const ref = rest[0]
      if (!ref) throw new UsageError(`phones ${sub} needs a PHONE_ID or +E164 number`)
      const phone = await findPhoneAnywhere(ctx, ref)
      if (server) {
        const res = await adminCall(server, sub === "remove" ? "DELETE" : "POST", sub === "remove" ? `/phones/${phone.id}` : `/phones/${phone.id}/logout`)
        if (res.status !== 200) {
          io.stderr(`error: ${res.body.message?.join("; ") ?? `the server answered ${res.status}`}\n`)
          return 1
        }
      } else {
        // No server holds a socket: wipe the credentials here (the phone may still list the device
        // under Linked devices until it is removed there) and fail queued sends.
        if (sub === "remove") {
          await services.sessions.forget(phone.id)
          await removePhone(ctx, phone.id)
        } else {
          await services.sessions.logout(phone.id)
        }
      }
      io.stdout(
        sub === "remove"
          ? `Removed phone ${phone.id} (${phone.phoneNumber}); its messages are kept.\n`
          : `Logged out ${phone.phoneNumber}: its credentials are wiped; pair it again with \`${suggest(`phones pair ${phone.phoneNumber}`)}\`.\n`,
      )
      return 0
    }
    if (sub === "call-policy") return callPolicyCommand(ctx, args, io)
    if (sub === "history") return historySettingsCommand(ctx, args, io)
    if (sub === "disconnect") {
      const ref = rest[0]
      if (!ref) throw new UsageError("phones disconnect needs a PHONE_ID or +E164 number")
      const phone = await findPhoneAnywhere(ctx, ref)
      let status: string
      if (server) {
        const res = await adminCall(server, "POST", `/phones/${phone.id}/disconnect`)
        if (res.status !== 200) {
          io.stderr(`error: ${res.body.message?.join("; ") ?? `the server answered ${res.status}`}\n`)
          return 1
        }
        status = res.body.data.connectionStatus
      } else {
        status = (await services.sessions.disconnect(phone.id)).connectionStatus
      }
      io.stdout(`Disconnected ${phone.phoneNumber}: it is ${status}.\n`)
      return 0
    }
    throw new UsageError(`Unknown phones command "${sub}"\n${commandUsage("phones")}`)
  })
}
