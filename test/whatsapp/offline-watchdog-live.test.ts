import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { silentLogger } from "../../src/lib/logger"
import { migrate, openDatabase } from "../../src/store/sqlite/db"
import { createWriter } from "../../src/store/sqlite/writer"
import { DEFAULT_OFFLINE_MARKER_WAIT_MS, type InboundMessage, type SessionEvents, type WhatsAppSession } from "../../src/whatsapp/gateway"
import { createBaileysGateway } from "../../src/whatsapp/baileys/gateway"
import { storeOver } from "../helpers/sqlite-store"
import { TestClock } from "../helpers/test-clock"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { startWaSim, type WaSim } from "../wa-sim/sim"
import { ChangeSignal } from "../wa-sim/wait"

// Runs the simulator and real Baileys: see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * wagate's Baileys gateway in this process against the simulator with `offlineMarker: false`
 * (WhiskeySockets/Baileys#2810): the watchdog (src/whatsapp/baileys/offline-watchdog.ts) runs on
 * the test clock, so the held message is shown to wait for it, and to come when it fires.
 */

const ME = "+15550071111"
const PHONE_ID = "ph_stall"

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
  cleanups.length = 0
}, SLOW_HOOK_TIMEOUT_MS)

/** What a session reported, and a way to wait for it. */
function listener() {
  const changed = new ChangeSignal()
  const seen = { qrs: [] as string[], connected: 0, disconnects: [] as string[], inbound: [] as InboundMessage[], missed: [] as { atMs: number; waitMs: number; held: boolean }[] }
  const note = <T>(fn: (value: T) => void) => (value: T) => {
    fn(value)
    changed.notify()
  }
  const events: SessionEvents = {
    connecting: () => {},
    qr: note((qr: string) => seen.qrs.push(qr)),
    pairingCode: () => {},
    scanned: () => {},
    connected: note(() => seen.connected++),
    disconnected: note((info: { reason: string }) => seen.disconnects.push(info.reason)),
    partAcked: () => {},
    partRejected: () => {},
    receipt: () => {},
    inbound: note((m: InboundMessage) => seen.inbound.push(m)),
    offlineMarkerMissed: note((info: { atMs: number; waitMs: number; held: boolean }) => seen.missed.push(info)),
  }
  const until = <T>(probe: () => T | undefined, what: string) => changed.waitFor(probe, { timeoutMs: 10_000, what })
  return { events, seen, until }
}

async function world(): Promise<{ sim: WaSim; clock: TestClock; open: () => Promise<{ session: WhatsAppSession; l: ReturnType<typeof listener> }> }> {
  const sim = await startWaSim({ offlineMarker: false })
  cleanups.push(() => sim.stop())
  const clock = new TestClock()
  const db = openDatabase(":memory:")
  migrate(db, clock.nowMs())
  const gateway = createBaileysGateway({ store: storeOver(db, createWriter(db)), clock, logger: silentLogger, wsUrl: sim.wsUrl, waVersion: [2, 3000, 1] })
  const open = async () => {
    const l = listener()
    const session = gateway.session(PHONE_ID, l.events)
    cleanups.push(() => session.close())
    return { session, l }
  }
  // Pairs by QR (the simulator rotates the secret once; the session shows the new QR), then the
  // fresh socket WhatsApp asks for after a scan logs in.
  const pairing = await open()
  pairing.session.connect({ method: "qr" })
  await sim.primary(ME).scanShownQr(async () => pairing.l.seen.qrs.at(-1))
  await pairing.l.until(() => (pairing.l.seen.disconnects.includes("restart_required") ? true : undefined), "the restart after the scan")
  return { sim, clock, open }
}

describe("offline-marker watchdog against the simulator, in process", () => {
  test("with the marker missing, what the offline queue delivered waits for the watchdog's wait on the clock, then is reported inbound with the release", async () => {
    const { sim, clock, open } = await world()
    const bob = sim.contact({ phoneNumber: "+15550072222", name: "Bob" })
    const { session, l } = await open()
    session.connect()
    await l.until(() => (l.seen.connected === 1 ? true : undefined), "the login")
    await session.close()
    await sim.waitFor(() => (sim.loggedInConnections(ME).length === 0 ? true : undefined), "the phone to be away", 10_000)
    await sim.sendInbound(bob, { text: "held while away" }, { to: ME })
    expect(sim.heldFor(ME, 1)).toBeGreaterThan(0)

    const back = await open()
    back.session.connect()
    await back.l.until(() => (back.l.seen.connected === 1 ? true : undefined), "the login")
    // The burst is delivered and handled (acked by a receipt), but Baileys holds its events.
    await sim.waitFor(() => (sim.heldFor(ME, 1) === 0 && sim.clientStanzas.retained.some((e) => e.node.tag === "receipt" && e.node.attrs.type === "inactive") ? true : undefined), "the burst to be handled", 10_000)
    expect(back.l.seen.inbound).toEqual([])
    expect(back.l.seen.missed).toEqual([])

    clock.advance(DEFAULT_OFFLINE_MARKER_WAIT_MS - 1)
    expect(back.l.seen.missed).toEqual([])
    const firedAt = clock.nowMs() + 1
    clock.advance(1)
    await back.l.until(() => back.l.seen.inbound[0], "the held message")
    expect(back.l.seen.inbound.map((m) => [m.from, m.content])).toEqual([[`+${bob.phoneNumber}`, "held while away"]])
    expect(back.l.seen.missed).toEqual([{ atMs: firedAt, waitMs: DEFAULT_OFFLINE_MARKER_WAIT_MS, held: true }])
  })
})
