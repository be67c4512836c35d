import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { randomBytes } from "node:crypto"
import { downloadMediaMessage, getBinaryNodeChild, INITIAL_PREKEY_COUNT, type UserFacingSocketConfig } from "@whiskeysockets/baileys"
import { MemoryAuth, pairWithQr, simSocketConfig, TestClient } from "./baileys-client"
import { trustMediaHostInFetch } from "./media-trust"
import { startWaSim, type WaSim } from "./sim"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/**
 * The simulator against real, unmodified Baileys 7 (no wagate involved): each test starts its own
 * simulator, pairs a fresh in-memory auth state where it needs one, and waits on events, never on
 * time. What each test proves is in its name.
 */

const ME = "+15550001111"
const ME_DIGITS = ME.slice(1)
/** A valid 1×1 PNG, so Baileys' thumbnail step has a real image to read. */
const PNG = Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==", "base64")

/** Everything one test started, closed in reverse order afterwards. */
class Scope {
  private readonly cleanups: (() => unknown)[] = []

  async sim(): Promise<WaSim> {
    // Baileys 7.0.0-rc14 alone cannot pair through a secret rotation (see "secret rotation" below).
    const sim = await startWaSim({ advSecretRotation: false, log: process.env.WA_SIM_TRACE ? (line) => console.log(`[wa-sim] ${line}`) : undefined })
    this.cleanups.push(() => sim.stop())
    return sim
  }

  client(sim: WaSim, auth: MemoryAuth, overrides: Partial<UserFacingSocketConfig> = {}): TestClient {
    return this.track(new TestClient(simSocketConfig(sim, auth, overrides), auth))
  }

  async paired(sim: WaSim, phoneNumber = ME, overrides: Partial<UserFacingSocketConfig> = {}): Promise<{ auth: MemoryAuth; client: TestClient }> {
    const { auth, first, client } = await pairWithQr(sim, phoneNumber, overrides)
    this.track(first)
    return { auth, client: this.track(client) }
  }

  track(client: TestClient): TestClient {
    this.cleanups.push(() => client.end())
    return client
  }

  defer(cleanup: () => unknown): void {
    this.cleanups.push(cleanup)
  }

  async close(): Promise<void> {
    for (const cleanup of this.cleanups.reverse()) await cleanup()
  }
}

let scope: Scope
beforeEach(() => {
  scope = new Scope()
})
afterEach(async () => {
  await scope.close()
}, SLOW_HOOK_TIMEOUT_MS)

