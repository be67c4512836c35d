import { loadConfig } from "../config"
import type { PairingState } from "../domain/sessions"
import { findPhoneAnywhere } from "../domain/phones"
import { holdEventLoop } from "../lib/event-loop"
import { toIso } from "../lib/time"
import { parseArgs, UsageError } from "./args"
import { subcommandUsage } from "./commands"
import type { Services } from "../deps"
import type { PhoneRow } from "../store/phones"
import { withServices, type CliIo } from "./io"
import { suggester, type Suggest } from "./suggest"
import { adminCall, runningServer, type RunningServer } from "./server-client"
import type { PairingMethod } from "../lib/vocabulary"

export const PAIR_USAGE = subcommandUsage("phones", "pair")

/**
 * Renders a QR string as terminal blocks. qrcode-terminal is imported on the first QR, so a
 * `serve` that never shows one (no terminal, or nothing to pair) does not load it.
 */
export async function renderQr(qr: string): Promise<string> {
  const { default: qrcode } = await import("qrcode-terminal")
  return new Promise((resolve) => qrcode.generate(qr, { small: true }, resolve))
}

/** A pairing state as the admin API shows it, which both ways of pairing print from. */
interface ShownState {
  connectionStatus: string
  qr: string | null
  pairingCode: string | null
  lastError: { code: string; message: string; at: string } | null
  waVersion: string | null
}

/** What the loop printed last, so each QR, code and failure is printed once. */
interface Printed {
  waVersion: string | null
  qr: string | null
  code: string | null
  failure: string | null
}

/** The statuses that end the wait: paired, or given up (docs/live-whatsapp.md § "Pairing give-up rules"). */
const FINAL_STATUSES: ReadonlySet<string> = new Set(["connected", "unpaired", "logged_out"])

/** The domain's pairing state in the admin API's shape. */
function shown(state: PairingState): ShownState {
  const { connectionStatus, qr, pairingCode, lastError, waVersion } = state
  return {
    connectionStatus,
    qr,
    pairingCode,
    lastError: lastError && { code: lastError.code, message: lastError.message, at: toIso(lastError.atMs) },
    waVersion,
  }
}

/** What the pairing loop prints, whichever way it talks to the session manager. */
async function showState(io: CliIo, state: ShownState, last: Printed, phoneNumber: string) {
  if (state.waVersion && state.waVersion !== last.waVersion) {
    last.waVersion = state.waVersion
    io.stdout(`Connecting to WhatsApp as WhatsApp Web ${state.waVersion}…\n`)
  }
  const failure = state.lastError && `${state.lastError.at} ${state.lastError.code}`
  // A failure that ends the pairing is printed once, by finish(), as the reason it stopped.
  if (state.lastError && failure !== last.failure && !FINAL_STATUSES.has(state.connectionStatus)) {
    last.failure = failure
    io.stderr(`Attempt failed (${state.lastError.code}): ${state.lastError.message} Trying again.\n`)
  }
  if (state.qr && state.qr !== last.qr) {
    last.qr = state.qr
    io.stdout(`\nScan this with WhatsApp on ${phoneNumber}: Settings › Linked devices › Link a device\n\n${await renderQr(state.qr)}\n`)
  }
  if (state.pairingCode && state.pairingCode !== last.code) {
    last.code = state.pairingCode
    io.stdout(
      `\nOn the phone ${phoneNumber}: WhatsApp › Settings › Linked devices › Link a device › Link with phone number instead, and type:\n\n  ${state.pairingCode}\n\n`,
    )
  }
}

/**
 * `wagate phones pair`: pairs a phone, showing the QR (qrcode-terminal) or the pairing code.
 * Through the running server when one owns the data directory (it then keeps the phone
 * connected); otherwise in this process, which stores the credentials and exits once paired.
 */
export async function pairCommand(argv: string[], io: CliIo, stopSignal: Promise<string>): Promise<number> {
  const args = parseArgs(argv, new Set(["code"]))
  const ref = args.positionals[0]
  if (!ref) throw new UsageError(`phones pair needs a phone\n${PAIR_USAGE}`)
  const method = args.switches.has("code") ? "code" : "qr"
  const config = loadConfig(io.env, args.flags)
  const server = runningServer(config.dataDir)
  // The command prints each failure itself: its log says only errors unless asked for more.
  const flags = args.flags["log-level"] === undefined && !io.env.WAGATE_LOG_LEVEL ? { ...args.flags, "log-level": "error" } : args.flags
  // Between connect attempts, and while the socket closes at the end, only wagate's unref'd
  // timers are pending: the command holds the event loop open until it is done.
  const release = holdEventLoop()
  try {
    return await withServices(io, flags, async (services, settings) => {
      const phone = await findPhoneAnywhere(services.ctx, ref)
      const suggest = suggester(io, settings.dataDir, settings.databaseUrl)
      if (server) return pairThroughServer(io, server, phone, method, stopSignal, suggest)
      return pairInProcess(io, services, phone, method, stopSignal, suggest)
    })
  } finally {
    release()
  }
}

