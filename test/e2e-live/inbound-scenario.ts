import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { createHash, randomBytes } from "node:crypto"
import { readdirSync, statSync } from "node:fs"
import { join } from "node:path"
import type { SimContact } from "../wa-sim/contact"
import { contactCard, edit, location, quotedReply, reaction, revoke } from "../wa-sim/inbound-kinds"
import { generateLoopbackCertificate } from "../wa-sim/media-cert"
import { startWaSim, type WaSim } from "../wa-sim/sim"
import { TestCa } from "../wa-sim/test-ca"
import { startTlsFront, type TlsFront } from "../wa-sim/tls-front"
import { SLOW_HOOK_TIMEOUT_MS } from "../helpers/timeouts"
import { ApiClient, Hooks, PNG, poll, WagateProcess } from "./live-world"

/*
 * The richer inbound side end to end (docs/api.md § "Inbound media: GET
 * /v1/messages/inbound/{messageId}/media", docs/webhooks.md § "Reactions, edits and deletions"):
 * a simulated contact writes through the simulator, unmodified Baileys in wagate (from source, or
 * the compiled executable) decrypts it over the TLS front (wss://, as in production), and wagate
 * records and serves it.
 * Media goes through the simulator's HTTPS media host (WhatsApp's CDN), encrypted by the
 * contact; wagate must decrypt it byte-exact, and get a re-upload when the host forgot the file.
 */

