import qrcode from "qrcode-terminal"
import { loadConfig } from "../config"
import type { PairingState } from "../domain/sessions"
import { findPhoneAnywhere } from "../domain/phones"
import { parseArgs, UsageError } from "./args"
import { subcommandUsage } from "./commands"
import { withServices, type CliIo } from "./io"
import { adminCall, runningServer, type RunningServer } from "./server-client"

export const PAIR_USAGE = subcommandUsage("phones", "pair")

/** Renders a QR string as terminal blocks. */
export function renderQr(qr: string): Promise<string> {
  return new Promise((resolve) => qrcode.generate(qr, { small: true }, resolve))
}

/** What the pairing loop prints, whichever way it talks to the session manager. */
async function showState(io: CliIo, state: { connectionStatus: string; qr: string | null; pairingCode: string | null }, last: { qr: string | null; code: string | null }, phoneNumber: string) {
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
  return withServices(io, args.flags, async (services) => {
    const phone = findPhoneAnywhere(services.ctx, ref)
    if (server) return pairThroughServer(io, server, phone.id, phone.phoneNumber, method, stopSignal)
    // Only this phone connects: no other phone, queued send or webhook runs in a short CLI command.
    const last = { qr: null as string | null, code: null as string | null }
    const outcome = await new Promise<PairingState | null>((resolve) => {
      const unsubscribe = services.sessions.subscribe(phone.id, (state) => {
        void showState(io, state, last, phone.phoneNumber)
        if (state.connectionStatus === "connected" || state.connectionStatus === "unpaired" || state.connectionStatus === "logged_out") {
          unsubscribe()
          resolve(state)
        }
      })
      void stopSignal.then(() => resolve(null))
      void services.sessions.connect(phone.id, method).then((state) => showState(io, state, last, phone.phoneNumber))
    })
    return finish(io, outcome?.connectionStatus ?? "stopped", phone.phoneNumber, false)
  })
}

async function pairThroughServer(
  io: CliIo,
  server: RunningServer,
  phoneId: string,
  phoneNumber: string,
  method: "qr" | "code",
  stopSignal: Promise<string>,
): Promise<number> {
  io.stdout(`A wagate server (pid ${server.pid}) owns this data directory: pairing through it.\n`)
  const connected = await adminCall(server, "POST", `/phones/${phoneId}/connect`, { method })
  if (connected.status !== 200) {
    io.stderr(`error: the server refused to connect the phone: ${connected.body.message?.join("; ") ?? connected.status}\n`)
    return 1
  }
  const abort = new AbortController()
  void stopSignal.then(() => abort.abort())
  const events = await fetch(`${server.baseUrl}/admin/v1/phones/${phoneId}/pairing/events`, {
    headers: { authorization: `Bearer ${server.token}` },
    signal: abort.signal,
  })
  const last = { qr: null as string | null, code: null as string | null }
  let status = "stopped"
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
        const state = JSON.parse(data.slice(6)) as { connectionStatus: string; qr: string | null; pairingCode: string | null }
        await showState(io, state, last, phoneNumber)
        status = state.connectionStatus
        if (status === "connected" || status === "unpaired" || status === "logged_out") abort.abort()
      }
    }
  } catch (err) {
    if (!abort.signal.aborted) throw err
  }
  return finish(io, status, phoneNumber, true)
}

function finish(io: CliIo, status: string, phoneNumber: string, throughServer: boolean): number {
  if (status === "connected") {
    io.stdout(
      throughServer
        ? `Paired: ${phoneNumber} is connected and the server keeps it online.\n`
        : `Paired: ${phoneNumber} is linked. Start the server (wagate serve) to keep it online and send live messages.\n`,
    )
    return 0
  }
  io.stderr(status === "stopped" ? "Pairing interrupted.\n" : `error: pairing did not complete (status: ${status}); run the command again for a fresh code.\n`)
  return 1
}
