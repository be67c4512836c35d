/*
 * How a failed connection becomes a failure code (docs/live-whatsapp.md, last error codes).
 * First real Baileys against real local failures (a closed port, an unresolvable name, an edge
 * that refuses the upgrade, broken TLS, silence), through the whole adapter; then the shapes
 * that cannot be produced cheaply here (WhatsApp's own closes), as Baileys builds them.
 */
import { storeOver } from "../helpers/sqlite-store"
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { createServer, type Server } from "node:net"
import { initAuthCreds, BufferJSON } from "@whiskeysockets/baileys"
import type { Logger } from "../../src/lib/logger"
import { migrate, openDatabase } from "../../src/store/sqlite/db"
import { upsertCreds } from "../../src/store/sqlite/wa-auth"
import { createWriter } from "../../src/store/sqlite/writer"
import { failureOf } from "../../src/whatsapp/baileys/close-errors"
import { createBaileysGateway } from "../../src/whatsapp/baileys/gateway"
import { decideDisconnect } from "../../src/whatsapp/baileys/mapping"
import type { ConnectionFailure } from "../../src/whatsapp/failures"
import type { DisconnectReason, SessionEvents } from "../../src/whatsapp/gateway"
import { generateLoopbackCertificate } from "../wa-sim/media-cert"
import { TEST_EPOCH_MS, TestClock } from "../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/** A logger that keeps what it was given. */
function recordingLogger() {
  const lines: { level: string; msg: string }[] = []
  const at = (level: string) => (msg: string) => void lines.push({ level, msg })
  const logger: Logger = { debug: at("debug"), info: at("info"), warn: at("warn"), error: at("error") }
  return { logger, lines }
}

const listening = (server: Server) => new Promise<number>((resolve) => server.listen(0, "127.0.0.1", () => resolve((server.address() as { port: number }).port)))

const servers: { stop(): unknown }[] = []
let closedPort: number
let refusingUpgrade503: number
let refusingUpgrade403: number
let resetting: number
let silentTcp: number
let silentWs: number
let closingWs: number
let selfSignedTls: number

beforeAll(async () => {
  const closed = createServer()
  closedPort = await listening(closed)
  await new Promise<void>((resolve) => closed.close(() => resolve()))
  const answering = (status: number) => Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response("busy", { status, headers: { "Retry-After": "5" } }) })
  const s503 = answering(503)
  const s403 = answering(403)
  refusingUpgrade503 = s503.port!
  refusingUpgrade403 = s403.port!
  const reset = createServer((socket) => socket.resetAndDestroy())
  resetting = await listening(reset)
  const silent = createServer(() => {})
  silentTcp = await listening(silent)
  const quiet = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (req, srv) => (srv.upgrade(req) ? undefined : new Response(null, { status: 400 })), websocket: { message() {} } })
  silentWs = quiet.port!
  const closing = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (req, srv) => (srv.upgrade(req) ? undefined : new Response(null, { status: 400 })),
    websocket: { open: (ws) => ws.close(1011, "going away"), message() {} },
  })
  closingWs = closing.port!
  const cert = await generateLoopbackCertificate()
  const tls = Bun.serve({ port: 0, hostname: "127.0.0.1", tls: { cert: cert.certPem, key: cert.keyPem }, fetch: () => new Response("tls") })
  selfSignedTls = tls.port!
  servers.push(s503, s403, quiet, closing, tls, { stop: () => reset.close() }, { stop: () => silent.close() })
}, 30_000)

afterAll(() => {
  for (const server of servers) server.stop()
})

/** Connects a paired phone through the real adapter and returns how its session ended. */
async function connectOnce(wsUrl: string, connectTimeoutMs = 20_000) {
  const db = openDatabase(":memory:")
  migrate(db, TEST_EPOCH_MS)
  const creds = { ...initAuthCreds(), me: { id: "15550001111:1@s.whatsapp.net" }, account: { details: Buffer.from("d") } }
  upsertCreds(db, "ph_1", JSON.stringify(creds, BufferJSON.replacer), TEST_EPOCH_MS)
  const { logger, lines } = recordingLogger()
  const gateway = createBaileysGateway({ store: storeOver(db), clock: new TestClock(), logger, wsUrl, waVersion: [2, 3000, 1], connectTimeoutMs })
  const startedMs = Date.now()
  const ended = await new Promise<{ reason: DisconnectReason; failure: ConnectionFailure | null }>((resolve) => {
    const events: SessionEvents = {
      connecting() {},
      qr() {},
      pairingCode() {},
      scanned() {},
      connected() {},
      disconnected: ({ reason, failure }) => resolve({ reason, failure }),
      partAcked() {},
      partRejected() {},
      receipt() {},
      inbound() {},
    }
    gateway.session("ph_1", events).connect()
  })
  return { ...ended, elapsedMs: Date.now() - startedMs, logged: lines.filter((l) => l.level === "warn" || l.level === "error") }
}

