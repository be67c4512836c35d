import { storeOver } from "../helpers/sqlite-store"
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { silentLogger } from "../../src/lib/logger"
import { Counter } from "../../src/lib/metrics"
import { migrate, openDatabase, type Database } from "../../src/store/sqlite/db"
import { createWriter, type Writer } from "../../src/store/sqlite/writer"
import type { InboundAction, InboundMessage } from "../../src/whatsapp/gateway"
import { createBaileysGateway } from "../../src/whatsapp/baileys/gateway"
import { openSimSession, type SimSession } from "../helpers/sim-session"
import { TestClock } from "../helpers/test-clock"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { waitUntil } from "../helpers/webhook-receiver"
import { edit } from "../wa-sim/inbound-kinds"
import { startWaSim, type SimContact, type WaSim } from "../wa-sim"

// Runs the simulator: see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * Encrypted edits (docs/live-whatsapp.md, "Encrypted edits") in process: wagate's Baileys gateway
 * against the simulator, whose contacts send their edits as `secretEncryptedMessage` sealed with
 * the edited message's secret under their LID or their number. The edit reaches wagate as the
 * same edit action a plain one is, also through a gateway that starts over on the same store.
 */

const ME = "+15550061111"
const MY_JID = "15550061111@s.whatsapp.net"

let sim: WaSim
let db: Database
let writer: Writer
const clock = new TestClock()
const counter = new Counter("wagate_encrypted_edits_total", "test", {})
const inbound: InboundMessage[] = []
const actions: InboundAction[] = []
let phone: SimSession
let lidAlice: SimContact
let pnBob: SimContact
let mixedCarol: SimContact

/** Opens a session on a fresh gateway over the one store, reconnecting when Baileys asks for a restart (after the scan). */
async function openSession(pair: boolean): Promise<void> {
  const gateway = createBaileysGateway({ store: storeOver(db, writer), clock, logger: silentLogger, wsUrl: sim.wsUrl, encryptedEdits: counter })
  phone = await openSimSession(gateway, sim, ME, { pair, events: { inbound: (m) => void inbound.push(m), inboundAction: (a) => void actions.push(a) } })
}

beforeAll(async () => {
  sim = await startWaSim({ advSecretRotation: false })
  db = openDatabase(":memory:")
  migrate(db, clock.nowMs())
  writer = createWriter(db)
  lidAlice = sim.contact({ phoneNumber: "+15550062222", name: "Alice", addressing: "lid", encryptedEdits: "lid" })
  pnBob = sim.contact({ phoneNumber: "+15550063333", name: "Bob", encryptedEdits: "pn" })
  mixedCarol = sim.contact({ phoneNumber: "+15550064444", name: "Carol", addressing: "lid", encryptedEdits: "pn" })
  await openSession(true)
}, SLOW_HOOK_TIMEOUT_MS)

afterAll(async () => {
  await phone?.session.close()
  await sim?.stop()
}, SLOW_HOOK_TIMEOUT_MS)

/** How many encrypted edits were counted with this result so far. */
const counted = (result: string) => Number(counter.render().match(new RegExp(`result="${result}"\\} (\\d+)`))?.[1] ?? 0)

/** A contact writes, then edits what it wrote; resolves with the edit action wagate maps. */
async function writeAndEdit(contact: SimContact, text: string, edited: string, between?: () => Promise<void>): Promise<InboundAction | undefined> {
  const id = await sim.sendInbound(contact, { text })
  await waitUntil(() => inbound.some((m) => m.waMessageId === id), 10_000, `the message ${id}`)
  await between?.()
  await sim.sendInbound(contact, edit({ remoteJid: MY_JID, id, fromMe: true }, edited, Date.now()))
  await waitUntil(() => actions.some((a) => a.targetWaMessageId === id), 10_000, `the edit of ${id}`)
  return actions.find((a) => a.targetWaMessageId === id)
}

describe("encrypted edits from the simulator, in process", () => {
  test("a contact deriving with its LID: the edit arrives encrypted and maps to the edit with its new text", async () => {
    const before = counted("decrypted")
    const action = await writeAndEdit(lidAlice, "see you at 5", "see you at 6")
    expect(action).toMatchObject({ kind: "edit", from: `+${lidAlice.phoneNumber}`, content: "see you at 6" })
    // The simulator really sent the envelope: Baileys handed wagate a secretEncryptedMessage.
    expect(counted("decrypted")).toBe(before + 1)
  })

  test("a contact WhatsApp names by its LID but deriving with its number: the other identity is tried", async () => {
    const action = await writeAndEdit(mixedCarol, "call me at 9", "call me at 10")
    expect(action).toMatchObject({ kind: "edit", from: `+${mixedCarol.phoneNumber}`, content: "call me at 10" })
  })

  test("a contact deriving with its number, the edit arriving after the gateway started over on the same store", async () => {
    const before = counted("decrypted")
    const action = await writeAndEdit(pnBob, "the total is 40", "the total is 45", async () => {
      await phone?.session.close()
      await openSession(false)
    })
    expect(action).toMatchObject({ kind: "edit", from: `+${pnBob.phoneNumber}`, content: "the total is 45" })
    expect(counted("decrypted")).toBe(before + 1)
  })

  test("the secret of a message we send is stored under our number and LID, the one the contact received", async () => {
    await phone.session.sendPart({ waMessageId: "3EB0OURSECRET0001", toJid: `${pnBob.phoneNumber}@s.whatsapp.net`, text: "your order shipped" })
    const received = await sim.nextMessage(pnBob, { timeoutMs: 10_000 })
    const sentSecret = received.copies[0]!.message.messageContextInfo?.messageSecret
    expect(sentSecret?.length).toBe(32)
    const row = db.query<{ sender_jid: string; sender_alt_jid: string | null; secret: Uint8Array }, [string]>("SELECT sender_jid, sender_alt_jid, secret FROM wa_message_secrets WHERE wa_message_id = ?").get("3EB0OURSECRET0001")
    expect(row).toMatchObject({ sender_jid: MY_JID, sender_alt_jid: expect.stringMatching(/@lid$/) })
    expect(Buffer.from(row!.secret).equals(Buffer.from(sentSecret!))).toBe(true)
  })

  test("an edit of a message whose secret is no longer stored is counted, not mapped, and no empty message is recorded", async () => {
    const id = await sim.sendInbound(pnBob, { text: "an old message" })
    await waitUntil(() => inbound.some((m) => m.waMessageId === id), 10_000, `the message ${id}`)
    // As if pruned: older than the retention.
    expect(db.query("DELETE FROM wa_message_secrets WHERE wa_message_id = ?").run(id).changes).toBe(1)
    const before = inbound.length
    const noSecret = counted("no_secret")
    await sim.sendInbound(pnBob, edit({ remoteJid: MY_JID, id, fromMe: true }, "changed", Date.now()))
    await waitUntil(() => counted("no_secret") === noSecret + 1, 10_000, "the undecryptable edit counted")
    expect(actions.some((a) => a.targetWaMessageId === id)).toBe(false)
    expect(inbound.length).toBe(before)
  })
})
