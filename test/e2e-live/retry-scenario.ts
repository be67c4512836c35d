import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { randomBytes } from "node:crypto"
import type { SimContact } from "../wa-sim/contact"
import { generateLoopbackCertificate } from "../wa-sim/media-cert"
import { startWaSim, type WaSim } from "../wa-sim/sim"
import { TestCa } from "../wa-sim/test-ca"
import { startTlsFront, type TlsFront } from "../wa-sim/tls-front"
import { ApiClient, FileHost, PNG, poll, WagateProcess } from "./live-world"

/*
 * Retry receipts against wagate as a real process: a contact that could not decrypt a message
 * asks for it again (`<receipt type="retry">`, test/wa-sim/retry-receipts.ts) and must get a
 * resend that decrypts to the same text or media. Baileys answers from its own cache of recent
 * sends (five minutes, keyed by the jid it sent to) and otherwise from wagate's `getMessage`, so
 * the cases that prove wagate's store are a retry from the LID of a contact messaged by number
 * and any retry after a restart (docs/live-whatsapp.md, "Retry receipts"). The tests run in order
 * on one simulator and one wagate; `transport` says whether wagate reaches the simulator directly
 * (`ws://`) or through the TLS front (`wss://`, as in production).
 */

const ME = "+15550001111"
const TEST_TIMEOUT_MS = 30_000
const PAIRING_TEST_TIMEOUT_MS = 45_000

export function describeRetryReceipts(label: string, options: { transport: "ws" | "tls"; prepare: () => Promise<string[] | undefined>; prepareTimeoutMs: number }): void {
  let sim: WaSim
  let front: TlsFront | undefined
  let ca: TestCa | undefined
  let files: FileHost
  let wagate: WagateProcess
  let api: ApiClient
  let phoneId = ""
  let alice: SimContact
  const sent = { text: "", image: "" }
  const document = new Uint8Array(randomBytes(30_000))

  beforeAll(async () => {
    const command = await options.prepare()
    const cert = await generateLoopbackCertificate()
    sim = await startWaSim({ mediaCert: cert, log: process.env.WA_SIM_TRACE ? (line) => console.log(`[wa-sim] ${line}`) : undefined })
    files = new FileHost(cert)
    alice = sim.contact({ phoneNumber: "+15550002222", name: "Alice" })
    let wsUrl = sim.wsUrl
    let trustFile = sim.mediaCaPath
    if (options.transport === "tls") {
      ca = await TestCa.create()
      front = await startTlsFront({ upstreamUrl: sim.wsUrl, certificate: await ca.issue() })
      wsUrl = front.wsUrl
      trustFile = await ca.trustFile(sim.mediaCaPem)
    }
    wagate = await WagateProcess.start(
      {
        WAGATE_WA_WS_URL: wsUrl,
        // Bun reads extra CAs once, at start: the front's CA (over TLS) and the media hosts' certificate.
        NODE_EXTRA_CA_CERTS: trustFile,
        WAGATE_OUTBOUND_ALLOW_CIDRS: "127.0.0.1/32",
        WAGATE_SEND_INTERVAL_MS: "50",
        WAGATE_RATE_LIMIT_PER_MINUTE: "1000000",
        WAGATE_LOG_LEVEL: process.env.WAGATE_LOG_LEVEL ?? "error",
      },
      { command },
    )
    const key = await wagate.adminOk("POST", `/accounts/${wagate.accountId}/keys`, {
      environment: "live",
      name: "retry receipts",
      scopes: ["messages:send", "messages:read", "phone_numbers:read"],
    })
    api = new ApiClient(wagate, key.key)
    phoneId = (await wagate.adminOk("POST", `/accounts/${wagate.accountId}/phones`, { phoneNumber: ME, displayName: "Support" })).id
  }, options.prepareTimeoutMs + 30_000)

  afterAll(async () => {
    await wagate?.dispose()
    await files?.stop()
    await front?.stop()
    await ca?.dispose()
    await sim?.stop()
  }, 30_000)

  /** The WhatsApp id of a sent API message's only part, once the contact has it. */
  async function delivered(messageId: string): Promise<string> {
    const received = await sim.nextMessage(alice, { timeoutMs: 15_000 })
    await api.messageWithStatus(messageId, "read")
    return received.id
  }

  describe(`retry receipts, ${label}`, () => {
    test("pairs by QR", async () => {
      await wagate.adminOk("POST", `/phones/${phoneId}/connect`, { method: "qr" })
      await sim.primary(ME).scanShownQr(async () => (await wagate.adminOk("GET", `/phones/${phoneId}/pairing`)).qr ?? undefined)
      await api.phoneWithStatus(phoneId, "connected", 15_000)
    }, PAIRING_TEST_TIMEOUT_MS)

    test("a text sent to the number is resent on a retry from the number and on one from the LID, and decrypts to the same text", async () => {
      const message = await api.send({ fromPhoneId: phoneId, to: `+${alice.phoneNumber}`, content: "did you get this?" })
      sent.text = await delivered(message.id)
      const fromPn = await sim.requestRetry(alice, sent.text, { from: "pn", timeoutMs: 10_000 })
      expect(fromPn.text).toBe("did you get this?")
      // Baileys' own cache is keyed by the number: only wagate's store can answer the LID.
      const fromLid = await sim.requestRetry(alice, sent.text, { from: "lid", timeoutMs: 10_000 })
      expect(fromLid.text).toBe("did you get this?")
      expect(fromLid.to).toBe(alice.lidJid)
    }, TEST_TIMEOUT_MS)

    test("an image and a document are resent on a retry from the LID with a fresh key bundle, and decrypt byte-exact", async () => {
      const imageUrl = files.put("/retry.png", PNG, "image/png")
      const image = await api.send({ fromPhoneId: phoneId, to: `+${alice.phoneNumber}`, content: "the photo", mediaUrls: [imageUrl] })
      sent.image = await delivered(image.id)
      const resentImage = await sim.requestRetry(alice, sent.image, { from: "lid", count: 2, timeoutMs: 10_000 })
      expect(resentImage.media).toMatchObject({ kind: "image", caption: "the photo", mimetype: "image/png" })
      expect(resentImage.media!.bytes.equals(PNG)).toBe(true)

      const docUrl = files.put("/retry.bin", document, "application/octet-stream")
      const doc = await api.send({ fromPhoneId: phoneId, to: `+${alice.phoneNumber}`, mediaUrls: [docUrl] })
      const docId = await delivered(doc.id)
      const resentDoc = await sim.requestRetry(alice, docId, { from: "lid", timeoutMs: 10_000 })
      expect(resentDoc.media?.kind).toBe("document")
      expect(resentDoc.media!.bytes.equals(Buffer.from(document))).toBe(true)
    }, TEST_TIMEOUT_MS)

    test("after a restart of wagate (Baileys' cache is gone) a retry from the number and one from the LID still get text and media", async () => {
      await wagate.restart()
      await api.phoneWithStatus(phoneId, "connected", 20_000)
      await sim.waitFor(() => (sim.loggedInConnections(ME).length === 1 ? true : undefined), "the phone's socket after the restart", 20_000)

      const text = await sim.requestRetry(alice, sent.text, { from: "pn", timeoutMs: 10_000 })
      expect(text.text).toBe("did you get this?")
      const image = await sim.requestRetry(alice, sent.image, { from: "lid", timeoutMs: 10_000 })
      expect(image.media!.bytes.equals(PNG)).toBe(true)
    }, PAIRING_TEST_TIMEOUT_MS)
  })
}
