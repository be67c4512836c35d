/*
 * The Baileys gateway without WhatsApp: what it does before and around a socket. The flows
 * against a live (simulated) server belong to the simulator's tests; here real Baileys only ever
 * meets a closed port, and the session logic runs against a scripted socket that replays the
 * recorded payloads of test/fixtures/baileys/ (see test/unit/baileys-mapping.test.ts).
 */
import { storeOver } from "../helpers/sqlite-store"
import { beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { EventEmitter } from "node:events"
import { readFileSync } from "node:fs"
import { createServer } from "node:net"
import { join } from "node:path"
import * as realBaileys from "@whiskeysockets/baileys"
import { BufferJSON, initAuthCreds, type UserFacingSocketConfig } from "@whiskeysockets/baileys"
import { silentLogger } from "../../src/lib/logger"
import { migrate, openDatabase, type Database } from "../../src/store/sqlite/db"
import { countKeys, hasCreds, readCreds, setKeys, upsertCreds } from "../../src/store/sqlite/wa-auth"
import { createWriter, type Writer } from "../../src/store/sqlite/writer"
import { DEFAULT_CONNECT_TIMEOUT_MS, type InboundMessage, type SessionEvents } from "../../src/whatsapp/gateway"
import type { BaileysModule } from "../../src/whatsapp/baileys/auth-state"
import { createBaileysGateway } from "../../src/whatsapp/baileys/gateway"
import { CLOSE_TIMEOUT_MS, SessionNotConnectedError } from "../../src/whatsapp/baileys/session"
import { TEST_EPOCH_MS, TestClock } from "../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

let db: Database
let writer: Writer
let clock: TestClock

beforeEach(() => {
  clock = new TestClock()
  db = openDatabase(":memory:")
  migrate(db, clock.nowMs())
  writer = createWriter(db)
})

const pairedCreds = () => JSON.stringify({ ...initAuthCreds(), me: { id: "15550001111:1@s.whatsapp.net" }, account: { details: Buffer.from("d") } }, BufferJSON.replacer)

function recorder() {
  const disconnects: Parameters<SessionEvents["disconnected"]>[0][] = []
  let onDisconnect: () => void = () => {}
  const disconnected = new Promise<void>((resolve) => (onDisconnect = resolve))
  const events: SessionEvents = {
    connecting() {},
    qr() {},
    pairingCode() {},
    scanned() {},
    connected() {},
    disconnected(info) {
      disconnects.push(info)
      onDisconnect()
    },
    partAcked() {},
    partRejected() {},
    receipt() {},
    inbound() {},
  }
  return { events, disconnects, disconnected }
}

/** A TCP port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const port = (server.address() as { port: number }).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describe("Baileys gateway", () => {
  test("loading the gateway module does not load Baileys", async () => {
    const script = `await import(${JSON.stringify(`${import.meta.dir}/../../src/whatsapp/baileys/gateway.ts`)});
      console.log(Object.keys(require.cache).filter((k) => k.includes("@whiskeysockets")).length)`
    const proc = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "pipe" })
    expect((await new Response(proc.stdout).text()).trim()).toBe("0")
    expect(await proc.exited).toBe(0)
  })

  test("credentials: paired only with me.id and account; wipe removes creds and keys at once", async () => {
    const gateway = createBaileysGateway({ store: storeOver(db, writer), clock, logger: silentLogger, wsUrl: "ws://127.0.0.1:9/ws/chat" })
    expect(await gateway.hasCredentials("ph_1")).toBe(false)
    upsertCreds(db, "ph_1", JSON.stringify({ ...initAuthCreds(), me: { id: "15550001111@s.whatsapp.net", name: "~" } }, BufferJSON.replacer), TEST_EPOCH_MS)
    expect(await gateway.hasCredentials("ph_1")).toBe(false)
    upsertCreds(db, "ph_1", pairedCreds(), TEST_EPOCH_MS)
    setKeys(db, "ph_1", [{ type: "session", id: "a", data: '"x"' }])
    expect(await gateway.hasCredentials("ph_1")).toBe(true)

    gateway.wipeCredentials("ph_1")
    // The delete has run; only its COMMIT waits for the batch.
    expect(await gateway.hasCredentials("ph_1")).toBe(false)
    expect(countKeys(db, "ph_1")).toBe(0)
  })

  test("a session does not load Baileys until it connects; nothing is sent while not connected", async () => {
    let imports = 0
    const gateway = createBaileysGateway({
      store: storeOver(db, writer),
      clock,
      logger: silentLogger,
      wsUrl: "ws://127.0.0.1:9/ws/chat",
      loadBaileys: () => {
        imports++
        return import("@whiskeysockets/baileys")
      },
    })
    const rec = recorder()
    const session = gateway.session("ph_1", rec.events)
    expect(imports).toBe(0)
    await expect(session.sendPart({ waMessageId: "W", toJid: "1@s.whatsapp.net", text: "x" })).rejects.toBeInstanceOf(SessionNotConnectedError)
    await expect(session.checkNumbers(["+15550002222"])).rejects.toBeInstanceOf(SessionNotConnectedError)
    await expect(session.fetchGroups()).rejects.toBeInstanceOf(SessionNotConnectedError)
    await session.close()
    expect(rec.disconnects).toEqual([{ reason: "closed_by_us", final: true, failure: null }])
    expect(imports).toBe(0)
  })

  test("an unreachable server ends the session once as connection_lost; two gateways coexist, each importing once", async () => {
    const port = await closedPort()
    let imports = 0
    const loadBaileys = () => {
      imports++
      return import("@whiskeysockets/baileys")
    }
    const options = { store: storeOver(db, writer), clock, logger: silentLogger, wsUrl: `ws://127.0.0.1:${port}/ws/chat`, loadBaileys }
    const first = createBaileysGateway(options)
    const second = createBaileysGateway(options)
    upsertCreds(db, "ph_1", pairedCreds(), TEST_EPOCH_MS)

    const a = recorder()
    const b = recorder()
    const c = recorder()
    first.session("ph_1", a.events).connect()
    second.session("ph_1", b.events).connect()
    await Promise.all([a.disconnected, b.disconnected])
    first.session("ph_1", c.events).connect()
    await c.disconnected

    for (const rec of [a, b, c]) {
      expect(rec.disconnects).toHaveLength(1)
      expect(rec.disconnects[0]!.reason).toBe("connection_lost")
    }
    expect(imports).toBe(2)
    // A paired phone keeps its credentials through a failed connect.
    expect(await first.hasCredentials("ph_1")).toBe(true)
  })

  test("connecting without a finished pairing starts from clean credentials", async () => {
    const port = await closedPort()
    const gateway = createBaileysGateway({ store: storeOver(db, writer), clock, logger: silentLogger, wsUrl: `ws://127.0.0.1:${port}/ws/chat` })
    const stale = JSON.stringify({ ...initAuthCreds(), me: { id: "15550001111@s.whatsapp.net", name: "~" } }, BufferJSON.replacer)
    upsertCreds(db, "ph_1", stale, TEST_EPOCH_MS)
    setKeys(db, "ph_1", [{ type: "pre-key", id: "1", data: '"old"' }])
    const rec = recorder()
    gateway.session("ph_1", rec.events).connect({ method: "qr" })
    await rec.disconnected
    expect(rec.disconnects[0]!.reason).toBe("connection_lost")
    expect(countKeys(db, "ph_1")).toBe(0)
    expect(hasCreds(db, "ph_1") ? readCreds(db, "ph_1") : null).not.toBe(stale)
  })
})

// ---------------------------------------------------------------------------------------------
// A scripted socket: real Baileys everywhere except makeWASocket.

const fixture = <T>(name: string): T =>
  (JSON.parse(readFileSync(join(import.meta.dir, "..", "fixtures", "baileys", `${name}.json`), "utf8")) as { payload: T }).payload

class FakeSocket {
  readonly ws = new EventEmitter()
  user: { id: string; lid?: string } | undefined
  handler: ((events: Record<string, unknown>) => Promise<void> | void) | null = null
  readonly sent: { jid: string; content: unknown; options: unknown }[] = []
  readonly calls: string[] = []
  /** When set, end() never settles (a dead network). */
  hangOnEnd = false
  onWhatsAppAnswers: ((numbers: string[]) => { jid: string; exists: boolean }[] | undefined) | null = null
  groups: Record<string, unknown> = {}
  readonly ev = { process: (fn: (events: Record<string, unknown>) => Promise<void> | void) => void (this.handler = fn) }
  readonly signalRepository = { lidMapping: { getPNForLID: async (lid: string) => (lid === "200000000000009@lid" ? "15550009999@s.whatsapp.net" : null) } }

  constructor(readonly config: UserFacingSocketConfig) {}

  emit(events: Record<string, unknown>): void {
    void this.handler?.(events)
  }
  open(): void {
    this.user = { id: "15550001111:1@s.whatsapp.net", lid: "100000000000001:1@lid" }
    this.emit({ "connection.update": { connection: "open" } })
  }
  closeWith(error: unknown): void {
    this.emit({ "connection.update": { connection: "close", lastDisconnect: { error, date: new Date(0) } } })
  }
  end(error: Error | undefined): Promise<void> {
    this.calls.push("end")
    if (this.hangOnEnd) return new Promise(() => {})
    this.closeWith(error)
    return Promise.resolve()
  }
  async logout(): Promise<void> {
    this.calls.push("logout")
    this.closeWith(Object.assign(new Error("Intentional Logout"), { output: { statusCode: 401 } }))
  }
  async sendMessage(jid: string, content: unknown, options: unknown) {
    this.sent.push({ jid, content, options })
    return undefined
  }
  async requestPairingCode(digits: string): Promise<string> {
    this.calls.push(`requestPairingCode ${digits}`)
    return "ABCD1234"
  }
  async onWhatsApp(...numbers: string[]) {
    this.calls.push(`onWhatsApp ${numbers.join(",")}`)
    return this.onWhatsAppAnswers?.(numbers)
  }
  async groupFetchAllParticipating() {
    return this.groups
  }
}

