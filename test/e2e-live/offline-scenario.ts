import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { readFileSync } from "node:fs"
import type { SimContact } from "../wa-sim/contact"
import { generateLoopbackCertificate } from "../wa-sim/media-cert"
import { startWaSim, type WaSim } from "../wa-sim/sim"
import { TestCa } from "../wa-sim/test-ca"
import { startTlsFront, type TlsFront } from "../wa-sim/tls-front"
import { ApiClient, Hooks, poll, WagateProcess } from "./live-world"

/*
 * Late-2026 WhatsApp as the simulator models it (test/wa-sim/README.md), against wagate as a real
 * process over the TLS front: a sender whose number becomes known after it wrote by LID, a contact
 * with two devices whose receipts come from either, error 463 with and without the contact's
 * privacy token (docs/live-whatsapp.md § "Error 463"), and the offline queue: a thousand messages
 * and a contact's receipts held while the phone is away, delivered in one burst on reconnect. The
 * tests run in order on one simulator and one wagate.
 */

const ME = "+15550051111"
const BURST = 1_000
const TEST_TIMEOUT_MS = 30_000
const PAIRING_TEST_TIMEOUT_MS = 45_000
/** Two bursts, each after a reconnect backoff (up to 16 s by then), and Baileys' own waits. */
const BURST_TEST_TIMEOUT_MS = 240_000
/**
 * How much wagate's peak resident memory may grow while it takes a 1,000-message burst. Baileys
 * holds the burst's events in its buffer until WhatsApp's end-of-queue marker, so some growth is
 * expected; a leak of the messages (or of one object per message per event) would be far above it.
 */
const BURST_PEAK_GROWTH_LIMIT_BYTES = 160 * 1024 * 1024
/** How much a second burst of the same size may raise that peak again: nothing of the first is kept. */
const SECOND_BURST_PEAK_GROWTH_LIMIT_BYTES = 48 * 1024 * 1024

/** The peak and current resident memory of a process, from /proc (Linux). */
function residentMemory(pid: number): { peakBytes: number; currentBytes: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8")
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN) * 1024
  return { peakBytes: kib("VmHWM"), currentBytes: kib("VmRSS") }
}