/** Pairs in this process; only this phone connects (no other phone, queued send or webhook runs here). */
async function pairInProcess(
  io: CliIo,
  services: Services,
  phone: PhoneRow,
  method: PairingMethod,
  stopSignal: Promise<string>,
  suggest: Suggest,
): Promise<number> {
  const last: Printed = { waVersion: null, qr: null, code: null, failure: null }
  const outcome = await new Promise<ShownState | null>((resolve) => {
    const unsubscribe = services.sessions.subscribe(phone.id, (state) => {
      void showState(io, shown(state), last, phone.phoneNumber)
      if (FINAL_STATUSES.has(state.connectionStatus)) {
        unsubscribe()
        resolve(shown(state))
      }
    })
    void stopSignal.then(() => resolve(null))
    void services.sessions.connect(phone.id, method).then((state) => showState(io, shown(state), last, phone.phoneNumber))
  })
  if (outcome === null) {
    // Nobody waits for this pairing any more: the phone is left as it was before it began.
    const left = await services.sessions.abandonPairing(phone.id, phone.connectionStatus)
    io.stderr(`Pairing interrupted: ${phone.phoneNumber} is ${left.connectionStatus}.\n`)
    return 1
  }
  return finish(io, outcome, phone.phoneNumber, suggest)
}

async function pairThroughServer(
  io: CliIo,
  server: RunningServer,
  phone: PhoneRow,
  method: PairingMethod,
  stopSignal: Promise<string>,
  suggest: Suggest,
): Promise<number> {
  const { id: phoneId, phoneNumber } = phone
  io.stdout(`A wagate server (pid ${server.pid}) owns this data directory: pairing through it.\n`)
  const connected = await adminCall(server, "POST", `/phones/${phoneId}/connect`, { method })
  if (connected.status !== 200) {
    io.stderr(`error: the server refused to connect the phone: ${connected.body.message?.join("; ") ?? connected.status}\n`)
    return 1
  }
  const abort = new AbortController()
  let stopped = false
  void stopSignal.then(() => {
    stopped = true
    abort.abort()
  })
  const events = await fetch(`${server.baseUrl}/admin/v1/phones/${phoneId}/pairing/events`, {
    headers: { authorization: `Bearer ${server.token}` },
    signal: abort.signal,
  })
  const last: Printed = { waVersion: null, qr: null, code: null, failure: null }
  let outcome: ShownState | null = null
  let buffer = ""
  try {
    for await (const chunk of events.body!) {
      buffer += new TextDecoder().decode(chunk)
      let end: number
      while ((end = buffer.indexOf("\n\n")) !== -1) {
        const frame = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        const data = frame.split("\n").find((l) => l.startsWith("data: "))
        if (!data) continue
        const state = JSON.parse(data.slice(6)) as ShownState
        await showState(io, state, last, phoneNumber)
        outcome = state
        if (FINAL_STATUSES.has(state.connectionStatus)) abort.abort()
      }
    }
  } catch (err) {
    if (!abort.signal.aborted) throw err
  }
  // Stopped by a signal, the last state seen is not the outcome, and the pairing is the server's.
  if (stopped) {
    io.stderr(
      `Stopped watching. The server (pid ${server.pid}) keeps pairing ${phoneNumber} until it is paired or gives up; ` +
        `to stop it now: ${suggest(`phones disconnect ${phoneNumber}`)}\n`,
    )
    return 1
  }
  return finish(io, outcome, phoneNumber, null)
}

/** The outcome of a pairing; `suggest` writes the command that starts the server when none runs. */
function finish(io: CliIo, outcome: ShownState | null, phoneNumber: string, suggest: Suggest | null): number {
  if (outcome?.connectionStatus === "connected") {
    io.stdout(
      suggest === null
        ? `Paired: ${phoneNumber} is connected and the server keeps it online.\n`
        : `Paired: ${phoneNumber} is linked. Start the server (${suggest("serve")}) to keep it online and send live messages.\n`,
    )
    return 0
  }
  if (!outcome) io.stderr("Pairing interrupted.\n")
  else if (outcome.lastError) io.stderr(`error: pairing stopped (${outcome.lastError.code}): ${outcome.lastError.message}\n`)
  else io.stderr(`error: pairing did not complete (status: ${outcome.connectionStatus}); run the command again for a fresh code.\n`)
  return 1
}
