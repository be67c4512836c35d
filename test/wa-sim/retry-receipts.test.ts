import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { randomBytes } from "node:crypto"
import type { proto } from "@whiskeysockets/baileys"
import { pairWithQr, type MemoryAuth, type TestClient } from "./baileys-client"
import { trustMediaHostInFetch } from "./media-trust"
import { startWaSim, type WaSim } from "./sim"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Runs the simulator and real Baileys: see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/**
 * Retry receipts against real, unmodified Baileys 7 (no wagate): a contact asks for a message
 * again, from its number or its LID, and decrypts the resend. Baileys answers from its own
 * 5-minute cache of recent sends (keyed by the jid it sent to) or else from the app's `getMessage`.
 */

const ME = "+15550001111"
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64")

const cleanups: (() => unknown)[] = []
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup()
  cleanups.length = 0
}, SLOW_HOOK_TIMEOUT_MS)

async function world(getMessage?: (key: proto.IMessageKey) => Promise<proto.IMessage | undefined>): Promise<{ sim: WaSim; client: TestClient; auth: MemoryAuth }> {
  // Baileys 7.0.0-rc14 alone cannot pair through a secret rotation (sim.test.ts, "secret rotation").
  const sim = await startWaSim({ advSecretRotation: false, log: process.env.WA_SIM_TRACE ? (line) => console.log(`[wa-sim] ${line}`) : undefined })
  cleanups.push(() => sim.stop())
  cleanups.push(trustMediaHostInFetch(sim))
  const { first, client, auth } = await pairWithQr(sim, ME, { ...(getMessage ? { getMessage } : {}), ...(process.env.WA_SIM_TRACE ? { logger: (await import("pino")).default({ level: "debug" }) as never } : {}) })
  cleanups.push(() => first.end(), () => client.end())
  return { sim, client, auth }
}

describe("wa-sim: retry receipts", () => {
  test("a retry from the number the message went to is answered from Baileys' cache; text and media decrypt to the same content", async () => {
    const { sim, client } = await world()
    const alice = sim.contact({ phoneNumber: "+15550002222" })

    const text = await client.sock.sendMessage(alice.pnJid, { text: "say again?" })
    await sim.nextMessage(alice)
    const resentText = await sim.requestRetry(alice, text!.key.id!, { from: "pn" })
    expect(resentText.text).toBe("say again?")
    expect(resentText.to).toBe(alice.pnJid)

    const image = await client.sock.sendMessage(alice.pnJid, { image: PNG, caption: "pic", mimetype: "image/png" })
    await sim.nextMessage(alice)
    const resentImage = await sim.requestRetry(alice, image!.key.id!, { from: "pn", count: 2 })
    expect(resentImage.media).toMatchObject({ kind: "image", caption: "pic", mimetype: "image/png" })
    expect(resentImage.media!.bytes.equals(PNG)).toBe(true)
  })

  test("a retry from the LID of a contact messaged by number misses Baileys' cache and needs getMessage", async () => {
    const stored = new Map<string, proto.IMessage>()
    const asked: string[] = []
    const { sim, client } = await world(async (key) => {
      asked.push(`${key.remoteJid}/${key.id}`)
      return stored.get(key.id ?? "")
    })
    const alice = sim.contact({ phoneNumber: "+15550002222" })

    const sent = await client.sock.sendMessage(alice.pnJid, { text: "via lid" })
    await sim.nextMessage(alice)
    // Without an answer from the app, nothing is resent: the contact would wait forever.
    const unanswered = await sim.requestRetry(alice, sent!.key.id!, { from: "lid", timeoutMs: 1_500 }).then(
      () => "resent",
      (error: unknown) => String(error),
    )
    expect(unanswered).toContain("timed out")
    expect(asked).toEqual([`${alice.lidJid}/${sent!.key.id}`])

    stored.set(sent!.key.id!, sent!.message!)
    const resent = await sim.requestRetry(alice, sent!.key.id!, { from: "lid", count: 2 })
    expect(resent.text).toBe("via lid")
    expect(resent.to).toBe(alice.lidJid)
  })

  test("a contact that cannot decrypt its copy asks again on its own (count 1, then 2 with keys) and reads the resend; retryReceipts: false turns it off", async () => {
    const { sim, client } = await world()
    const alice = sim.contact({ phoneNumber: "+15550002222" })
    const bob = sim.contact({ phoneNumber: "+15550003333", retryReceipts: false })
    const device = sim.loggedInConnections()[0]!.login!
    for (const contact of [alice, bob]) {
      await client.sock.sendMessage(contact.pnJid, { text: "open the session" })
      await sim.nextMessage(contact)
      await contact.forgetSessionWith(device.account.deviceJid(device.deviceId))
    }

    const toAlice = await client.sock.sendMessage(alice.pnJid, { text: "after the reinstall" })
    const readable = await sim.waitFor(() => sim.outbox.all.find((entry) => entry.id === toAlice!.key.id && entry.copies.length > 0), "a readable resend")
    expect(readable.text).toBe("after the reinstall")

    const toBob = await client.sock.sendMessage(bob.pnJid, { text: "lost" })
    const unreadable = await sim.waitFor(() => sim.outbox.byId(toBob!.key.id!), "the message to bob")
    expect(unreadable.copies).toEqual([])
    expect(unreadable.errors.length).toBeGreaterThan(0)
  })

  test("a device that lost its session with a contact asks again; the contact resends, opens a new session from the keys of the second request, and the device reads the message", async () => {
    const { sim, client, auth } = await world()
    const alice = sim.contact({ phoneNumber: "+15550002222" })
    await sim.sendInbound(alice, { text: "opens the session" })
    await client.waitFor(() => client.upserts.find((u) => u.message.message?.conversation === "opens the session"), "the first message")
    // Answered on, the session is settled: the contact's next message is a `msg`, which needs it.
    await client.sock.sendMessage(alice.pnJid, { text: "answer" })
    await sim.nextMessage(alice)
    // As a node killed before it stored the session update would be: the session is gone.
    // Baileys keeps the session under the contact's LID once it knows the mapping: drop both.
    const addresses = [alice.pnJid, alice.lidJid].map((jid) => client.sock.signalRepository.jidToSignalProtocolAddress(jid))
    await auth.keys.set({ session: Object.fromEntries(addresses.map((address) => [address, null])) })

    const id = await sim.sendInbound(alice, { text: "after the session was lost" })
    const read = await client.waitFor(() => client.upserts.find((u) => u.message.key.id === id && u.message.message?.conversation), "the resent message")
    expect(read.message.message?.conversation).toBe("after the session was lost")
    expect(sim.inboundRetries.answered.get(id)).toEqual(["resent", "resent-new-session"])
  })
})