export function describeLateWhatsApp(label: string, options: { prepare: () => Promise<string[] | undefined>; prepareTimeoutMs: number }): void {
  let sim: WaSim
  let front: TlsFront
  let ca: TestCa
  let wagate: WagateProcess
  let api: ApiClient
  const hooks = new Hooks()
  let phoneId = ""
  let quiet: SimContact
  let duo: SimContact
  let stranger: SimContact
  let friend: SimContact
  let chatty: SimContact
  let alice: SimContact

  beforeAll(async () => {
    const command = await options.prepare()
    const cert = await generateLoopbackCertificate()
    sim = await startWaSim({ mediaCert: cert, log: process.env.WA_SIM_TRACE ? (line) => console.log(`[wa-sim] ${line}`) : undefined })
    quiet = sim.contact({ phoneNumber: "+15550052001", name: "Quiet", addressing: "lid", hidesNumber: true })
    duo = sim.contact({ phoneNumber: "+15550052002", name: "Duo", otherDevices: [1], autoReceipts: "none" })
    stranger = sim.contact({ phoneNumber: "+15550052003", name: "Stranger" })
    friend = sim.contact({ phoneNumber: "+15550052004", name: "Friend" })
    chatty = sim.contact({ phoneNumber: "+15550052005", name: "Chatty" })
    alice = sim.contact({ phoneNumber: "+15550052006", name: "Alice", autoReceipts: "none" })
    ca = await TestCa.create()
    front = await startTlsFront({ upstreamUrl: sim.wsUrl, certificate: await ca.issue() })
    wagate = await WagateProcess.start(
      {
        WAGATE_WA_WS_URL: front.wsUrl,
        // Bun reads extra CAs once, at start: the front's CA and the media host's certificate.
        NODE_EXTRA_CA_CERTS: await ca.trustFile(sim.mediaCaPem),
        WAGATE_OUTBOUND_ALLOW_CIDRS: "127.0.0.1/32",
        WAGATE_SEND_INTERVAL_MS: "50",
        WAGATE_RATE_LIMIT_PER_MINUTE: "1000000",
        WAGATE_LOG_LEVEL: process.env.WAGATE_LOG_LEVEL ?? "error",
      },
      { command },
    )
    const key = await wagate.adminOk("POST", `/accounts/${wagate.accountId}/keys`, {
      environment: "live",
      name: "late 2026",
      scopes: ["messages:send", "messages:read", "phone_numbers:read"],
    })
    api = new ApiClient(wagate, key.key)
    hooks.secret = (await wagate.adminOk("POST", `/accounts/${wagate.accountId}/webhooks`, { url: hooks.url, environment: "live", events: ["*"] })).secret
    phoneId = (await wagate.adminOk("POST", `/accounts/${wagate.accountId}/phones`, { phoneNumber: ME, displayName: "Support" })).id
  }, options.prepareTimeoutMs + 30_000)

  afterAll(async () => {
    await wagate?.dispose()
    await hooks.stop()
    await front?.stop()
    await ca?.dispose()
    await sim?.stop()
  }, 30_000)

  /**
   * Every inbound message of the phone, oldest first (the API lists newest first, 100 a page).
   * Pages are offsets, so rows inserted meanwhile shift them: a row seen twice is kept once (the
   * order is exact only when nothing arrives during the listing).
   */
  async function allInbound(): Promise<any[]> {
    const rows = new Map<string, any>()
    for (let page = 1; ; page++) {
      const res = await api.call("GET", `/messages/inbound?limit=100&page=${page}`)
      const data = res.body.data.data as any[]
      for (const row of data) rows.set(row.id, row)
      if (data.length < 100) return [...rows.values()].reverse()
    }
  }

  /** The newest inbound message with this text (the API does not show WhatsApp's ids). */
  async function inboundWithText(content: string): Promise<any> {
    return poll(async () => {
      const res = await api.call("GET", "/messages/inbound?limit=100")
      return (res.body.data.data as any[]).find((m) => m.content === content)
    }, `inbound "${content}"`, 15_000)
  }

  /**
   * Takes the phone away (the front refuses its reconnects and its socket is cut), runs `during`,
   * and lets it come back: wagate's next reconnect gets what WhatsApp held.
   */
  async function away<T>(during: () => Promise<T>): Promise<T> {
    front.behave({ kind: "refuse_upgrade", status: 503 })
    front.dropConnections()
    await sim.waitFor(() => (sim.loggedInConnections(ME).length === 0 ? true : undefined), "the phone to be away", 10_000)
    try {
      return await during()
    } finally {
      front.behave({ kind: "forward" })
    }
  }

  /** Chatty writes BURST messages while the phone is away; the texts, in order. */
  async function sendBurst(name: string): Promise<string[]> {
    const texts = Array.from({ length: BURST }, (_, n) => `${name} burst ${n}`)
    for (const text of texts) await sim.sendInbound(chatty, { text }, { to: ME })
    expect(sim.heldFor(ME, 1)).toBeGreaterThanOrEqual(BURST)
    return texts
  }

  /** Waits until every message of a burst is recorded and returns them as then listed, oldest first. */
  async function burstRecorded(texts: string[]): Promise<any[]> {
    const wanted = new Set(texts)
    const ofBurst = async () => (await allInbound()).filter((m) => wanted.has(m.content))
    await poll(async () => ((await ofBurst()).length >= texts.length ? true : undefined), `${texts.length} inbound messages of a burst`, 90_000)
    return ofBurst()
  }

  describe(`late-2026 WhatsApp, ${label}`, () => {
    test("pairs by QR", async () => {
      await wagate.adminOk("POST", `/phones/${phoneId}/connect`, { method: "qr" })
      await sim.primary(ME).scanShownQr(async () => (await wagate.adminOk("GET", `/phones/${phoneId}/pairing`)).qr ?? undefined)
      await api.phoneWithStatus(phoneId, "connected", 15_000)
    }, PAIRING_TEST_TIMEOUT_MS)

    test("a sender known only by its LID is recorded by its E.164 as soon as wagate learned its number", async () => {
      await sim.sendInbound(quiet, { text: "who am I?" }, { to: ME })
      expect((await inboundWithText("who am I?")).from).toBe(quiet.lidJid)
      // Sending to the number makes WhatsApp name the LID beside it (the device lookup).
      const reply = await api.send({ fromPhoneId: phoneId, to: `+${quiet.phoneNumber}`, content: "you are Quiet" })
      await sim.nextMessage(quiet, { timeoutMs: 15_000 })
      await api.messageWithStatus(reply.id, "read")
      await sim.sendInbound(quiet, { text: "still me, by LID only" }, { to: ME })
      expect((await inboundWithText("still me, by LID only")).from).toBe(`+${quiet.phoneNumber}`)
    }, TEST_TIMEOUT_MS)

    test("a contact with two devices: each decrypts its copy; delivered and read count from whichever device sends them, once", async () => {
      const first = await api.send({ fromPhoneId: phoneId, to: `+${duo.phoneNumber}`, content: "to both your devices" })
      const received = await sim.nextMessage(duo, { timeoutMs: 15_000 })
      expect(received.copies.map((copy) => copy.deviceId).sort()).toEqual([0, 1])
      expect(received.copies.map((copy) => copy.message.conversation ?? copy.message.extendedTextMessage?.text)).toEqual(["to both your devices", "to both your devices"])
      await hooks.next("message.sent", (d) => d.messageId === first.id)
      sim.deliver(received.id, duo, { device: 1 })
      expect((await api.messageWithStatus(first.id, "delivered", 15_000)).deliveredAt).not.toBeNull()
      // Webhooks carry no ordering guarantee (docs/webhooks.md): the read comes after the delivered one arrived.
      await hooks.next("message.delivered", (d) => d.messageId === first.id)
      sim.deliver(received.id, duo, { device: 0 })
      sim.read(received.id, duo, { device: 1 })
      const read = await api.messageWithStatus(first.id, "read", 15_000)
      expect(read.readAt).not.toBeNull()
      expect(await hooks.forMessage(first.id, ["message.sent", "message.delivered", "message.read"])).toEqual(["message.sent", "message.delivered", "message.read"])

      const second = await api.send({ fromPhoneId: phoneId, to: `+${duo.phoneNumber}`, content: "read it on your phone" })
      const again = await sim.nextMessage(duo, { timeoutMs: 15_000 })
      await hooks.next("message.sent", (d) => d.messageId === second.id)
      sim.deliver(again.id, duo, { device: 0 })
      await api.messageWithStatus(second.id, "delivered", 15_000)
      await hooks.next("message.delivered", (d) => d.messageId === second.id)
      sim.deliver(again.id, duo, { device: 1 })
      sim.read(again.id, duo, { device: 0 })
      await api.messageWithStatus(second.id, "read", 15_000)
      expect(await hooks.forMessage(second.id, ["message.sent", "message.delivered", "message.read"])).toEqual(["message.sent", "message.delivered", "message.read"])
    }, TEST_TIMEOUT_MS)

    test("error 463: without the contact's privacy token → privacy_token_missing; with it, under a lock that refuses anyway → account_restricted, saying the token was attached", async () => {
      // The contact writes first: WhatsApp hands wagate its privacy token.
      await sim.sendInbound(friend, { text: "hi, it's your friend" }, { to: ME })
      await inboundWithText("hi, it's your friend")
      sim.lockReachout(ME)
      try {
        const cold = await api.send({ fromPhoneId: phoneId, to: `+${stranger.phoneNumber}`, content: "hello stranger" })
        const coldFailed = await api.messageWithStatus(cold.id, "failed", 15_000)
        expect(coldFailed.errorCode).toBe("privacy_token_missing")
        expect(coldFailed.errorMessage).toContain("463")
        expect(coldFailed.errorMessage).toContain("no privacy token")
        expect(sim.refusals.retained.at(-1)).toMatchObject({ to: stranger.pnJid, carriedToken: false })

        // The lock lets a message that carries the contact's token through.
        const warm = await api.send({ fromPhoneId: phoneId, to: `+${friend.phoneNumber}`, content: "hello friend" })
        await api.messageWithStatus(warm.id, "read", 15_000)

        sim.lockReachout(ME, "always")
        const refused = await api.send({ fromPhoneId: phoneId, to: `+${friend.phoneNumber}`, content: "are you there?" })
        const warmFailed = await api.messageWithStatus(refused.id, "failed", 15_000)
        expect(warmFailed.errorCode).toBe("account_restricted")
        expect(warmFailed.errorMessage).toContain("privacy token was attached")
        expect(sim.refusals.retained.at(-1)).toMatchObject({ to: friend.pnJid, carriedToken: true })
        expect(await hooks.next("message.failed", (d) => d.messageId === refused.id)).toMatchObject({ errorCode: "account_restricted" })
      } finally {
        sim.unlockReachout(ME)
      }
    }, TEST_TIMEOUT_MS)

    test(`offline queue: ${BURST} messages and a contact's receipts held while the phone is away arrive in one burst; each is recorded once, in order, with one message.received, in bounded memory`, async () => {
      const before = await api.send({ fromPhoneId: phoneId, to: `+${alice.phoneNumber}`, content: "read this while I am away" })
      const toAlice = await sim.nextMessage(alice, { timeoutMs: 15_000 })
      await api.messageWithStatus(before.id, "sent", 15_000)

      const start = residentMemory(wagate.proc.pid)
      const texts = await away(async () => {
        sim.deliver(toAlice.id, alice)
        sim.read(toAlice.id, alice)
        return sendBurst("first")
      })
      const rows = await burstRecorded(texts)
      const afterFirst = residentMemory(wagate.proc.pid)
      expect(rows.map((m) => m.content)).toEqual(texts)

      const received = await poll(() => {
        const events = hooks.matching("message.received", (d) => d.from === `+${chatty.phoneNumber}`)
        return events.length >= BURST ? events : undefined
      }, `${BURST} message.received webhooks`, 60_000)
      expect(received).toHaveLength(BURST)
      expect(new Set(received.map((event) => event.data.messageId)).size).toBe(BURST)
      expect(new Set(received.map((event) => event.data.content))).toEqual(new Set(texts))

      // Baileys folds the held delivery and read into one update; the delivery still counts.
      const read = await api.messageWithStatus(before.id, "read", 15_000)
      expect(read.deliveredAt).not.toBeNull()
      expect(new Set(await hooks.forMessage(before.id, ["message.sent", "message.delivered", "message.read"]))).toEqual(new Set(["message.sent", "message.delivered", "message.read"]))
      expect(sim.heldFor(ME, 1)).toBe(0)

      // A second burst in the same process: nothing of the first is kept, so the peak barely moves.
      const secondTexts = await away(() => sendBurst("second"))
      expect((await burstRecorded(secondTexts)).map((m) => m.content)).toEqual(secondTexts)
      const afterSecond = residentMemory(wagate.proc.pid)
      const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`
      console.log(
        `[offline burst, ${label}] resident memory: ${mib(start.currentBytes)} before, peak ${mib(afterFirst.peakBytes)} after the first ${BURST}, ` +
          `peak ${mib(afterSecond.peakBytes)} after the second ${BURST} (${mib(afterSecond.currentBytes)} resident)`,
      )
      expect(afterFirst.peakBytes - start.currentBytes).toBeLessThan(BURST_PEAK_GROWTH_LIMIT_BYTES)
      expect(afterSecond.peakBytes - afterFirst.peakBytes).toBeLessThan(SECOND_BURST_PEAK_GROWTH_LIMIT_BYTES)
    }, BURST_TEST_TIMEOUT_MS)
  })
}
