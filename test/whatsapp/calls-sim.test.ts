import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { silentLogger } from "../../src/lib/logger"
import { migrate, openDatabase } from "../../src/store/sqlite/db"
import { createWriter } from "../../src/store/sqlite/writer"
import type { CallSignal, SessionEvents, WhatsAppSession } from "../../src/whatsapp/gateway"
import { createBaileysGateway } from "../../src/whatsapp/baileys/gateway"
import { storeOver } from "../helpers/sqlite-store"
import { TestClock } from "../helpers/test-clock"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { startWaSim, type WaSim } from "../wa-sim/sim"
import { ChangeSignal } from "../wa-sim/wait"

// Runs the simulator and real Baileys: see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * wagate's Baileys gateway against the simulator's `<call>` stanzas (test/wa-sim/calls.ts): each
 * step of a call reaches the port as its stage (src/whatsapp/baileys/calls.ts), the caller as
 * E.164 or LID, and `rejectCall` sends the reject stanza WhatsApp expects and returns on its ack.
 */

const ME = "+15550081111"
const PHONE_ID = "ph_calls"

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
  cleanups.length = 0
}, SLOW_HOOK_TIMEOUT_MS)

function listener() {
  const changed = new ChangeSignal()
  const seen = { qrs: [] as string[], connected: 0, disconnects: [] as string[], calls: [] as CallSignal[] }
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
    inbound: () => {},
    call: note((signal: CallSignal) => seen.calls.push(signal)),
  }
  const until = <T>(probe: () => T | undefined, what: string) => changed.waitFor(probe, { timeoutMs: 10_000, what })
  return { events, seen, until }
}

/** A paired, connected session of the gateway against a fresh simulator. */
async function connected(): Promise<{ sim: WaSim; session: WhatsAppSession; l: ReturnType<typeof listener> }> {
  const sim = await startWaSim()
  cleanups.push(() => sim.stop())
  const clock = new TestClock()
  const db = openDatabase(":memory:")
  migrate(db, clock.nowMs())
  const gateway = createBaileysGateway({ store: storeOver(db, createWriter(db)), clock, logger: silentLogger, wsUrl: sim.wsUrl, waVersion: [2, 3000, 1] })
  const open = () => {
    const l = listener()
    const session = gateway.session(PHONE_ID, l.events)
    cleanups.push(() => session.close())
    return { session, l }
  }
  const pairing = open()
  pairing.session.connect({ method: "qr" })
  await sim.primary(ME).scanShownQr(async () => pairing.l.seen.qrs.at(-1))
  await pairing.l.until(() => (pairing.l.seen.disconnects.includes("restart_required") ? true : undefined), "the restart after the scan")
  const { session, l } = open()
  session.connect()
  await l.until(() => (l.seen.connected === 1 ? true : undefined), "the login")
  return { sim, session, l }
}

const stagesOf = (calls: CallSignal[], callId: string) => calls.filter((c) => c.callId === callId).map((c) => c.stage)

describe("incoming calls through Baileys, against the simulator", () => {
  test("a voice call the caller cancels, a video call that times out, a group call answered on the phone: each step in order, as wagate's stages", async () => {
    const { sim, l } = await connected()
    const alice = sim.contact({ phoneNumber: "+15550082222", name: "Alice" })
    const bob = sim.contact({ phoneNumber: "+15550083333", name: "Bob", addressing: "lid" })
    const team = sim.group({ subject: "Team", members: [alice, bob], admins: ["me"] })

    const voice = sim.calls.offer(alice)
    sim.calls.cancel(voice)
    const video = sim.calls.offer(bob, { video: true })
    sim.calls.timeout(video)
    const group = sim.calls.offer(alice, { video: true, group: team })
    sim.calls.acceptElsewhere(group)
    sim.calls.hangUp(group)
    await l.until(() => (stagesOf(l.seen.calls, group).length === 3 ? true : undefined), "the group call's three steps")

    expect(stagesOf(l.seen.calls, voice)).toEqual(["offered", "terminated"])
    expect(stagesOf(l.seen.calls, video)).toEqual(["offered", "timed_out"])
    expect(stagesOf(l.seen.calls, group)).toEqual(["offered", "accepted_elsewhere", "terminated"])
    const offers = l.seen.calls.filter((c) => c.stage === "offered").map((c) => [c.from, c.isVideo, c.isGroup])
    // Bob calls by LID; his number comes as caller_pn, so he is written as E.164.
    expect(offers).toEqual([
      ["+15550082222", false, false],
      ["+15550083333", true, false],
      ["+15550082222", true, true],
    ])
  })

  test("a caller WhatsApp names only by LID is written as the …@lid JID", async () => {
    const { sim, l } = await connected()
    const hidden = sim.contact({ phoneNumber: "+15550084444", name: "Hidden", noNumber: true })
    const callId = sim.calls.offer(hidden)
    const offer = await l.until(() => l.seen.calls.find((c) => c.callId === callId), "the offer")
    expect(offer.from).toBe(`${hidden.lid}@lid`)
  })

  test("rejectCall sends WhatsApp's reject stanza for that call and its creator, and returns when the server acks it", async () => {
    const { sim, session, l } = await connected()
    const alice = sim.contact({ phoneNumber: "+15550085555", name: "Alice" })
    const callId = sim.calls.offer(alice)
    const offer = await l.until(() => l.seen.calls.find((c) => c.callId === callId), "the offer")
    await session.rejectCall(offer.callId, offer.callerJid)
    expect(sim.calls.rejects.map((r) => [r.callId, r.callCreator, r.to])).toEqual([[callId, "15550085555@s.whatsapp.net", "15550085555@s.whatsapp.net"]])
  })
})
