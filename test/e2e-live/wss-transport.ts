import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import type { SimContact } from "../wa-sim/contact"
import { startWaSim, type WaSim } from "../wa-sim/sim"
import { TestCa } from "../wa-sim/test-ca"
import { startTlsFront, type FrontBehaviour, type TlsFront } from "../wa-sim/tls-front"
import { ApiClient, poll, WagateProcess } from "./live-world"

/*
 * wagate over a real transport: `wss://` to the simulator behind a TLS front on 127.0.0.1 whose
 * certificate comes from a CA generated for the run, trusted by wagate the way an operator's
 * system trusts a public CA (NODE_EXTRA_CA_CERTS at process start; no product setting). The same
 * scenario runs from source (wss-source.test.ts) and as the compiled executable
 * (wss-binary.test.ts), one simulator, front and wagate per file, the tests in order.
 */

const ME = "+15550001111"
/** A phone whose pairing attempts meet a faulty edge. */
const STRANDED = "+15550001112"
/** Paired by code, then disconnected again. */
const CODED = "+15550001113"
/** Shortened so that a failed attempt ends within a few seconds (wagate's default is 20 s). */
const CONNECT_TIMEOUT_MS = 4_000
/** What a busy 2-core machine may add on top of the connect timeout before a failure is reported. */
const REPORT_SLACK_MS = 6_000
const TEST_TIMEOUT_MS = 30_000
/** Pairing waits for a QR and then a login, each of which may need a retried attempt. */
const PAIRING_TEST_TIMEOUT_MS = 45_000

/** A pairing state as GET …/pairing/events sends it. */
interface PairingState {
  connectionStatus: string
  qr: string | null
  pairingCode: string | null
  lastError: { code: string; message: string; at: string } | null
}

/** One pairing state from the stream, with when the test received it. */
interface PairingEvent {
  state: PairingState
  receivedAtMs: number
}

/**
 * The admin pairing event stream of one phone, read as it arrives: a test waits for a state
 * instead of polling a status that may last only until the next reconnect attempt.
 */
class PairingEvents {
  readonly events: PairingEvent[] = []
  private readonly abort = new AbortController()
  private readonly reading: Promise<void>
  private failure: unknown = null

  constructor(wagate: WagateProcess, phoneId: string) {
    this.reading = this.read(wagate, phoneId).catch((error) => {
      if (!this.abort.signal.aborted) this.failure = error
    })
  }

  private async read(wagate: WagateProcess, phoneId: string): Promise<void> {
    const response = await fetch(`${wagate.base}/admin/v1/phones/${phoneId}/pairing/events`, {
      headers: { authorization: `Bearer ${wagate.adminToken}` },
      signal: this.abort.signal,
    })
    if (!response.ok || !response.body) throw new Error(`GET …/pairing/events answered ${response.status}`)
    const decoder = new TextDecoder()
    let buffered = ""
    for await (const chunk of response.body) {
      buffered += decoder.decode(chunk, { stream: true })
      let end: number
      while ((end = buffered.indexOf("\n\n")) >= 0) {
        const block = buffered.slice(0, end)
        buffered = buffered.slice(end + 2)
        const data = block.split("\n").find((line) => line.startsWith("data: "))
        if (data) this.events.push({ state: JSON.parse(data.slice("data: ".length)), receivedAtMs: performance.now() })
      }
    }
  }

  /** The first event (after `after` of them) whose state matches. */
  next(where: (state: PairingEvent["state"]) => boolean, what: string, after = 0, timeoutMs = CONNECT_TIMEOUT_MS + REPORT_SLACK_MS): Promise<PairingEvent> {
    return poll(() => {
      if (this.failure) throw this.failure
      return this.events.slice(after).find((event) => where(event.state))
    }, what, timeoutMs)
  }

  async close(): Promise<void> {
    this.abort.abort()
    await this.reading
  }
}

/**
 * Defines the transport tests for one way of running wagate. `prepare` runs first in the file's
 * `beforeAll`, within `prepareTimeoutMs` (building the executable, say), and returns the command
 * line to run wagate with, or undefined for `bun src/main.ts`.
 */