describe("wa-sim: pairing and connection", () => {
  test("pairs by QR: qr → phone scans → close 515 → new socket opens as the linked device and uploads its pre-keys", async () => {
    const sim = await scope.sim()
    const auth = new MemoryAuth()
    const first = scope.client(sim, auth)
    const qr = await first.waitForQr()
    expect(qr).toStartWith("https://wa.me/settings/linked_devices#")

    const linked = await sim.primary(ME).scanQr(qr)
    expect(linked).toMatchObject({ deviceId: 1, jid: `${ME_DIGITS}:1@s.whatsapp.net` })
    expect(await first.waitForClose()).toBe(515)
    expect(first.connectionUpdates.some((update) => update.isNewLogin)).toBe(true)
    expect(auth.state.creds.me?.id).toBe(linked.jid)
    expect(auth.state.creds.account?.deviceSignature).toBeDefined()

    const second = scope.client(sim, auth)
    await second.waitForOpen()
    expect(second.sock.user).toMatchObject({ id: linked.jid, lid: linked.lid })
    expect(second.qrs).toEqual([])
    const device = sim.primary(ME).account.devices.get(1)
    // The phone took one to open its session for the app-state key share (app-state-keys.ts).
    await sim.waitFor(() => auth.state.creds.myAppStateKeyId, "the app-state key share")
    expect(device?.preKeys.size).toBe(INITIAL_PREKEY_COUNT - 1)
    expect(sim.loggedInConnections(ME)).toHaveLength(1)
  })

  test("pairs by code: requestPairingCode → the phone enters the code → close 515 → open; a wrong code is refused", async () => {
    const sim = await scope.sim()

    // A wrong code: the companion's key bundle does not decrypt on the phone.
    const wrongAuth = new MemoryAuth()
    const wrong = scope.client(sim, wrongAuth)
    await wrong.waitForQr()
    const realCode = await wrong.sock.requestPairingCode("15550009999")
    const wrongCode = realCode === "AAAAAAAA" ? "BBBBBBBB" : "AAAAAAAA"
    await expect(sim.primary("+15550009999").confirmPairingCode(wrongCode)).rejects.toThrow("the pairing code is wrong")
    await wrong.end()

    const auth = new MemoryAuth()
    const first = scope.client(sim, auth)
    await first.waitForQr()
    const code = await first.sock.requestPairingCode(ME_DIGITS)
    expect(code).toMatch(/^[A-Z0-9]{8}$/)
    const linked = await sim.primary(ME).confirmPairingCode(code)
    expect(await first.waitForClose()).toBe(515)
    expect(auth.state.creds.registered).toBe(true)

    const second = scope.client(sim, auth)
    await second.waitForOpen()
    expect(second.sock.user?.id).toBe(linked.jid)
  })

  test("reconnects with saved credentials (reloaded from JSON) without showing a QR", async () => {
    const sim = await scope.sim()
    const { auth, client } = await scope.paired(sim)
    await client.end()

    const again = scope.client(sim, auth.reload())
    await again.waitForOpen()
    expect(again.qrs).toEqual([])
    expect(again.sock.user?.id).toBe(client.sock.user?.id)
  })

  test("stream errors close with 515 (restart), 440 (replaced, also when the same device logs in twice) and 401 (logged out, device unlinked)", async () => {
    const sim = await scope.sim()
    const { auth, client } = await scope.paired(sim)

    sim.streamError("restart")
    expect(await client.waitForClose()).toBe(515)

    const afterRestart = scope.client(sim, auth)
    await afterRestart.waitForOpen()
    sim.streamError("replaced")
    expect(await afterRestart.waitForClose()).toBe(440)

    const older = scope.client(sim, auth)
    await older.waitForOpen()
    const newer = scope.client(sim, auth)
    await newer.waitForOpen()
    expect(await older.waitForClose()).toBe(440)

    sim.streamError("logged_out")
    expect(await newer.waitForClose()).toBe(401)
    const afterLogout = scope.client(sim, auth)
    expect(await afterLogout.waitForClose()).toBe(401)
  })

  test("a dropped connection closes with 428 and the client reconnects", async () => {
    const sim = await scope.sim()
    const { auth, client } = await scope.paired(sim)
    sim.dropConnections()
    expect(await client.waitForClose()).toBe(428)
    const again = scope.client(sim, auth)
    await again.waitForOpen()
  })

  test("unanswered pings: Baileys gives up with 408 after keepAliveIntervalMs + 5 s of silence", async () => {
    const sim = await scope.sim()
    // Baileys adds a fixed 5 s to the interval, so this test takes about 5.3 s whatever the interval.
    const { client } = await scope.paired(sim, ME, { keepAliveIntervalMs: 100 })
    sim.stallPings(true)
    expect(await client.waitForClose(8_000)).toBe(408)
  }, 15_000)

  test("fault injection: groupFetchAllParticipating rejects with the injected error, the next call succeeds", async () => {
    const sim = await scope.sim()
    const alice = sim.contact({ phoneNumber: "+15550002222" })
    const group = sim.group({ subject: "Team", members: [alice], admins: ["me"], announce: true })
    const { client } = await scope.paired(sim)

    sim.failNext("w:g2/get/participating", { code: 403, text: "forbidden" })
    await expect(client.sock.groupFetchAllParticipating()).rejects.toMatchObject({ message: "forbidden", data: 403 })

    const groups = await client.sock.groupFetchAllParticipating()
    expect(groups[group.jid]).toMatchObject({ subject: "Team", announce: true, addressingMode: "pn" })
    expect(groups[group.jid]?.participants.find((participant) => participant.id === `${ME_DIGITS}@s.whatsapp.net`)?.admin).toBe("admin")
  })
})

