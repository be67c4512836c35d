import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { randomBytes } from "node:crypto"
import { generateLoopbackCertificate } from "../wa-sim/media-cert"
import { startWaSim, type WaSim } from "../wa-sim/sim"
import type { SimContact } from "../wa-sim/contact"
import type { SimGroup } from "../wa-sim/groups"
import { ApiClient, FileHost, Hooks, pdfBytes, PNG, poll, WagateProcess } from "./live-world"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * wagate end to end against the WhatsApp simulator: a real `wagate serve` child process whose
 * Baileys connects to the simulator through WAGATE_WA_WS_URL, driven only through /v1 and
 * /admin/v1, its webhooks read (and their signatures verified) by a real receiver. One simulator,
 * one data directory and one phone paired in the first test serve the whole file, in order; the
 * restart test restarts the same process on the same data directory.
 */

const ME = "+15550001111"
/** The second phone, paired by code, later logged out by WhatsApp. */
const OTHER = "+15550009999"
const NOT_ON_WHATSAPP = "+15550006666"
const TEST_TIMEOUT_MS = 20_000

let sim: WaSim
let wagate: WagateProcess
let api: ApiClient
let hooks: Hooks
let files: FileHost
let phoneId = ""
let otherPhoneId = ""

/** Contacts and groups, all created before any phone connects (wagate caches group lists). */
let alice: SimContact // manual ack and receipts: every step is the test's
let bob: SimContact // read receipts off
let carol: SimContact // acks and reads by herself
let rita: SimContact // manual ack: gets the 463
let gina: SimContact // writes PN-addressed
let henry: SimContact // writes LID-addressed
let erin: SimContact // group member, manual receipts
let frank: SimContact // group member, manual receipts
let ivy: SimContact // acks and reads by herself: the reconnect and restart sends
let team: SimGroup // postable
let news: SimGroup // announcement-only, the phone is not an admin
let board: SimGroup // announcement-only, the phone is an admin: postable
let lidTeam: SimGroup // LID-addressed, postable

beforeAll(async () => {
  const cert = await generateLoopbackCertificate()
  sim = await startWaSim({ mediaCert: cert, log: process.env.WA_SIM_TRACE ? (line) => console.log(`[wa-sim] ${line}`) : undefined })
  files = new FileHost(cert)
  hooks = new Hooks()

  alice = sim.contact({ phoneNumber: "+15550002222", name: "Alice", autoAck: false, autoReceipts: "none" })
  bob = sim.contact({ phoneNumber: "+15550003333", name: "Bob", readReceipts: false })
  carol = sim.contact({ phoneNumber: "+15550004444", name: "Carol" })
  rita = sim.contact({ phoneNumber: "+15550005555", name: "Rita", autoAck: false, autoReceipts: "none" })
  gina = sim.contact({ phoneNumber: "+15550007001", name: "Gina" })
  henry = sim.contact({ phoneNumber: "+15550007002", name: "Henry", addressing: "lid" })
  erin = sim.contact({ phoneNumber: "+15550008001", name: "Erin", autoReceipts: "none" })
  frank = sim.contact({ phoneNumber: "+15550008002", name: "Frank", autoReceipts: "none" })
  ivy = sim.contact({ phoneNumber: "+15550008003", name: "Ivy" })
  team = sim.group({ subject: "Team", members: [erin, frank] })
  news = sim.group({ subject: "News", members: [erin], admins: [erin], announce: true })
  board = sim.group({ subject: "Board", members: [frank], admins: ["me"], announce: true })
  lidTeam = sim.group({ subject: "LID team", members: [erin, henry], addressing: "lid" })

  wagate = await WagateProcess.start({
    WAGATE_WA_WS_URL: sim.wsUrl,
    // Bun reads extra CAs only at start: Baileys' uploads (fetch) and wagate's media downloads
    // (node:https) both trust the simulator's media host and the file host through it.
    NODE_EXTRA_CA_CERTS: sim.mediaCaPath,
    WAGATE_OUTBOUND_ALLOW_CIDRS: "127.0.0.1/32",
    WAGATE_SEND_INTERVAL_MS: "50",
    // The tests poll GET endpoints with the one live key.
    WAGATE_RATE_LIMIT_PER_MINUTE: "1000000",
    WAGATE_LOG_LEVEL: process.env.WAGATE_LOG_LEVEL ?? "error",
  })
  const key = await wagate.adminOk("POST", `/accounts/${wagate.accountId}/keys`, {
    environment: "live",
    name: "e2e live",
    scopes: ["messages:send", "messages:read", "groups:read", "phone_numbers:read", "account:read"],
  })
  expect(key.key).toStartWith("sk_live_")
  api = new ApiClient(wagate, key.key)
  const endpoint = await wagate.adminOk("POST", `/accounts/${wagate.accountId}/webhooks`, { url: hooks.url, environment: "live", events: ["*"] })
  hooks.secret = endpoint.secret
  phoneId = (await wagate.adminOk("POST", `/accounts/${wagate.accountId}/phones`, { phoneNumber: ME, displayName: "Support" })).id
  otherPhoneId = (await wagate.adminOk("POST", `/accounts/${wagate.accountId}/phones`, { phoneNumber: OTHER, displayName: "Sales" })).id
}, SLOW_HOOK_TIMEOUT_MS)