export function describeWssTransport(label: string, prepare: () => Promise<string[] | undefined>, prepareTimeoutMs: number): void {
  let ca: TestCa
  let sim: WaSim
  let front: TlsFront
  let wagate: WagateProcess
  let api: ApiClient
  let phoneId = ""
  let strandedId = ""
  let alice: SimContact // manual ack and receipts
  let ivy: SimContact // acks and reads by herself
  let command: string[] | undefined
  /** wagate's environment, except for the CAs it trusts. */
  let settings: Record<string, string> = {}

  beforeAll(async () => {
    command = await prepare()
    ca = await TestCa.create()
    sim = await startWaSim({ log: process.env.WA_SIM_TRACE ? (line) => console.log(`[wa-sim] ${line}`) : undefined })
    front = await startTlsFront({
      upstreamUrl: sim.wsUrl,
      certificate: await ca.issue(),
      log: process.env.WA_SIM_TRACE ? (line) => console.log(`[tls-front] ${line}`) : undefined,
    })
    alice = sim.contact({ phoneNumber: "+15550002222", name: "Alice", autoAck: false, autoReceipts: "none" })
    ivy = sim.contact({ phoneNumber: "+15550008003", name: "Ivy" })

    settings = {
      WAGATE_WA_WS_URL: front.wsUrl,
      WAGATE_WA_CONNECT_TIMEOUT_MS: String(CONNECT_TIMEOUT_MS),
      WAGATE_SEND_INTERVAL_MS: "50",
      // The tests poll GET endpoints with the one live key.
      WAGATE_RATE_LIMIT_PER_MINUTE: "1000000",
      WAGATE_LOG_LEVEL: process.env.WAGATE_LOG_LEVEL ?? "error",
    }
    // Bun reads extra CAs once, at start: the front's CA, and the media host's certificate.
    wagate = await WagateProcess.start({ ...settings, NODE_EXTRA_CA_CERTS: await ca.trustFile(sim.mediaCaPem) }, { command })
    const key = await wagate.adminOk("POST", `/accounts/${wagate.accountId}/keys`, {
      environment: "live",
      name: "wss transport",
      scopes: ["messages:send", "messages:read", "phone_numbers:read"],
    })
    api = new ApiClient(wagate, key.key)
    phoneId = (await wagate.adminOk("POST", `/accounts/${wagate.accountId}/phones`, { phoneNumber: ME, displayName: "Support" })).id
    strandedId = (await wagate.adminOk("POST", `/accounts/${wagate.accountId}/phones`, { phoneNumber: STRANDED, displayName: "Stranded" })).id
  }, prepareTimeoutMs + 30_000)

  afterAll(async () => {
    await wagate?.dispose()
    await front?.stop()
    await sim?.stop()
    await ca?.dispose()
  }, 20_000)

  /** Sends a text from the paired phone. */
  const sendText = (to: SimContact, content: string) => api.send({ fromPhoneId: phoneId, to: `+${to.phoneNumber}`, content })

  /**
   * Starts pairing the stranded phone while the front behaves as `behaviour`, and returns the
   * first state of the pairing stream that reports the attempt's failure (a `lastError` newer than
   * the connect: an earlier test's stays on the phone until then) and how long after the connect
   * it came.
   */
  async function failedPairing(
    behaviour: FrontBehaviour,
    target = { wagate, phoneId: strandedId },
  ): Promise<{ failure: PairingState; elapsedMs: number }> {
    front.behave(behaviour)
    const stream = new PairingEvents(target.wagate, target.phoneId)
    try {
      await stream.next((s) => s.connectionStatus === "unpaired", "the first pairing state")
      const seen = stream.events.length
      const startedMs = performance.now()
      const startedAtMs = Date.now()
      expect((await target.wagate.adminOk("POST", `/phones/${target.phoneId}/connect`, { method: "qr" })).connectionStatus).toBe("pairing")
      const failure = await stream.next(
        (s) => s.lastError !== null && Date.parse(s.lastError.at) >= startedAtMs,
        "the failed attempt to be reported",
        seen,
      )
      // A pairing stays `pairing` between its attempts, with the failure in lastError.
      expect(failure.state.connectionStatus).toBe("pairing")
      // No QR was ever shown: the attempt never reached WhatsApp's handshake.
      expect(stream.events.map((event) => event.state.qr).filter((qr) => qr !== null)).toEqual([])
      return { failure: failure.state, elapsedMs: failure.receivedAtMs - startedMs }
    } finally {
      // Stop the retries before the front goes back to forwarding.
      await target.wagate.adminOk("POST", `/phones/${target.phoneId}/disconnect`)
      front.behave({ kind: "forward" })
      await stream.close()
    }
  }

  describe(`wagate ${label} over wss:// through a TLS front with a test CA`, () => {
    test("pairs by QR: the simulated phone scans the QR shown through the front, and the phone is connected", async () => {
      expect(front.wsUrl).toStartWith("wss://127.0.0.1:")
      await wagate.adminOk("POST", `/phones/${phoneId}/connect`, { method: "qr" })
      // Generous deadlines: on a busy machine a first attempt may time out and be retried.
      const readQr = async () => (await wagate.adminOk("GET", `/phones/${phoneId}/pairing`)).qr ?? undefined
      const qr = await poll(readQr, "a QR in GET /pairing", 20_000)
      // The simulator retires the first QR's secret (WhatsApp since July 2026); the QR shown next carries a new one.
      const linked = await sim.primary(ME).scanShownQr(readQr)
      expect(linked.refusedQrs).toEqual([qr])
      await api.phoneWithStatus(phoneId, "connected", 15_000)
      expect(sim.loggedInConnections(ME)).toHaveLength(1)
      // Every socket went through the front, which accepted the upgrade; Baileys offered
      // permessage-deflate, which the front negotiates.
      expect(front.upgrades.length).toBeGreaterThanOrEqual(2)
      for (const upgrade of front.upgrades) {
        expect(upgrade).toMatchObject({ path: "/ws/chat", status: 101 })
        expect(upgrade.requestHeaders["sec-websocket-extensions"]).toContain("permessage-deflate")
      }
      // The socket before the post-pairing restart is gone; only the logged-in one is relayed.
      await front.waitFor(() => (front.openRelays === 1 ? true : undefined), "one relayed socket")
    }, PAIRING_TEST_TIMEOUT_MS)

    test("pairs by code through the front: the secret rotation after the code exchange leaves the pairing intact", async () => {
      const codedId = (await wagate.adminOk("POST", `/accounts/${wagate.accountId}/phones`, { phoneNumber: CODED, displayName: "Coded" })).id
      try {
        await wagate.adminOk("POST", `/phones/${codedId}/connect`, { method: "code" })
        const code = await poll(async () => (await wagate.adminOk("GET", `/phones/${codedId}/pairing`)).pairingCode ?? undefined, "a pairing code", 20_000)
        await sim.primary(CODED).confirmPairingCode(code)
        await api.phoneWithStatus(codedId, "connected", 15_000)
        expect(sim.loggedInConnections(CODED)).toHaveLength(1)
      } finally {
        await wagate.adminOk("POST", `/phones/${codedId}/disconnect`)
      }
      await sim.waitFor(() => (sim.loggedInConnections(CODED).length === 0 ? true : undefined), "the coded phone's socket closed")
    }, PAIRING_TEST_TIMEOUT_MS)

    test("a sent text reaches the contact, and its ack and receipts come back: sent, delivered, read", async () => {
      const message = await sendText(alice, "hello over TLS")
      const received = await sim.nextMessage(alice)
      expect(received.text).toBe("hello over TLS")
      sim.ack(received.id)
      await api.messageWithStatus(message.id, "sent")
      sim.deliver(received.id, alice)
      expect((await api.messageWithStatus(message.id, "delivered")).deliveredAt).not.toBeNull()
      sim.read(received.id, alice)
      expect((await api.messageWithStatus(message.id, "read")).readAt).not.toBeNull()
    }, TEST_TIMEOUT_MS)

    test("survives the front cutting the TCP connection: wagate reconnects through the front, and a send after it is read", async () => {
      const before = await api.phone(phoneId)
      const upgradesBefore = front.upgrades.length
      const loginsBefore = sim.loggedInConnections(ME).map((connection) => connection.id)
      expect(front.dropConnections()).toBeGreaterThanOrEqual(1)

      // A new socket through the front logs in with the saved credentials (no QR).
      const relogin = await sim.waitFor(
        () => sim.loggedInConnections(ME).find((connection) => !loginsBefore.includes(connection.id)),
        "a new login of the phone",
        TEST_TIMEOUT_MS - 5_000,
      )
      expect(front.upgrades.slice(upgradesBefore).map((upgrade) => upgrade.status)).toContain(101)
      const after = await api.phoneWithStatus(phoneId, "connected", 15_000)
      // The drop was seen and recorded, not papered over.
      expect(after.lastDisconnectedAt).not.toBeNull()
      expect(after.lastDisconnectedAt).not.toBe(before.lastDisconnectedAt)
      expect(sim.loggedInConnections(ME).map((connection) => connection.id)).toEqual([relogin.id])

      const message = await sendText(ivy, "after the drop")
      expect((await sim.nextMessage(ivy)).text).toBe("after the drop")
      await api.messageWithStatus(message.id, "read")
    }, TEST_TIMEOUT_MS)

    test("an edge that refuses the upgrade (HTTP 503): the attempt fails at once as upgrade_refused naming the status, without waiting for the connect timeout", async () => {
      const upgradesBefore = front.upgrades.length
      const { failure, elapsedMs } = await failedPairing({ kind: "refuse_upgrade", status: 503 })
      expect(elapsedMs).toBeLessThan(CONNECT_TIMEOUT_MS)
      expect(failure.lastError!.code).toBe("upgrade_refused")
      expect(failure.lastError!.message).toContain("503")
      expect(front.upgrades.slice(upgradesBefore).map((upgrade) => upgrade.status)).toContain(503)
      // The paired phone's own socket is untouched by the refusals.
      expect((await api.phone(phoneId)).connectionStatus).toBe("connected")
    }, TEST_TIMEOUT_MS)

    test("an edge that accepts TCP and never completes TLS: the attempt fails as handshake_timeout, after the connect timeout and not much later", async () => {
      const acceptedBefore = front.acceptedConnections
      const upgradesBefore = front.upgrades.length
      const { failure, elapsedMs } = await failedPairing({ kind: "stall_tls" })
      expect(elapsedMs).toBeGreaterThanOrEqual(CONNECT_TIMEOUT_MS)
      expect(elapsedMs).toBeLessThan(CONNECT_TIMEOUT_MS + REPORT_SLACK_MS)
      expect(failure.lastError!.code).toBe("handshake_timeout")
      expect(front.acceptedConnections).toBeGreaterThan(acceptedBefore)
      // TLS never completed, so no upgrade request ever reached the edge.
      expect(front.upgrades.length).toBe(upgradesBefore)
      expect((await api.phone(phoneId)).connectionStatus).toBe("connected")
    }, TEST_TIMEOUT_MS)

    test("a wagate that does not trust the test CA: the attempt fails as tls_failed, and no upgrade reaches the edge", async () => {
      // The same settings without NODE_EXTRA_CA_CERTS: what the trust file is there for.
      const untrusting = await WagateProcess.start(settings, { command })
      try {
        const id = (await untrusting.adminOk("POST", `/accounts/${untrusting.accountId}/phones`, { phoneNumber: STRANDED, displayName: "Untrusting" })).id
        const upgradesBefore = front.upgrades.length
        const { failure, elapsedMs } = await failedPairing({ kind: "forward" }, { wagate: untrusting, phoneId: id })
        // tls_failed (not handshake_timeout) says the refusal was seen, not waited out; the time
        // bound only keeps it from hiding behind a retry, with slack for a busy machine.
        expect(failure.lastError!.code).toBe("tls_failed")
        expect(elapsedMs).toBeLessThan(CONNECT_TIMEOUT_MS + REPORT_SLACK_MS)
        expect(front.upgrades.length).toBe(upgradesBefore)
      } finally {
        await untrusting.dispose()
      }
    }, TEST_TIMEOUT_MS)
  })
}
