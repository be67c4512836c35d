import { join } from "node:path"
import { loadConfig } from "../config"
import { lastErrorOf } from "../domain/connection-errors"
import { findPhoneAnywhere } from "../domain/phones"
import { systemClock } from "../lib/clock"
import { liveLockOwner, LOCK_FILE } from "../lib/lockfile"
import { boundedOutsideText } from "../lib/outside-text"
import { isoDay, toIso } from "../lib/time"
import { type PhoneRow } from "../store/phones"
import type { Store } from "../store/store"
import { parseArgs, UsageError } from "./args"
import { commandUsage } from "./commands"
import { fail, networkChecks, ok, skip, type CheckResult } from "./doctor-checks"
import { printJson, withServices, type CliIo } from "./io"
import { suggester, type Suggest } from "./suggest"

/**
 * `wagate doctor [PHONE_ID|+E164]`: checks in one run what a first live send needs
 * (docs/live-whatsapp.md § "Check this host: wagate doctor"): DNS, TLS and the clock against
 * WhatsApp's host, the WhatsApp Web version lookup, and each phone's state and last error from
 * the store. Every failing check prints one sentence that says what to do; the exit code is 1
 * when any check fails.
 */
export async function doctorCommand(argv: string[], io: CliIo): Promise<number> {
  const args = parseArgs(argv, new Set(["json"]))
  if (args.positionals.length > 1) throw new UsageError(`doctor takes at most one phone\n${commandUsage("doctor")}`)
  const ref = args.positionals[0]
  const config = loadConfig(io.env, args.flags)
  const clock = io.clock ?? systemClock()
  const suggest = suggester(io, config.dataDir, config.databaseUrl)
  // The phones first: a mistyped phone is reported before any network wait.
  const { phones, liveAccounts } = await withServices(io, args.flags, async ({ ctx }) => {
    const phones = ref === undefined ? await ctx.store.listAllPhones() : [await findPhoneAnywhere(ctx, ref)]
    return { phones, liveAccounts: await accountsWithLiveKeys(ctx.store, phones, clock.nowMs()) }
  })
  const net = io.doctorNet ?? (await import("../doctor-net")).productionDoctorNet(config)
  const results = [
    ...(await networkChecks({ net, clock, wsUrl: config.waWsUrl, waVersion: config.waVersion, connectTimeoutMs: config.waConnectTimeoutMs })),
    serverCheck(config.dataDir, suggest),
    ...phoneChecks(phones, liveAccounts, suggest, clock.nowMs()),
  ]
  if (args.switches.has("json")) printJson(io, results)
  else io.stdout(report(config.waWsUrl, config.dataDir, results))
  return results.some((r) => r.status === "fail") ? 1 : 0
}

/**
 * Whether a server owns the data directory: phones are online only while one runs. Without one
 * the check is skipped rather than failed, because a CLI in another PID namespace (a second
 * container on the same volume) cannot see the server's process.
 */
function serverCheck(dataDir: string, suggest: Suggest): CheckResult {
  const owner = liveLockOwner(join(dataDir, LOCK_FILE))
  if (owner) return ok("server", `wagate serve (pid ${owner.pid}${owner.port !== null ? `, port ${owner.port}` : ""}) owns this data directory and keeps its phones online`)
  return skip("server", `no wagate server runs on this data directory: phones are online only while \`${suggest("serve")}\` runs`)
}

/** The accounts of `phones` that have a live key that still works (not revoked, not expired). */
async function accountsWithLiveKeys(store: Store, phones: readonly PhoneRow[], nowMs: number): Promise<Set<string>> {
  const live = new Set<string>()
  for (const accountId of new Set(phones.map((p) => p.accountId))) {
    const keys = await store.listApiKeys(accountId)
    if (keys.some((k) => k.env === "live" && k.revokedAtMs === null && (k.expiresAtMs === null || k.expiresAtMs > nowMs))) live.add(accountId)
  }
  return live
}

/** One check per phone (and one per announced client expiry), or one that says there is none yet. */
function phoneChecks(phones: readonly PhoneRow[], liveAccounts: ReadonlySet<string>, suggest: Suggest, nowMs: number): CheckResult[] {
  if (phones.length === 0) return [skip("phone", `no phone yet: add one with \`${suggest("phones add +E164")}\``)]
  return phones.flatMap((phone) => {
    const check = phoneCheck(phone, suggest, { testOnly: !liveAccounts.has(phone.accountId) })
    const expiry = expiryCheck(phone, nowMs)
    return expiry ? [check, expiry] : [check]
  })
}

/** Fails this long before an announced expiry: time enough to upgrade wagate or pin a version. */
const EXPIRY_WARNING_MS = 7 * 86_400_000