function scripted() {
  const sockets: FakeSocket[] = []
  const module = {
    ...realBaileys,
    makeWASocket: (config: UserFacingSocketConfig) => {
      const sock = new FakeSocket(config)
      sockets.push(sock)
      return sock
    },
  } as unknown as BaileysModule
  return { sockets, loadBaileys: async () => module }
}

/** Every callback a session made, in order. */
function journal() {
  const calls: unknown[][] = []
  const waiters: (() => void)[] = []
  const push = (...entry: unknown[]) => {
    calls.push(entry)
    waiters.splice(0).forEach((w) => w())
  }
  const events: SessionEvents = {
    // The version a connect announces has tests of its own (test/whatsapp/wa-version.test.ts).
    connecting: () => {},
    qr: (qr) => push("qr", qr),
    pairingCode: (code) => push("pairingCode", code),
    scanned: () => push("scanned"),
    connected: (info) => push("connected", info.phoneNumber),
    disconnected: (info) => push("disconnected", info.reason, info.final),
    partAcked: (id, atMs) => push("acked", id, atMs),
    partRejected: (id, rejection, atMs) => push("rejected", id, rejection, atMs),
    receipt: (id, kind, atMs) => push("receipt", id, kind, atMs),
    inbound: (m: InboundMessage) => push("inbound", m.from, m.type, m.content),
  }
  /** Resolves once the journal has at least `n` entries. */
  const atLeast = async (n: number) => {
    while (calls.length < n) await new Promise<void>((resolve) => waiters.push(resolve))
  }
  return { calls, events, atLeast }
}