describe("wa-sim: sending", () => {
  test("1:1 text: the contact decrypts it, the server ack arrives raw, delivery then read become messages.update 3 then 4", async () => {
    const sim = await scope.sim()
    const alice = sim.contact({ phoneNumber: "+15550002222", autoAck: false, autoReceipts: "none" })
    const { client } = await scope.paired(sim)

    const sent = await client.sock.sendMessage(alice.pnJid, { text: "hello alice" })
    const message = await sim.nextMessage(alice)
    expect(message.id).toBe(sent!.key.id!)
    expect(message.text).toBe("hello alice")
    expect(message.copies.map((copy) => copy.contact)).toEqual([alice])

    sim.ack(message.id)
    const ack = await client.waitFor(() => client.serverAcks.find((node) => node.attrs.id === message.id), "the server ack")
    expect(ack.attrs.error).toBeUndefined()

    await client.waitForOwnUpsert(message.id)
    sim.deliver(message.id, alice)
    await client.waitFor(() => (client.statusesOf(message.id).includes(3) ? true : undefined), "status 3 (delivered)")
    sim.read(message.id, alice)
    await client.waitFor(() => (client.statusesOf(message.id).includes(4) ? true : undefined), "status 4 (read)")
    expect(client.statusesOf(message.id)).toEqual([3, 4])
    expect(sim.unhandledIqs).toEqual([])
  })

  test("timesReached counts each stanza a contact could read by message id: a resend with the same id counts two", async () => {
    const sim = await scope.sim()
    const alice = sim.contact({ phoneNumber: "+15550002222" })
    const { client } = await scope.paired(sim)

    const sent = await client.sock.sendMessage(alice.pnJid, { text: "once" })
    const id = sent!.key.id!
    await sim.nextMessage(alice)
    expect(sim.timesReached(id)).toBe(1)
    await client.sock.sendMessage(alice.pnJid, { text: "once" }, { messageId: id })
    await sim.nextMessage(alice)
    expect(sim.timesReached(id)).toBe(2)
    expect(sim.timesReached("3EB0NEVERSENT")).toBe(0)
  })

  test("a contact with read receipts off only ever reports delivered", async () => {
    const sim = await scope.sim()
    const private_ = sim.contact({ phoneNumber: "+15550003333", readReceipts: false })
    const open = sim.contact({ phoneNumber: "+15550004444" })
    const { client } = await scope.paired(sim)

    const toPrivate = await client.sock.sendMessage(private_.pnJid, { text: "are you there?" })
    const privateId = toPrivate!.key.id!
    await sim.nextMessage(private_)
    await client.waitFor(() => (client.highestStatusOf(privateId) === 3 ? true : undefined), "delivered from the private contact")
    expect(() => sim.read(privateId, private_)).toThrow("read receipts off")

    // A later message to someone else gets read: by then any read of the first would have arrived.
    const toOpen = await client.sock.sendMessage(open.pnJid, { text: "hi" })
    await sim.nextMessage(open)
    await client.waitFor(() => (client.highestStatusOf(toOpen!.key.id!) === 4 ? true : undefined), "read from the other contact")
    expect(client.highestStatusOf(privateId)).toBe(3)
  })

  test("an error ack (463) surfaces as messages.update status ERROR carrying the code", async () => {
    const sim = await scope.sim()
    const alice = sim.contact({ phoneNumber: "+15550002222", autoAck: false, autoReceipts: "none" })
    const { client } = await scope.paired(sim)

    const sent = await client.sock.sendMessage(alice.pnJid, { text: "restricted" })
    const message = await sim.nextMessage(alice)
    await client.waitForOwnUpsert(message.id)
    sim.ackError(message.id, 463)
    const update = await client.waitFor(
      () => client.messageUpdates.find((entry) => entry.key.id === sent!.key.id && entry.update.status === 0),
      "status ERROR",
    )
    // Baileys reads 463 as "reach-out time-locked" too and adds its explanation after the code.
    expect(update.update.messageStubParameters?.[0]).toBe("463")
  })

  test("an image with caption and a document reach the contact byte-exact through the HTTPS media host; an inbound image downloads byte-exact", async () => {
    const sim = await scope.sim()
    scope.defer(trustMediaHostInFetch(sim))
    const alice = sim.contact({ phoneNumber: "+15550002222" })
    const { client } = await scope.paired(sim)

    await client.sock.sendMessage(alice.pnJid, { image: PNG, caption: "a caption", mimetype: "image/png" })
    const image = await sim.nextMessage(alice)
    expect(image.media).toMatchObject({ kind: "image", mimetype: "image/png", caption: "a caption" })
    expect(image.media!.bytes.equals(PNG)).toBe(true)

    const pdf = randomBytes(50_000)
    await client.sock.sendMessage(alice.pnJid, { document: pdf, mimetype: "application/pdf", fileName: "report.pdf", caption: "Q3" })
    const document = await sim.nextMessage(alice)
    expect(document.media).toMatchObject({ kind: "document", mimetype: "application/pdf", fileName: "report.pdf", caption: "Q3" })
    expect(document.media!.bytes.equals(pdf)).toBe(true)

    const photo = randomBytes(20_000)
    const id = await sim.sendInbound(alice, { image: photo, caption: "from alice", mimetype: "image/jpeg" })
    const { message } = await client.waitFor(() => client.upserts.find((entry) => entry.message.key.id === id), "the inbound image")
    expect(message.message?.imageMessage?.caption).toBe("from alice")
    const downloaded = await downloadMediaMessage(message, "buffer", {})
    expect(Buffer.from(downloaded).equals(photo)).toBe(true)
  })

  test("group send: every member decrypts (sender key distribution, then sender key only), group receipts become message-receipt.update", async () => {
    const sim = await scope.sim()
    const alice = sim.contact({ phoneNumber: "+15550002222", autoReceipts: "none" })
    const bob = sim.contact({ phoneNumber: "+15550003333", autoReceipts: "none" })
    const group = sim.group({ subject: "Team", members: [alice, bob], admins: ["me"] })
    const { client } = await scope.paired(sim)

    const sent = await client.sock.sendMessage(group.jid, { text: "hello team" })
    const first = await sim.nextMessage(group)
    expect(first.id).toBe(sent!.key.id!)
    expect(first.copies.map((copy) => [copy.contact.phoneNumber, copy.message.extendedTextMessage?.text ?? copy.message.conversation])).toEqual([
      [alice.phoneNumber, "hello team"],
      [bob.phoneNumber, "hello team"],
    ])
    expect(getBinaryNodeChild(first.stanza, "participants")).toBeDefined()

    // The members kept the sender key: the second message carries no per-member copies.
    await client.sock.sendMessage(group.jid, { text: "second" })
    const second = await sim.nextMessage(group)
    expect(second.text).toBe("second")
    expect(second.copies).toHaveLength(2)
    expect(getBinaryNodeChild(second.stanza, "participants")).toBeUndefined()

    await client.waitForOwnUpsert(first.id)
    sim.deliver(first.id, alice)
    sim.read(first.id, bob)
    const receipts = await client.waitFor(() => {
      const mine = client.receiptUpdates.filter((entry) => entry.key.id === first.id)
      return mine.length >= 2 ? mine : undefined
    }, "two group receipts")
    const summary = receipts.map((entry) => ({ user: entry.receipt.userJid ?? "", delivered: !!entry.receipt.receiptTimestamp, read: !!entry.receipt.readTimestamp }))
    expect(summary.sort((a, b) => a.user.localeCompare(b.user))).toEqual([
      { user: alice.pnJid, delivered: true, read: false },
      { user: bob.pnJid, delivered: false, read: true },
    ])
  })

  test("a LID-addressed group: Baileys sends as its LID and members still decrypt; receipts name members by LID", async () => {
    const sim = await scope.sim()
    const alice = sim.contact({ phoneNumber: "+15550002222", autoReceipts: "none" })
    const group = sim.group({ subject: "LID team", members: [alice], addressing: "lid" })
    const { client } = await scope.paired(sim)

    await client.sock.sendMessage(group.jid, { text: "hello lid group" })
    const message = await sim.nextMessage(group)
    expect(message.stanza.attrs.addressing_mode).toBe("lid")
    expect(message.text).toBe("hello lid group")

    await client.waitForOwnUpsert(message.id)
    sim.read(message.id, alice)
    const receipt = await client.waitFor(() => client.receiptUpdates.find((entry) => entry.key.id === message.id), "the group read receipt")
    expect(receipt.receipt.userJid).toBe(alice.lidJid)
  })

  test("onWhatsApp leaves out numbers that are not on WhatsApp", async () => {
    const sim = await scope.sim()
    const alice = sim.contact({ phoneNumber: "+15550002222" })
    sim.contact({ phoneNumber: "+15550005555", onWhatsApp: false })
    const { client } = await scope.paired(sim)

    const found = await client.sock.onWhatsApp("+15550002222", "+15550005555", "+15550006666")
    expect(found).toEqual([{ jid: alice.pnJid, exists: true }])
  })
})

