import type { SessionEvents, WhatsAppGateway, WhatsAppSession } from "../../src/whatsapp/gateway"
import type { WaSim } from "../wa-sim"
import { waitUntil } from "./webhook-receiver"

/*
 * A gateway session against the WhatsApp simulator, the way the in-process *-sim tests open one:
 * the simulated primary phone scans the QR, Baileys asks for a fresh socket after the scan and the
 * session is opened again, and the test listens to the events it reads.
 */

/** The session a test drives. */
export interface SimSession {
  /** The session open now: after a restart Baileys asked for, the new one. */
  readonly session: WhatsAppSession
  /** How many times it logged in so far. */
  readonly connects: number
}

/** How long pairing and the first login may take on a busy machine. */
const CONNECT_WAIT_MS = 20_000

/**
 * Opens session `ph_1` on `gateway` for the simulator's phone `phoneNumber`, pairing it by QR when
 * `pair` (a paired one logs in), reopening it whenever it ends short of final, and resolves once it
 * is connected. `events` adds the listeners the test reads; its `connected` runs besides the count.
 */
export async function openSimSession(
  gateway: WhatsAppGateway,
  sim: WaSim,
  phoneNumber: string,
  options: { pair: boolean; events?: Omit<Partial<SessionEvents>, "qr" | "disconnected"> },
): Promise<SimSession> {
  let session: WhatsAppSession | undefined
  let connects = 0
  const events = (): SessionEvents => ({
    connecting() {},
    pairingCode() {},
    scanned() {},
    partAcked() {},
    partRejected() {},
    receipt() {},
    inbound() {},
    ...options.events,
    qr: (qr) => void sim.primary(phoneNumber).scanQr(qr),
    connected: (info) => {
      connects++
      options.events?.connected?.(info)
    },
    disconnected: (info) => {
      if (!info.final) start()
    },
  })
  const start = () => {
    session = gateway.session("ph_1", events())
    session.connect(options.pair ? { method: "qr" } : undefined)
  }
  start()
  try {
    await waitUntil(() => connects > 0, CONNECT_WAIT_MS, "the phone to connect")
  } catch (error) {
    // Closed here: the caller never gets the session to close.
    await session?.close()
    throw error
  }
  return {
    get session() {
      return session!
    },
    get connects() {
      return connects
    },
  }
}