/** Lets the session's async start (import, wipe) reach the socket. */
async function settle(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
}

describe("Baileys session over a scripted socket", () => {
  const WS_URL = "ws://127.0.0.1:9/ws/chat"

  test("socket config, login, acks, receipts folded or not, inbound, credentials saved", async () => {
    const { sockets, loadBaileys } = scripted()
    const gateway = createBaileysGateway({ store: storeOver(db, writer), clock, logger: silentLogger, wsUrl: WS_URL, waVersion: [2, 3000, 1], loadBaileys })
    upsertCreds(db, "ph_1", pairedCreds(), TEST_EPOCH_MS)
    const j = journal()
    const session = gateway.session("ph_1", j.events)
    session.connect()
    await settle()
    const sock = sockets[0]!
    const config = sock.config
    expect(config.waWebSocketUrl).toBe(WS_URL)
    expect(config.version).toEqual([2, 3000, 1])
    expect(config.connectTimeoutMs).toBe(DEFAULT_CONNECT_TIMEOUT_MS)
    expect(config.markOnlineOnConnect).toBe(false)
    expect(config.syncFullHistory).toBe(false)
    expect(config.logger?.level).toBe("warn")
    expect([config.shouldIgnoreJid?.("status@broadcast"), config.shouldIgnoreJid?.("1@newsletter"), config.shouldIgnoreJid?.("1@s.whatsapp.net")]).toEqual([true, true, false])
    expect(await config.getMessage?.({ id: "X" })).toBeUndefined()
    expect(config.auth.creds.me?.id).toBe("15550001111:1@s.whatsapp.net")

    sock.open()
    expect(j.calls).toEqual([["connected", "+15550001111"]])
    const now = clock.nowMs()

    sock.ws.emit("CB:ack,class:message", fixture("ack-success"))
    // An error ack comes raw and as a status-0 update: reported once.
    sock.ws.emit("CB:ack,class:message", fixture("ack-error-463"))
    sock.emit({ "messages.update": fixture("update-error-463") })
    sock.emit({ "messages.update": fixture("update-1to1-delivered-and-read-merged") })
    sock.emit({ "message-receipt.update": fixture("receipt-group-delivered-and-read-merged") })
    sock.emit({ "messages.upsert": fixture("upsert-append-with-user-receipt") })
    sock.emit({ "messages.upsert": fixture("upsert-inbound-pn") })
    sock.emit({ "messages.upsert": fixture("upsert-inbound-group-lid-hidden") })
    sock.emit({ "messages.upsert": fixture("upsert-decryption-stub") })
    await j.atLeast(9)
    expect(j.calls.slice(1)).toEqual([
      ["acked", "3EB0AAAA000000000000A1", now],
      ["rejected", "3EB0BBBB00000000000463", { code: "account_restricted", detail: "463" }, now],
      // WhatsApp's receipt times lie after the test clock's "now": clamped to it.
      ["receipt", "3EB0AAAA000000000000B2", "read", now],
      ["receipt", "3EB0CCCC000000000000C3", "delivered", now],
      ["receipt", "3EB0CCCC000000000000C3", "read", now],
      ["receipt", "3EB0CCCC000000000000C2", "delivered", now],
      ["inbound", "+15550002222", "text", "hi from alice"],
      ["inbound", "+15550009999", "text", "number hidden"],
    ])

    sock.config.auth.creds.me = { id: "15550001111:1@s.whatsapp.net", name: "Shop" }
    sock.emit({ "creds.update": { me: sock.config.auth.creds.me } })
    expect(JSON.parse(readCreds(db, "ph_1")!).me.name).toBe("Shop")

    await session.sendPart({ waMessageId: "WA1", toJid: "15550002222@s.whatsapp.net", text: "hi" })
    expect(sock.sent).toEqual([{ jid: "15550002222@s.whatsapp.net", content: { text: "hi" }, options: { messageId: "WA1" } }])

    sock.groups = fixture("groups-participating")
    expect((await session.fetchGroups()).filter((g) => g.selfIsAdmin).map((g) => g.id)).toEqual(["120363000000000001@g.us", "120363000000000003@g.us"])
  })

  test("checkNumbers: absent numbers are null, a changed JID is matched, no answer is an error", async () => {
    const { sockets, loadBaileys } = scripted()
    const gateway = createBaileysGateway({ store: storeOver(db, writer), clock, logger: silentLogger, wsUrl: WS_URL, loadBaileys })
    upsertCreds(db, "ph_1", pairedCreds(), TEST_EPOCH_MS)
    const session = gateway.session("ph_1", journal().events)
    session.connect()
    await settle()
    const sock = sockets[0]!
    sock.open()

    sock.onWhatsAppAnswers = () => [{ jid: "15550002222@s.whatsapp.net", exists: true }]
    expect(await session.checkNumbers(["+15550002222", "+15559999999"])).toEqual(
      new Map([
        ["+15550002222", "15550002222@s.whatsapp.net"],
        ["+15559999999", null],
      ]),
    )
    // Brazil: asked with the ninth digit, answered without it.
    sock.onWhatsAppAnswers = () => [{ jid: "551188887777@s.whatsapp.net", exists: true }]
    expect(await session.checkNumbers(["+5511988887777"])).toEqual(new Map([["+5511988887777", "551188887777@s.whatsapp.net"]]))
    // Two changed answers in one batch: each unmatched number is asked alone.
    sock.calls.length = 0
    sock.onWhatsAppAnswers = (numbers) =>
      numbers.length > 1
        ? [{ jid: "551188887777@s.whatsapp.net", exists: true }, { jid: "551166665555@s.whatsapp.net", exists: true }]
        : [{ jid: numbers[0] === "+5511988887777" ? "551188887777@s.whatsapp.net" : "551166665555@s.whatsapp.net", exists: true }]
    expect(await session.checkNumbers(["+5511988887777", "+5511966665555"])).toEqual(
      new Map([
        ["+5511988887777", "551188887777@s.whatsapp.net"],
        ["+5511966665555", "551166665555@s.whatsapp.net"],
      ]),
    )
    expect(sock.calls).toEqual(["onWhatsApp +5511988887777,+5511966665555", "onWhatsApp +5511988887777", "onWhatsApp +5511966665555"])
    sock.onWhatsAppAnswers = () => undefined
    await expect(session.checkNumbers(["+15550002222"])).rejects.toThrow("did not answer")
  })

  test("pairing by code: the code is asked for on the first QR with the number's digits, and no QR is shown", async () => {
    const { sockets, loadBaileys } = scripted()
    const gateway = createBaileysGateway({ store: storeOver(db, writer), clock, logger: silentLogger, wsUrl: WS_URL, loadBaileys })
    const j = journal()
    gateway.session("ph_1", j.events).connect({ method: "code", phoneNumber: "+1 555 000 1111" })
    await settle()
    const sock = sockets[0]!
    sock.emit({ "connection.update": { qr: "ref-1" } })
    sock.emit({ "connection.update": { qr: "ref-2" } })
    await j.atLeast(1)
    expect(sock.calls).toEqual(["requestPairingCode 15550001111"])
    expect(j.calls).toEqual([["pairingCode", "ABCD1234"]])
    // The refs ran out: the pairing expired (terminal), not a network loss.
    sock.closeWith(Object.assign(new Error("QR refs attempts ended"), { output: { statusCode: 408 } }))
    expect(j.calls.at(-1)).toEqual(["disconnected", "pairing_expired", true])
  })

  test("pairing by QR shows each QR; 515 after the scan asks for a restart", async () => {
    const { sockets, loadBaileys } = scripted()
    const gateway = createBaileysGateway({ store: storeOver(db, writer), clock, logger: silentLogger, wsUrl: WS_URL, loadBaileys })
    const j = journal()
    gateway.session("ph_1", j.events).connect({ method: "qr" })
    await settle()
    sockets[0]!.emit({ "connection.update": { qr: "ref-1" } })
    sockets[0]!.emit({ "connection.update": { qr: "ref-2" } })
    sockets[0]!.closeWith(fixture<{ lastDisconnect: { error: unknown } }>("connection-close-515").lastDisconnect.error)
    expect(j.calls).toEqual([["qr", "ref-1"], ["qr", "ref-2"], ["disconnected", "restart_required", false]])
  })

  test("remote logout is reported once with its code; close and logout are ours", async () => {
    const { sockets, loadBaileys } = scripted()
    const gateway = createBaileysGateway({ store: storeOver(db, writer), clock, logger: silentLogger, wsUrl: WS_URL, loadBaileys })
    upsertCreds(db, "ph_1", pairedCreds(), TEST_EPOCH_MS)

    const remote = journal()
    gateway.session("ph_1", remote.events).connect()
    await settle()
    sockets[0]!.open()
    sockets[0]!.closeWith(fixture<{ lastDisconnect: { error: unknown } }>("connection-close-401").lastDisconnect.error)
    sockets[0]!.closeWith(undefined)
    expect(remote.calls.slice(1)).toEqual([["disconnected", "logged_out", true]])

    const closing = journal()
    const closed = gateway.session("ph_1", closing.events)
    closed.connect()
    await settle()
    sockets[1]!.open()
    await closed.close()
    expect(closing.calls.slice(1)).toEqual([["disconnected", "closed_by_us", true]])
    expect(sockets[1]!.calls).toEqual(["end"])
    expect(await gateway.hasCredentials("ph_1")).toBe(true)
    await expect(closed.sendPart({ waMessageId: "W", toJid: "1@s.whatsapp.net", text: "x" })).rejects.toBeInstanceOf(SessionNotConnectedError)

    const leaving = journal()
    const left = gateway.session("ph_1", leaving.events)
    left.connect()
    await settle()
    sockets[2]!.open()
    await left.logout()
    expect(sockets[2]!.calls).toEqual(["logout"])
    // Baileys ends a logout with 401; we asked for it, so it is ours.
    expect(leaving.calls.slice(1)).toEqual([["disconnected", "closed_by_us", true]])
    expect(await gateway.hasCredentials("ph_1")).toBe(false)
    // A late credentials update from the dying socket must not bring the row back.
    sockets[2]!.emit({ "creds.update": {} })
    expect(hasCreds(db, "ph_1")).toBe(false)
  })

  test("close does not hang on a dead socket: it gives up after CLOSE_TIMEOUT_MS", async () => {
    const { sockets, loadBaileys } = scripted()
    const gateway = createBaileysGateway({ store: storeOver(db, writer), clock, logger: silentLogger, wsUrl: WS_URL, loadBaileys })
    upsertCreds(db, "ph_1", pairedCreds(), TEST_EPOCH_MS)
    const j = journal()
    const session = gateway.session("ph_1", j.events)
    session.connect()
    await settle()
    sockets[0]!.open()
    sockets[0]!.hangOnEnd = true
    let done = false
    const closing = session.close().then(() => (done = true))
    await settle()
    expect(done).toBe(false)
    clock.advance(CLOSE_TIMEOUT_MS)
    await closing
    expect(j.calls.at(-1)).toEqual(["disconnected", "closed_by_us", true])
  })

  test("the retry counter cache of a phone survives reconnects and is per phone", async () => {
    const { sockets, loadBaileys } = scripted()
    const gateway = createBaileysGateway({ store: storeOver(db, writer), clock, logger: silentLogger, wsUrl: WS_URL, loadBaileys })
    for (const phoneId of ["ph_1", "ph_1", "ph_2"]) {
      upsertCreds(db, phoneId, pairedCreds(), TEST_EPOCH_MS)
      gateway.session(phoneId, journal().events).connect()
      await settle()
    }
    const caches = sockets.map((s) => s.config.msgRetryCounterCache)
    expect(caches[0]).toBeDefined()
    expect(caches[1]).toBe(caches[0]!)
    expect(caches[2]).not.toBe(caches[0]!)
  })
})