afterAll(async () => {
  await wagate?.dispose()
  await hooks?.stop()
  await files?.stop()
  await sim?.stop()
}, SLOW_HOOK_TIMEOUT_MS)

/** How many phone.connected webhooks a phone has had. */
const connections = (id: string) => hooks.matching("phone.connected", (d) => d.phoneId === id).length

/** Waits for a phone's next phone.connected webhook (after `before` of them), then for its status. */
async function reconnected(id: string, before: number): Promise<void> {
  await poll(() => (connections(id) > before ? true : undefined), `phone ${id} to connect again`)
  await api.phoneWithStatus(id, "connected")
}

/**
 * True when no event repeats. Contacts that ack and read by themselves may have their delivery
 * and read folded into one update (sent → read, no message.delivered), so flows without manual
 * receipts check sent and read only, each exactly once.
 */
const once = (events: string[]) => new Set(events).size === events.length

/** A contact's E.164 number (the simulator keeps digits only). */
const e164 = (contact: SimContact) => `+${contact.phoneNumber}`

/** Sends text from the paired phone. */
function sendText(to: string, content: string, from = phoneId): Promise<any> {
  return api.send({ fromPhoneId: from, to, content })
}

describe("wagate against the WhatsApp simulator", () => {
  test("1. pairs by QR: connect → the raw QR from GET …/pairing → the phone scans it → connected + phone.connected", async () => {
    const started = await wagate.adminOk("POST", `/phones/${phoneId}/connect`, { method: "qr" })
    expect(started.connectionStatus).toBe("pairing")
    const qr = await poll(async () => (await wagate.adminOk("GET", `/phones/${phoneId}/pairing`)).qr ?? undefined, "a QR in GET /pairing")
    expect(qr).toStartWith("https://wa.me/settings/linked_devices#")

    // The simulator retires the secret of the first QR scanned, as WhatsApp does since July 2026:
    // the admin API then shows the same ref with a new secret, and that scan links.
    const linked = await sim.primary(ME).scanShownQr(async () => (await wagate.adminOk("GET", `/phones/${phoneId}/pairing`)).qr ?? undefined)
    expect(linked.refusedQrs).toEqual([qr])
    expect(sim.clientStanzas.some(({ node }) => node.tag === "ack" && node.attrs.type === "companion_reg_refresh")).toBe(true)
    expect(linked.jid).toBe(`${ME.slice(1)}:1@s.whatsapp.net`)
    const phone = await api.phoneWithStatus(phoneId, "connected")
    expect(phone.lastConnectedAt).not.toBeNull()
    const pairing = await wagate.adminOk("GET", `/phones/${phoneId}/pairing`)
    expect(pairing).toMatchObject({ connectionStatus: "connected", qr: null, pairingCode: null })

    const event = await hooks.next("phone.connected", (d) => d.phoneId === phoneId)
    expect(event).toMatchObject({ phoneId, phoneNumber: ME, connectionStatus: "connected", reason: null, willReconnect: false })
    expect(sim.loggedInConnections(ME)).toHaveLength(1)
  }, TEST_TIMEOUT_MS)

  test("2. live text: the contact decrypts it; ack → sent, delivery → delivered, read → read, each with its webhook; read receipts off stays delivered", async () => {
    const message = await sendText(e164(alice), "hello alice")
    expect(message).toMatchObject({ status: "pending", environment: "live", from: ME, to: e164(alice) })

    const received = await sim.nextMessage(alice)
    expect(received.text).toBe("hello alice")
    expect(received.copies.map((copy) => copy.contact)).toEqual([alice])
    // Nothing is "sent" before WhatsApp's server acknowledges it.
    expect((await api.message(message.id)).status).toBe("pending")

    sim.ack(received.id)
    const sent = await api.messageWithStatus(message.id, "sent")
    expect(sent.sentAt).not.toBeNull()
    expect(await hooks.next("message.sent", (d) => d.messageId === message.id)).toMatchObject({ status: "sent", from: ME, to: e164(alice) })

    sim.deliver(received.id, alice)
    expect((await api.messageWithStatus(message.id, "delivered")).deliveredAt).not.toBeNull()
    await hooks.next("message.delivered", (d) => d.messageId === message.id)

    sim.read(received.id, alice)
    const read = await api.messageWithStatus(message.id, "read")
    expect(read.readAt).not.toBeNull()
    expect(await hooks.next("message.read", (d) => d.messageId === message.id)).toMatchObject({ status: "read" })
    expect(hooks.ofMessage(message.id)).toEqual(["message.sent", "message.delivered", "message.read"])

    // Bob has read receipts off: delivered, and never read.
    const toBob = await sendText(e164(bob), "are you there?")
    await sim.nextMessage(bob)
    await api.messageWithStatus(toBob.id, "delivered")
    // A later message to Carol gets read: by then a read from Bob would have arrived too.
    const toCarol = await sendText(e164(carol), "hi carol")
    await sim.nextMessage(carol)
    await api.messageWithStatus(toCarol.id, "read")
    await hooks.next("message.read", (d) => d.messageId === toCarol.id)
    expect((await api.message(toBob.id)).status).toBe("delivered")
    // Bob's ack and delivery arrive together: their webhooks may cross, so only the set counts.
    expect((await hooks.forMessage(toBob.id, ["message.sent", "message.delivered"])).sort()).toEqual(["message.delivered", "message.sent"])
  }, TEST_TIMEOUT_MS)

  test("3. an image with caption and a document, fetched by wagate from a local HTTPS host, reach the contact byte-exact", async () => {
    const pdf = pdfBytes(randomBytes(20_000))
    const imageUrl = files.put("/file.png", PNG, "image/png")
    const docUrl = files.put("/report.pdf", pdf, "application/pdf")

    const withCaption = await api.send({ fromPhoneId: phoneId, to: e164(carol), content: "a caption", mediaUrls: [imageUrl] })
    const image = await sim.nextMessage(carol)
    expect(image.media).toMatchObject({ kind: "image", mimetype: "image/png", caption: "a caption" })
    expect(Buffer.from(image.media!.bytes).equals(PNG)).toBe(true)
    await api.messageWithStatus(withCaption.id, "read")

    const document = await api.send({ fromPhoneId: phoneId, to: e164(carol), content: "Q3", mediaUrls: [docUrl] })
    const doc = await sim.nextMessage(carol)
    expect(doc.media).toMatchObject({ kind: "document", mimetype: "application/pdf", fileName: "report.pdf", caption: "Q3" })
    expect(Buffer.from(doc.media!.bytes).equals(Buffer.from(pdf))).toBe(true)
    await api.messageWithStatus(document.id, "read")
    expect(files.requests.filter((path) => path === "/file.png" || path === "/report.pdf")).toEqual(["/file.png", "/report.pdf"])

    // Both in one message: two WhatsApp messages, the text rides on the image only; one status.
    const both = await api.send({ fromPhoneId: phoneId, to: e164(carol), content: "both", mediaUrls: [docUrl, imageUrl] })
    const parts = [await sim.nextMessage(carol), await sim.nextMessage(carol)]
    expect(parts.map((m) => [m.media?.kind, m.media?.caption ?? null])).toEqual([
      ["document", "both"],
      ["image", null],
    ])
    expect(Buffer.from(parts[0]!.media!.bytes).equals(Buffer.from(pdf))).toBe(true)
    expect(Buffer.from(parts[1]!.media!.bytes).equals(PNG)).toBe(true)
    await api.messageWithStatus(both.id, "read")
    expect(once(await hooks.forMessage(both.id, ["message.sent", "message.read"]))).toBe(true)
  }, TEST_TIMEOUT_MS)

  test("4. groups: a postable group gets the message and its receipts; an announcement group without admin → failed group_not_allowed; GET /v1/groups lists only postable groups", async () => {
    const listed = await api.call("GET", `/groups?fromPhoneId=${phoneId}`)
    expect(listed.status).toBe(200)
    const byId = (a: { id: string }, b: { id: string }) => a.id.localeCompare(b.id)
    expect(listed.body.data.sort(byId)).toEqual(
      [
        { id: team.jid, name: "Team", isCommunityAnnounce: false },
        { id: board.jid, name: "Board", isCommunityAnnounce: true },
        { id: lidTeam.jid, name: "LID team", isCommunityAnnounce: false },
      ].sort(byId),
    )

    const toTeam = await api.send({ fromPhoneId: phoneId, to: team.jid, content: "hello team" })
    expect(toTeam).toMatchObject({ isGroup: true, groupId: team.jid })
    const received = await sim.nextMessage(team)
    expect(received.copies.map((copy) => [e164(copy.contact), copy.message.extendedTextMessage?.text ?? copy.message.conversation])).toEqual([
      [e164(erin), "hello team"],
      [e164(frank), "hello team"],
    ])
    await api.messageWithStatus(toTeam.id, "sent")
    await hooks.next("message.sent", (d) => d.messageId === toTeam.id)
    sim.deliver(received.id, erin)
    await api.messageWithStatus(toTeam.id, "delivered")
    await hooks.next("message.delivered", (d) => d.messageId === toTeam.id)
    sim.read(received.id, frank)
    await api.messageWithStatus(toTeam.id, "read")
    await hooks.next("message.read", (d) => d.messageId === toTeam.id)
    expect(hooks.ofMessage(toTeam.id)).toEqual(["message.sent", "message.delivered", "message.read"])

    const toNews = await api.send({ fromPhoneId: phoneId, to: news.jid, content: "may I?" })
    const failed = await api.messageWithStatus(toNews.id, "failed")
    expect(failed.errorCode).toBe("group_not_allowed")
    expect(await hooks.next("message.failed", (d) => d.messageId === toNews.id)).toMatchObject({ errorCode: "group_not_allowed" })
    expect(sim.outbox.all.filter((m) => m.group === news)).toEqual([])
  }, TEST_TIMEOUT_MS)

  test("5. a number not on WhatsApp → failed recipient_not_on_whatsapp; an error ack 463 to a contact who never wrote → failed privacy_token_missing", async () => {
    const nobody = await sendText(NOT_ON_WHATSAPP, "anyone?")
    expect((await api.messageWithStatus(nobody.id, "failed")).errorCode).toBe("recipient_not_on_whatsapp")
    expect(await hooks.next("message.failed", (d) => d.messageId === nobody.id)).toMatchObject({ errorCode: "recipient_not_on_whatsapp" })
    expect(sim.outbox.all.filter((m) => m.to.startsWith(NOT_ON_WHATSAPP.slice(1)))).toEqual([])

    const restricted = await sendText(e164(rita), "hello stranger")
    const received = await sim.nextMessage(rita)
    sim.ackError(received.id, 463)
    // Rita never wrote, so wagate holds no privacy token of hers (docs/live-whatsapp.md § "Error 463").
    expect((await api.messageWithStatus(restricted.id, "failed")).errorCode).toBe("privacy_token_missing")
    expect(await hooks.next("message.failed", (d) => d.messageId === restricted.id)).toMatchObject({ errorCode: "privacy_token_missing" })
    expect(hooks.ofMessage(restricted.id)).toEqual(["message.failed"])
  }, TEST_TIMEOUT_MS)

  test("6. inbound 1:1 (PN- and LID-addressed) and group messages → GET /v1/messages/inbound with the sender's E.164 + message.received", async () => {
    const pnId = await sim.sendInbound(gina, { text: "hi from gina" })
    const lidId = await sim.sendInbound(henry, { text: "hi from henry" })
    const groupId = await sim.sendInbound(erin, { text: "hi team" }, { group: team })
    const lidGroupId = await sim.sendInbound(henry, { text: "hi lid team" }, { group: lidTeam })
    const imageId = await sim.sendInbound(gina, { image: PNG, caption: "look", mimetype: "image/png" })
    expect(new Set([pnId, lidId, groupId, lidGroupId, imageId]).size).toBe(5)

    const expected = [
      { from: e164(gina), content: "hi from gina", type: "text", isGroup: false, groupId: null },
      { from: e164(henry), content: "hi from henry", type: "text", isGroup: false, groupId: null },
      { from: e164(erin), content: "hi team", type: "text", isGroup: true, groupId: team.jid },
      { from: e164(henry), content: "hi lid team", type: "text", isGroup: true, groupId: lidTeam.jid },
      { from: e164(gina), content: "look", type: "image", isGroup: false, groupId: null },
    ]
    const inbound = await poll(async () => {
      const res = await api.call("GET", `/messages/inbound?phoneNumberId=${phoneId}&limit=100`)
      const page = res.body.data?.data as any[] | undefined
      return page && page.length >= expected.length ? page : undefined
    }, "five inbound messages")
    const shape = (m: any) => ({ from: m.from, content: m.content, type: m.type, isGroup: m.isGroup, groupId: m.groupId })
    const byContent = (a: { content: string }, b: { content: string }) => a.content.localeCompare(b.content)
    expect(inbound.map(shape).sort(byContent)).toEqual([...expected].sort(byContent))
    expect(inbound.every((m) => m.to === ME)).toBe(true)

    const hooked = await poll(() => {
      const events = hooks.matching("message.received")
      return events.length >= expected.length ? events.map((e) => e.data) : undefined
    }, "five message.received webhooks")
    expect(hooked.map(shape).sort(byContent)).toEqual([...expected].sort(byContent))
    expect(new Set(hooked.map((d) => d.messageId))).toEqual(new Set(inbound.map((m) => m.id)))
  }, TEST_TIMEOUT_MS)

  test("8. pairs a second phone by code: connect {method:code} → pairingCode → the phone confirms it → connected", async () => {
    const started = await wagate.adminOk("POST", `/phones/${otherPhoneId}/connect`, { method: "code" })
    expect(started.connectionStatus).toBe("pairing")
    const code = await poll(async () => (await wagate.adminOk("GET", `/phones/${otherPhoneId}/pairing`)).pairingCode ?? undefined, "a pairing code")
    expect(code).toMatch(/^[A-Z0-9]{8}$/)
    // The simulator retires the secret after companion_finish; the one the code exchange derived must be kept.
    await sim.primary(OTHER).confirmPairingCode(code)
    await api.phoneWithStatus(otherPhoneId, "connected")
    expect(await hooks.next("phone.connected", (d) => d.phoneId === otherPhoneId)).toMatchObject({ phoneNumber: OTHER, connectionStatus: "connected" })

    const fromOther = await sendText(e164(ivy), "from the other phone", otherPhoneId)
    const received = await sim.nextMessage(ivy)
    expect(received.text).toBe("from the other phone")
    expect(received.sender.phoneNumber).toBe(OTHER.slice(1))
    await api.messageWithStatus(fromOther.id, "read")
  }, TEST_TIMEOUT_MS)

  test("7a. a dropped connection: disconnected + phone.disconnected (willReconnect), reconnect, the queued sends go out once", async () => {
    // A held media download keeps the phone's serial sender busy, so the texts behind it are
    // still queued when the connection drops; the download ends only after the reconnect.
    const release = files.hold("/slow.png")
    try {
      const slow = await api.send({ fromPhoneId: phoneId, to: e164(ivy), content: "slow one", mediaUrls: [files.put("/slow.png", PNG, "image/png")] })
      await files.requested("/slow.png")
      const queued = [await sendText(e164(ivy), "queued 1"), await sendText(e164(ivy), "queued 2")]
      const before = sim.outbox.all.length

      const connectedBefore = [connections(phoneId), connections(otherPhoneId)]
      expect(hooks.matching("phone.disconnected", (d) => d.phoneId === phoneId)).toEqual([])
      sim.dropConnections()
      expect(await hooks.next("phone.disconnected", (d) => d.phoneId === phoneId)).toMatchObject({
        connectionStatus: "disconnected",
        reason: "connection_lost",
        willReconnect: true,
      })
      // Reconnected by itself, with its saved credentials (and so did the other phone).
      await reconnected(phoneId, connectedBefore[0]!)
      await reconnected(otherPhoneId, connectedBefore[1]!)
      release()

      const received = [await sim.nextMessage(ivy), await sim.nextMessage(ivy), await sim.nextMessage(ivy)]
      expect(received.map((m) => m.media?.caption ?? m.text)).toEqual(["slow one", "queued 1", "queued 2"])
      expect(received[0]!.media).toMatchObject({ kind: "image", mimetype: "image/png" })
      for (const m of [slow, ...queued]) await api.messageWithStatus(m.id, "read")
      // Each went out once: nothing was handed to the dropped socket, nothing is sent twice.
      expect(sim.outbox.all.slice(before).map((m) => m.id)).toEqual(received.map((m) => m.id))
      for (const m of [slow, ...queued]) {
        expect(once(await hooks.forMessage(m.id, ["message.sent", "message.read"]))).toBe(true)
      }
    } finally {
      release()
    }
  }, TEST_TIMEOUT_MS)

  test("7b. wagate restarted (SIGTERM, same data directory): both phones reconnect without a QR and send", async () => {
    const connectedBefore = [connections(phoneId), connections(otherPhoneId)]
    await wagate.restart()
    await reconnected(phoneId, connectedBefore[0]!)
    await reconnected(otherPhoneId, connectedBefore[1]!)
    expect(await wagate.adminOk("GET", `/phones/${phoneId}/pairing`)).toMatchObject({ connectionStatus: "connected", qr: null, pairingCode: null })
    expect(sim.loggedInConnections(ME)).toHaveLength(1)
    expect(sim.loggedInConnections(OTHER)).toHaveLength(1)
    // The same linked devices: nothing was paired again.
    expect([...sim.primary(ME).account.devices.keys()]).toEqual([1])
    // The stop was recorded before the sockets closed; its event went out from the new process.
    expect(await hooks.next("phone.disconnected", (d) => d.phoneId === phoneId && d.reason === "server_stopped")).toMatchObject({ willReconnect: true })

    const after = await sendText(e164(ivy), "after the restart")
    expect((await sim.nextMessage(ivy)).text).toBe("after the restart")
    await api.messageWithStatus(after.id, "read")
  }, TEST_TIMEOUT_MS)

  test("7c. logged out by WhatsApp (stream error): logged_out + phone.disconnected, its queued sends fail with phone_disconnected", async () => {
    const release = files.hold("/slow-2.png")
    try {
      const slow = await api.send({ fromPhoneId: otherPhoneId, to: e164(ivy), content: "never", mediaUrls: [files.put("/slow-2.png", PNG, "image/png")] })
      await files.requested("/slow-2.png")
      const queued = await sendText(e164(ivy), "never either", otherPhoneId)
      const before = sim.outbox.all.length

      sim.streamError("logged_out", { phoneNumber: OTHER })
      const phone = await api.phoneWithStatus(otherPhoneId, "logged_out")
      expect(phone.lastDisconnectedAt).not.toBeNull()
      expect(await hooks.next("phone.disconnected", (d) => d.phoneId === otherPhoneId && d.connectionStatus === "logged_out")).toMatchObject({
        reason: "logged_out",
        willReconnect: false,
      })
      for (const m of [slow, queued]) {
        expect((await api.messageWithStatus(m.id, "failed")).errorCode).toBe("phone_disconnected")
        expect(await hooks.next("message.failed", (d) => d.messageId === m.id)).toMatchObject({ errorCode: "phone_disconnected" })
      }
      release()
      // The pairing is gone for good: no QR, no reconnect, nothing sent; the first phone is untouched.
      expect(await wagate.adminOk("GET", `/phones/${otherPhoneId}/pairing`)).toMatchObject({ connectionStatus: "logged_out", qr: null })
      expect(sim.loggedInConnections(OTHER)).toHaveLength(0)
      expect(sim.outbox.all.slice(before)).toEqual([])
      expect((await api.phone(phoneId)).connectionStatus).toBe("connected")
    } finally {
      release()
    }
  }, TEST_TIMEOUT_MS)
})