describe("real failures through the Baileys adapter", () => {
  const cases: { name: string; url: () => string; timeoutMs?: number; code: string; httpStatus?: number; cause: RegExp }[] = [
    { name: "a closed port is connection_refused", url: () => `ws://127.0.0.1:${closedPort}/ws/chat`, code: "connection_refused", cause: /ECONNREFUSED/ },
    { name: "an unresolvable host is dns_failed", url: () => "ws://nonexistent.invalid/ws/chat", code: "dns_failed", cause: /ENOTFOUND|EAI_AGAIN/ },
    {
      name: "an edge answering the upgrade with 503 is upgrade_refused with the status, at once (not after the connect timeout)",
      url: () => `ws://127.0.0.1:${refusingUpgrade503}/ws/chat`,
      code: "upgrade_refused",
      httpStatus: 503,
      cause: /Unexpected server response: 503/,
    },
    { name: "a proxy answering the upgrade with 403 is upgrade_refused, not forbidden", url: () => `ws://127.0.0.1:${refusingUpgrade403}/ws/chat`, code: "upgrade_refused", httpStatus: 403, cause: /403/ },
    { name: "a connection reset while opening is connection_reset", url: () => `ws://127.0.0.1:${resetting}/ws/chat`, code: "connection_reset", cause: /hang up|ECONNRESET/ },
    { name: "an untrusted certificate is tls_failed", url: () => `wss://127.0.0.1:${selfSignedTls}/ws/chat`, code: "tls_failed", cause: /self.signed/i },
    { name: "a plain HTTP server behind wss:// is tls_failed", url: () => `wss://127.0.0.1:${refusingUpgrade503}/ws/chat`, code: "tls_failed", cause: /WRONG_VERSION_NUMBER|SSL/ },
    { name: "a server that never answers the HTTP upgrade is handshake_timeout", url: () => `ws://127.0.0.1:${silentTcp}/ws/chat`, timeoutMs: 600, code: "handshake_timeout", cause: /timed out/i },
    { name: "a WebSocket that never answers WhatsApp's handshake is handshake_timeout", url: () => `ws://127.0.0.1:${silentWs}/ws/chat`, timeoutMs: 600, code: "handshake_timeout", cause: /Timed Out/ },
    { name: "a WebSocket closed by the server right away is connection_lost", url: () => `ws://127.0.0.1:${closingWs}/ws/chat`, code: "connection_lost", cause: /Connection Terminated/ },
  ]

  test.each(cases)("$name", async ({ url, timeoutMs, code, httpStatus, cause }) => {
    const ended = await connectOnce(url(), timeoutMs)
    expect(ended.reason === "connection_lost" || ended.reason === "bad_session").toBe(true)
    expect(ended.failure).toMatchObject({ code, httpStatus: httpStatus ?? null, waVersion: "2.3000.1", host: new URL(url()).host })
    expect(ended.failure!.cause).toMatch(cause)
    // The session manager logs the failure once; the adapter adds nothing at warn or error.
    expect(ended.logged).toEqual([])
    if (code === "upgrade_refused") expect(ended.elapsedMs).toBeLessThan(5_000)
  })
})

/** A close error as Baileys builds it: a Boom with its status code and data. */
function boom(message: string, statusCode: number, data?: unknown) {
  return Object.assign(new Error(message), { isBoom: true, output: { statusCode }, data })
}

/** The reason and failure code of a close, decided the way the session does. */
function translate(error: unknown, pairing = false) {
  const message = (error as { message?: string }).message ?? ""
  const statusCode = (error as { output?: { statusCode?: number } }).output?.statusCode ?? null
  const { reason } = decideDisconnect({ statusCode, message, pairing, closedByUs: false })
  return { reason, code: failureOf(error, { reason, host: "web.whatsapp.com", waVersion: "2.3000.1" })?.code ?? null }
}

