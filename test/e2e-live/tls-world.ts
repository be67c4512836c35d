import { proto } from "@whiskeysockets/baileys"
import type { HistorySendOptions } from "../wa-sim/history-sync"
import { generateLoopbackCertificate, type TlsCertificate } from "../wa-sim/media-cert"
import { startWaSim, type WaSim, type WaSimOptions } from "../wa-sim/sim"
import { TestCa } from "../wa-sim/test-ca"
import { startTlsFront, type TlsFront } from "../wa-sim/tls-front"
import { ApiClient, WagateProcess } from "./live-world"

/*
 * The production transport on 127.0.0.1: the WhatsApp simulator behind a TLS front whose
 * certificate comes from a test CA, and wagate (from source, or the executable `command`)
 * reaching it through the front, trusting that CA and the simulator's media host. The live
 * scenarios that run "over TLS, from source and as the compiled executable" start here.
 */

export interface TlsWorld {
  sim: WaSim
  /** The media host's certificate, for a FileHost that serves media URLs. */
  cert: TlsCertificate
  front: TlsFront
  wagate: WagateProcess
  /** A live key of the first account with the scopes asked for. */
  api: ApiClient
  stop(): Promise<void>
}

export async function startTlsWorld(options: {
  command: string[] | undefined
  keyName: string
  scopes: string[]
  /** More settings for wagate, which may name the simulator (its version page, say). */
  env?: Record<string, string> | ((sim: WaSim) => Record<string, string>)
  sim?: WaSimOptions
  /** A scenario that reads a warning wagate logs asks for "warn". */
  logLevel?: "warn" | "error"
}): Promise<TlsWorld> {
  const cert = await generateLoopbackCertificate()
  const sim = await startWaSim({ ...options.sim, mediaCert: cert, log: process.env.WA_SIM_TRACE ? (line) => console.log(`[wa-sim] ${line}`) : undefined })
  const ca = await TestCa.create()
  const front = await startTlsFront({ upstreamUrl: sim.wsUrl, certificate: await ca.issue() })
  const wagate = await WagateProcess.start(
    {
      WAGATE_WA_WS_URL: front.wsUrl,
      // Bun reads extra CAs once, at start: the front's CA and the media host's certificate.
      NODE_EXTRA_CA_CERTS: await ca.trustFile(sim.mediaCaPem),
      WAGATE_OUTBOUND_ALLOW_CIDRS: "127.0.0.1/32",
      WAGATE_SEND_INTERVAL_MS: "50",
      WAGATE_RATE_LIMIT_PER_MINUTE: "1000000",
      WAGATE_LOG_LEVEL: process.env.WAGATE_LOG_LEVEL ?? options.logLevel ?? "error",
      ...(typeof options.env === "function" ? options.env(sim) : options.env),
    },
    { command: options.command },
  )
  const key = await wagate.adminOk("POST", `/accounts/${wagate.accountId}/keys`, { environment: "live", name: options.keyName, scopes: options.scopes })
  return {
    sim,
    cert,
    front,
    wagate,
    api: new ApiClient(wagate, key.key),
    async stop() {
      await wagate.dispose()
      await front.stop()
      await ca.dispose()
      await sim.stop()
    },
  }
}

/**
 * What WhatsApp sends a device right after it links: a first history chunk (empty here, inline), so
 * Baileys ends its initial sync at once instead of holding every event for 20 s after each login
 * until one connection has lasted that long (7.0.0-rc14 lib/Socket/chats.js, `AwaitingInitialSync`).
 * `pairedPhone` gives it to every phone whose scenario planned no history of its own.
 */
export function firstHistoryChunk(): HistorySendOptions {
  return { chunks: [{ syncType: proto.HistorySync.HistorySyncType.INITIAL_BOOTSTRAP, conversations: [] }], inlineBootstrap: true }
}

/**
 * Adds `phoneNumber` to the first account and pairs it by QR through the simulator's secret
 * rotation (the phone scans again after the first QR's secret is retired). Returns its id.
 */
export async function pairedPhone(world: TlsWorld, phoneNumber: string, displayName?: string): Promise<string> {
  const { wagate, sim } = world
  if (!sim.history.hasPlan(phoneNumber)) sim.history.onLink(phoneNumber, firstHistoryChunk)
  const phoneId: string = (await wagate.adminOk("POST", `/accounts/${wagate.accountId}/phones`, { phoneNumber, displayName })).id
  await wagate.adminOk("POST", `/phones/${phoneId}/connect`, { method: "qr" })
  await sim.primary(phoneNumber).scanShownQr(async () => (await wagate.adminOk("GET", `/phones/${phoneId}/pairing`)).qr ?? undefined)
  await world.api.phoneWithStatus(phoneId, "connected", 20_000)
  return phoneId
}