/**
 * The expiry WhatsApp announced for the version the phone's last connect announced
 * (docs/live-whatsapp.md § "Client expiration"), or null when it announced none. A notice, so it
 * fails only when the date is near or past: then connects are refused with 405.
 */
function expiryCheck(phone: PhoneRow, nowMs: number): CheckResult | null {
  if (phone.clientExpiresAtMs === null) return null
  const version = phone.waVersion ? ` (WhatsApp Web ${phone.waVersion})` : ""
  const found = `${phone.phoneNumber}: WhatsApp says this client version${version} expires on ${isoDay(phone.clientExpiresAtMs)}`
  const action = "Upgrade wagate, or set WAGATE_WA_VERSION to the version web.whatsapp.com shows in a browser, before then."
  if (phone.clientExpiresAtMs - nowMs <= EXPIRY_WARNING_MS) return fail("expiry", found, action)
  return ok("expiry", `${found}; upgrade wagate or set WAGATE_WA_VERSION before then`)
}

/**
 * A phone's state and last error as the store has them; anything but connected fails with what
 * to do, except a phone never paired whose account has no working live key (`testOnly`): test
 * keys send from it without pairing, so a sandbox-only setup is healthy.
 */
export function phoneCheck(phone: PhoneRow, suggest: Suggest, use: { testOnly: boolean } = { testOnly: false }): CheckResult {
  const number = phone.phoneNumber
  const status = phone.connectionStatus
  const lastError = lastErrorOf(phone)
  // The stored sentence names a network error or WhatsApp's close reason: outside text.
  const error = lastError && `; last error ${lastError.code} at ${toIso(lastError.atMs)}: ${boundedOutsideText(lastError.message)}`
  const watchdog = watchdogNote(phone)
  const found = `${number} (${phone.id}) is ${status}${error ?? ""}${watchdog}`
  const pair = `\`${suggest(`phones pair ${number}`)}\``
  const announced = phone.waVersion ? `, announcing WhatsApp Web ${phone.waVersion}` : ""
  if (status === "connected") return ok("phone", `${number} (${phone.id}) is connected${phone.lastConnectedAtMs ? ` since ${toIso(phone.lastConnectedAtMs)}` : ""}${announced}${watchdog}`)
  // Pairing again at once meets the same gate: the generic "pair it" would send the operator in a loop.
  if (lastError?.code === "passkey_required") return fail("phone", found, passkeyAction(number, pair))
  if (status === "unpaired" && !lastError && use.testOnly) {
    return ok("phone", `${found}, which is fine for test keys: they send from it without pairing, and its account has no live key; pair it with ${pair} before a live key sends from it`)
  }
  if (status === "unpaired" || status === "logged_out") return fail("phone", found, `Pair it with ${pair} and scan the QR code with WhatsApp on ${number}.`)
  if (lastError) return fail("phone", found, `Do what the last error says, then connect it again with ${pair}.`)
  if (status === "disconnected") return fail("phone", found, `Connect it again with ${pair}, which logs in with its stored credentials.`)
  return ok("phone", `${found}: a pairing or login is under way`)
}

/** What to do about WhatsApp's passkey gate on linking (docs/live-whatsapp.md § "Passkey-gated linking"). */
function passkeyAction(number: string, pair: string): string {
  return `WhatsApp asks for a passkey to link a device to ${number}, which wagate cannot give: cancel the prompt on the phone and try ${pair} again later; a pairing code meets the same check (docs/live-whatsapp.md § "Passkey-gated linking").`
}

/**
 * When WhatsApp's end-of-offline-queue marker last failed to come after a login and wagate's
 * watchdog released the held inbound messages instead (docs/live-whatsapp.md § "Receiving stalls").
 */
function watchdogNote(phone: PhoneRow): string {
  if (phone.offlineWatchdogAtMs === null) return ""
  return `; at ${toIso(phone.offlineWatchdogAtMs)} WhatsApp's offline marker did not come after login and wagate's watchdog released the held inbound messages`
}

const MARK: Record<CheckResult["status"], string> = { ok: "ok  ", fail: "FAIL", skip: "skip" }

/** The report: one line per check, the sentence of what to do under each failure, and a summary. */
function report(wsUrl: string, dataDir: string, results: readonly CheckResult[]): string {
  const width = Math.max(...results.map((r) => r.name.length))
  const lines = results.flatMap((r) => {
    const line = `  ${MARK[r.status]}  ${r.name.padEnd(width)}  ${r.detail}`
    return r.action ? [line, `${" ".repeat(width + 10)}→ ${r.action}`] : [line]
  })
  const failed = results.filter((r) => r.status === "fail").length
  const summary = failed === 0 ? `No check failed (${results.length} run).` : `${failed} of ${results.length} checks failed.`
  return `Checking the way to WhatsApp (${wsUrl}) and the phones in ${dataDir}:\n\n${lines.join("\n")}\n\n${summary}\n`
}