describe("WhatsApp's closes and the rarer network errors, as Baileys shapes them", () => {
  const nodeError = (message: string, code: string) => Object.assign(new Error(message), { code })
  test.each([
    { name: "<failure reason=405> (outdated client)", error: boom("Connection Failure", 405, { reason: "405" }), reason: "outdated_version", code: "outdated_version" },
    { name: "<failure reason=401>", error: boom("Connection Failure", 401, { reason: "401" }), reason: "logged_out", code: "logged_out" },
    { name: "<failure reason=403>", error: boom("Connection Failure", 403, { reason: "403" }), reason: "forbidden", code: "forbidden" },
    { name: "<failure reason=503> (service unavailable)", error: boom("Connection Failure", 503, { reason: "503" }), reason: "connection_lost", code: "stream_error" },
    { name: "stream error conflict (440)", error: boom("Stream Errored (conflict)", 440, { tag: "conflict", attrs: {} }), reason: "replaced", code: "replaced" },
    { name: "stream error xml-not-well-formed (500)", error: boom("Stream Errored (xml-not-well-formed)", 500, { tag: "xml-not-well-formed", attrs: {} }), reason: "bad_session", code: "stream_error" },
    { name: "stream error restart (515)", error: boom("Stream Errored (restart required)", 515, {}), reason: "restart_required", code: null },
    { name: "multi-device mismatch (411)", error: boom("Multi-device beta not joined", 411), reason: "multidevice_mismatch", code: "multidevice_mismatch" },
    { name: "keepalive lost (408)", error: boom("Connection was lost", 408), reason: "connection_lost", code: "connection_lost" },
    { name: "server ended the stream (428)", error: boom("Connection Terminated by Server", 428), reason: "connection_lost", code: "connection_lost" },
    { name: "EAI_AGAIN (no DNS server answers)", error: boom("WebSocket Error (getaddrinfo EAI_AGAIN web.whatsapp.com)", 408, nodeError("getaddrinfo EAI_AGAIN web.whatsapp.com", "EAI_AGAIN")), reason: "connection_lost", code: "dns_failed" },
    { name: "ENETUNREACH (no route)", error: boom("WebSocket Error (connect ENETUNREACH 157.240.0.53:443)", 408, nodeError("connect ENETUNREACH 157.240.0.53:443", "ENETUNREACH")), reason: "connection_lost", code: "network_unreachable" },
    { name: "ETIMEDOUT (TCP connect timed out)", error: boom("WebSocket Error (connect ETIMEDOUT 157.240.0.53:443)", 408, nodeError("connect ETIMEDOUT 157.240.0.53:443", "ETIMEDOUT")), reason: "connection_lost", code: "handshake_timeout" },
    { name: "an expired certificate", error: boom("WebSocket Error (certificate has expired)", 500, nodeError("certificate has expired", "CERT_HAS_EXPIRED")), reason: "bad_session", code: "tls_failed" },
    { name: "a certificate for another host", error: boom("WebSocket Error (Hostname/IP does not match)", 500, nodeError("Hostname/IP does not match certificate's altnames", "ERR_TLS_CERT_ALTNAME_INVALID")), reason: "bad_session", code: "tls_failed" },
    { name: "ws without a listener: Unexpected server response: 502", error: boom("WebSocket Error (Unexpected server response: 502)", 502, new Error("Unexpected server response: 502")), reason: "connection_lost", code: "upgrade_refused" },
    { name: "QR refs ran out while pairing", error: boom("QR refs attempts ended", 408), pairing: true, reason: "pairing_expired", code: "pairing_expired" },
    { name: "an error of no known shape", error: new Error("something else"), reason: "connection_lost", code: "connection_lost" },
  ])("$name → $reason / $code", ({ error, pairing, reason, code }) => {
    expect(translate(error, pairing)).toEqual({ reason: reason as DisconnectReason, code })
  })

  test("the cause names the underlying error and the status, for the log", () => {
    const error = boom("WebSocket Error (connect ECONNREFUSED 127.0.0.1:9)", 408, nodeError("connect ECONNREFUSED 127.0.0.1:9", "ECONNREFUSED"))
    expect(failureOf(error, { reason: "connection_lost", host: "127.0.0.1:9", waVersion: null })).toEqual({
      code: "connection_refused",
      cause: "connect ECONNREFUSED 127.0.0.1:9",
      host: "127.0.0.1:9",
      httpStatus: null,
      waVersion: null,
    })
  })

  test("a close of WhatsApp's own keeps its status in the cause", () => {
    expect(failureOf(boom("Connection Failure", 503, { reason: "503" }), { reason: "connection_lost", host: "h", waVersion: null })?.cause).toBe("Connection Failure (status 503)")
  })

  test("our own closes and WhatsApp's restart request are no failure", () => {
    expect(failureOf(boom("Connection Closed", 428), { reason: "closed_by_us", host: "h", waVersion: null })).toBeNull()
    expect(failureOf(boom("Stream Errored (restart required)", 515), { reason: "restart_required", host: "h", waVersion: null })).toBeNull()
  })
})