/** The cases against a wagate started from source (`prepare` gives no command) or as the compiled executable. */
export function describeInboundRicher(label: string, options: { prepare: () => Promise<string[] | undefined>; prepareTimeoutMs: number }): void {
  const ME = "+15550041111"
  let sim: WaSim
  let front: TlsFront
  let ca: TestCa
  let wagate: WagateProcess
  let api: ApiClient
  let hooks: Hooks
  let alice: SimContact
  let phoneId = ""

  beforeAll(async () => {
    const cert = await generateLoopbackCertificate()
    sim = await startWaSim({ mediaCert: cert, log: process.env.WA_SIM_TRACE ? (line) => console.log(`[wa-sim] ${line}`) : undefined })
    alice = sim.contact({ phoneNumber: "+15550042222", name: "Alice" })
    ca = await TestCa.create()
    front = await startTlsFront({ upstreamUrl: sim.wsUrl, certificate: await ca.issue() })
    hooks = new Hooks()
    const command = await options.prepare()
    wagate = await WagateProcess.start({
      WAGATE_WA_WS_URL: front.wsUrl,
      // Bun reads extra CAs once, at start: the front's CA and the media host's certificate.
      NODE_EXTRA_CA_CERTS: await ca.trustFile(sim.mediaCaPem),
      WAGATE_SEND_INTERVAL_MS: "50",
      WAGATE_RATE_LIMIT_PER_MINUTE: "1000000",
      WAGATE_LOG_LEVEL: process.env.WAGATE_LOG_LEVEL ?? "error",
    }, { command })
    const key = await wagate.adminOk("POST", `/accounts/${wagate.accountId}/keys`, { environment: "live", name: "inbound", scopes: ["messages:send", "messages:read"] })
    api = new ApiClient(wagate, key.key)
    const endpoint = await wagate.adminOk("POST", `/accounts/${wagate.accountId}/webhooks`, { url: hooks.url, environment: "live", events: ["*"] })
    hooks.secret = endpoint.secret
    phoneId = (await wagate.adminOk("POST", `/accounts/${wagate.accountId}/phones`, { phoneNumber: ME })).id
    await wagate.adminOk("POST", `/phones/${phoneId}/connect`, { method: "qr" })
    await sim.primary(ME).scanShownQr(async () => (await wagate.adminOk("GET", `/phones/${phoneId}/pairing`)).qr ?? undefined)
    await api.phoneWithStatus(phoneId, "connected", 20_000)
  }, options.prepareTimeoutMs + SLOW_HOOK_TIMEOUT_MS)

  afterAll(async () => {
    await wagate?.dispose()
    await hooks?.stop()
    await front?.stop()
    await ca?.dispose()
    await sim?.stop()
  }, SLOW_HOOK_TIMEOUT_MS)

  /** The inbound message wagate recorded for a WhatsApp id the simulator wrote, found by its content. */
  async function inboundWhere(what: string, match: (m: any) => boolean): Promise<any> {
    return poll(async () => {
      const res = await api.call("GET", "/messages/inbound?limit=100")
      return (res.body.data.data as any[]).find(match)
    }, what, 15_000)
  }

  async function media(id: string): Promise<Response> {
    return fetch(`${wagate.base}/v1/messages/inbound/${id}/media`, { headers: { authorization: `Bearer ${api.key}` } })
  }

  const sha = (b: Uint8Array) => createHash("sha256").update(b).digest("hex")
  const serverErrorReceipts = () => sim.clientStanzas.retained.filter((s) => s.node.tag === "receipt" && s.node.attrs.type === "server-error").length

  describe(`inbound over the TLS front, ${label}`, () => {
    test("a document the contact uploaded is decrypted byte-exact and served with its type, length and name; then from the 0600 cache", async () => {
      const bytes = new Uint8Array(randomBytes(300_001))
      await sim.sendInbound(alice, { document: bytes, fileName: "contract.pdf", mimetype: "application/pdf", caption: "signed" })
      const m = await inboundWhere("the document", (x) => x.content === "signed")
      expect(m).toMatchObject({ type: "document", media: { mimetype: "application/pdf", size: bytes.length, fileName: "contract.pdf" }, replyTo: null })
      const res = await media(m.id)
      expect(res.status).toBe(200)
      expect(res.headers.get("content-type")).toBe("application/pdf")
      expect(res.headers.get("content-length")).toBe(String(bytes.length))
      expect(res.headers.get("content-disposition")).toBe(`attachment; filename="contract.pdf"; filename*=UTF-8''contract.pdf`)
      expect(sha(new Uint8Array(await res.arrayBuffer()))).toBe(sha(bytes))
      const again = await media(m.id)
      expect(sha(new Uint8Array(await again.arrayBuffer()))).toBe(sha(bytes))
      const cached = join(wagate.dataDir, "media-cache", m.id)
      expect(statSync(cached).mode & 0o777).toBe(0o600)
      expect(readdirSync(join(wagate.dataDir, "media-cache")).filter((n) => n.startsWith(".part-"))).toEqual([])
    })

    test("media WhatsApp's host forgot (410) is uploaded again by the contact's phone on request and served", async () => {
      const id = await sim.sendInbound(alice, { image: PNG, caption: "old photo", mimetype: "image/png" })
      const m = await inboundWhere("the image", (x) => x.content === "old photo")
      sim.expireMedia(id, { status: 410, answer: "reupload" })
      const before = serverErrorReceipts()
      const res = await media(m.id)
      expect(res.status).toBe(200)
      expect(Buffer.from(await res.arrayBuffer()).equals(PNG)).toBe(true)
      expect(res.headers.get("content-disposition")).toStartWith("inline;")
      expect(serverErrorReceipts() - before).toBe(1)
    })

    test("media the contact's phone no longer has either (404, then NOT_FOUND) is 410, and asked for once", async () => {
      const id = await sim.sendInbound(alice, { document: new Uint8Array(randomBytes(5_000)), fileName: "gone.bin", mimetype: "application/octet-stream", caption: "lost" })
      const m = await inboundWhere("the lost document", (x) => x.content === "lost")
      sim.expireMedia(id, { status: 404, answer: "not_found" })
      const before = serverErrorReceipts()
      expect((await media(m.id)).status).toBe(410)
      const second = await api.call("GET", `/messages/inbound/${m.id}/media`)
      expect(second.status).toBe(410)
      expect(second.body.error).toBe("Gone")
      expect(serverErrorReceipts() - before).toBe(1)
    })

    test("a quoted reply names our message; a location and a contact card arrive in the shapes sends use", async () => {
      const ours = await api.send({ fromPhoneId: phoneId, to: `+${alice.phoneNumber}`, content: "Your table is booked" })
      const delivered = await sim.nextMessage(alice, { timeoutMs: 15_000 })
      await sim.sendInbound(alice, quotedReply("thanks!", { id: delivered.id, participant: `${ME.slice(1)}@s.whatsapp.net`, text: "Your table is booked" }))
      await sim.sendInbound(alice, location({ latitude: 48.8584, longitude: 2.2945, name: "Tour Eiffel", address: "Champ de Mars, Paris" }))
      await sim.sendInbound(alice, contactCard({ name: "Bob, Jr.", phoneNumbers: ["+15550043333"], organization: "Bistro", email: "bob@example.com" }))
      const reply = await inboundWhere("the reply", (x) => x.content === "thanks!")
      expect(reply.replyTo).toBe(ours.id)
      const place = await inboundWhere("the location", (x) => x.type === "location")
      expect(place.location).toEqual({ latitude: 48.8584, longitude: 2.2945, name: "Tour Eiffel", address: "Champ de Mars, Paris" })
      const card = await inboundWhere("the contact", (x) => x.type === "contact")
      expect(card.contact).toEqual({ name: "Bob, Jr.", phoneNumbers: ["+15550043333"], organization: "Bistro", email: "bob@example.com" })
    })

    test("reactions, an edit and a deletion reach their targets and the webhooks", async () => {
      const ours = await api.send({ fromPhoneId: phoneId, to: `+${alice.phoneNumber}`, content: "How was dinner?" })
      const delivered = await sim.nextMessage(alice, { timeoutMs: 15_000 })
      const myJid = `${ME.slice(1)}@s.whatsapp.net`
      const theirs = await sim.sendInbound(alice, { text: "it was grate" })
      const received = await inboundWhere("alice's text", (x) => x.content === "it was grate")
      const atMs = Date.now() - 1_000
      await sim.sendInbound(alice, reaction({ remoteJid: myJid, id: delivered.id, fromMe: false }, "❤️", atMs))
      await sim.sendInbound(alice, reaction({ remoteJid: myJid, id: theirs, fromMe: true }, "👍", atMs))
      await sim.sendInbound(alice, edit({ remoteJid: myJid, id: theirs, fromMe: true }, "it was great", atMs))
      const onOurs = await hooks.next("message.reaction", (d) => d.messageId === ours.id)
      expect(onOurs).toEqual({ messageId: ours.id, from: `+${alice.phoneNumber}`, emoji: "❤️", removed: false, at: new Date(atMs).toISOString() })
      const onTheirs = await hooks.next("message.reaction", (d) => d.messageId === received.id)
      expect(onTheirs.emoji).toBe("👍")
      const edited = await hooks.next("message.edited", (d) => d.messageId === received.id)
      expect(edited).toMatchObject({ from: `+${alice.phoneNumber}`, content: "it was great" })
      expect((await api.call("GET", `/messages/inbound/${received.id}`)).body.data.content).toBe("it was great")

      await sim.sendInbound(alice, reaction({ remoteJid: myJid, id: delivered.id, fromMe: false }, "", atMs + 10))
      const removed = await hooks.next("message.reaction", (d) => d.messageId === ours.id && d.removed)
      expect(removed.emoji).toBe("")
      await sim.sendInbound(alice, revoke({ remoteJid: myJid, id: theirs, fromMe: true }))
      const revoked = await hooks.next("message.revoked", (d) => d.messageId === received.id)
      expect(revoked.from).toBe(`+${alice.phoneNumber}`)
      // Reactions, edits and deletions are not messages of their own.
      const all = (await api.call("GET", "/messages/inbound?limit=100")).body.data.data as any[]
      expect(all.filter((x) => x.type === "other")).toEqual([])
    })

    test("a contact who wrote by LID alone, then with the number, is one chat under the number holding both (docs/api.md § \"Chats and contacts\")", async () => {
      const lea = sim.contact({ phoneNumber: "+15550043333", name: "Lea", addressing: "lid", hidesNumber: true })
      await sim.sendInbound(lea, { text: "hi, by LID" })
      await inboundWhere("the LID message", (x) => x.content === "hi, by LID" && x.from === lea.lidJid)
      lea.hidesNumber = false
      await sim.sendInbound(lea, { text: "and with my number" })
      const number = `+${lea.phoneNumber}`
      await inboundWhere("the message with the number", (x) => x.content === "and with my number" && x.from === number)
      const chats = (await api.call("GET", `/chats?fromPhoneId=${encodeURIComponent(ME)}&limit=100`)).body.data.chats as any[]
      expect(chats.filter((c) => c.id === number || c.id === lea.lidJid).map((c) => [c.id, c.unreadCount])).toEqual([[number, 2]])
      for (const chatId of [number, lea.lidJid]) {
        const timeline = (await api.call("GET", `/chats/${encodeURIComponent(chatId)}/messages?fromPhoneId=${encodeURIComponent(ME)}`)).body.data.messages as any[]
        expect(timeline.map((m) => m.content)).toEqual(["and with my number", "hi, by LID"])
      }
    })
  })
}