describe("wa-sim: receiving", () => {
  test("inbound 1:1 PN- and LID-addressed and a group message arrive as messages.upsert notify with the right jids, and Baileys sends receipts", async () => {
    const sim = await scope.sim()
    const alice = sim.contact({ phoneNumber: "+15550002222", name: "Alice" })
    const bob = sim.contact({ phoneNumber: "+15550003333", name: "Bob", addressing: "lid" })
    const group = sim.group({ subject: "Team", members: [alice, bob] })
    const { client } = await scope.paired(sim)
    const upsertOf = (id: string) => client.waitFor(() => client.upserts.find((entry) => entry.message.key.id === id), `the upsert of ${id}`)

    const fromAlice = await upsertOf(await sim.sendInbound(alice, { text: "pn hello" }))
    expect(fromAlice.type).toBe("notify")
    expect(fromAlice.message.key).toMatchObject({ remoteJid: alice.pnJid, remoteJidAlt: alice.lidJid, fromMe: false, addressingMode: "pn" })
    expect(fromAlice.message.pushName).toBe("Alice")
    expect(fromAlice.message.message?.conversation).toBe("pn hello")

    const fromBob = await upsertOf(await sim.sendInbound(bob, { text: "lid hello" }))
    expect(fromBob.type).toBe("notify")
    expect(fromBob.message.key).toMatchObject({ remoteJid: bob.lidJid, remoteJidAlt: bob.pnJid, fromMe: false, addressingMode: "lid" })
    expect(fromBob.message.message?.conversation).toBe("lid hello")

    const again = await upsertOf(await sim.sendInbound(alice, { text: "second" }))
    expect(again.message.message?.conversation).toBe("second")

    const inGroup = await upsertOf(await sim.sendInbound(alice, { text: "group hello" }, { group }))
    expect(inGroup.type).toBe("notify")
    expect(inGroup.message.key).toMatchObject({ remoteJid: group.jid, participant: alice.pnJid, participantAlt: alice.lidJid, fromMe: false })
    expect(inGroup.message.message?.conversation).toBe("group hello")

    const inGroupAgain = await upsertOf(await sim.sendInbound(alice, { text: "group again" }, { group }))
    expect(inGroupAgain.message.message?.conversation).toBe("group again")

    const ids = [fromAlice, fromBob, again, inGroup, inGroupAgain].map((entry) => entry.message.key.id)
    await sim.waitFor(
      () => (ids.every((id) => sim.clientStanzas.some(({ node }) => node.tag === "receipt" && node.attrs.id === id)) ? true : undefined),
      "Baileys' delivery receipts for every inbound message",
    )
  })
})
