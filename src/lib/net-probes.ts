import { lookup } from "node:dns/promises"
import { isIP } from "node:net"
import { connect, type TLSSocket } from "node:tls"
import type { Clock } from "./clock"

/*
 * Probes of a remote HTTPS host, for `wagate doctor`: resolve its name, open TLS to one of its
 * addresses with the certificate checked against its name, and read the `Date` header of one
 * GET request over that same connection. The connection goes to the resolved address (never
 * through a second lookup), so a test that substitutes the resolver reaches only the address it
 * chose.
 */

/** Resolves a host name to its addresses; rejects with a `code` (`ENOTFOUND`, `EAI_AGAIN`, …). */
export type ResolveHost = (host: string) => Promise<string[]>

/** The system resolver (getaddrinfo, as Bun's WebSocket client resolves). An IP literal resolves to itself. */
export const systemResolveHost: ResolveHost = async (host) => {
  if (isIP(host)) return [host]
  return (await lookup(host, { all: true })).map((a) => a.address)
}

/** A WhatsApp Web version as [major, minor, patch]. */
export type DoctorWaVersion = readonly [number, number, number]

/**
 * What `wagate doctor` reaches the network with. It is declared here, below both the CLI that
 * runs the checks and src/doctor-net.ts that builds the production one from the Baileys
 * adapter, so that neither imports the other's floor.
 */
export interface DoctorNet {
  resolveHost: ResolveHost
  /** Certificates (PEM) to trust instead of the built-in roots and NODE_EXTRA_CA_CERTS; tests pass their CA. */
  ca?: string
  /** The lookup connects make with WAGATE_WA_VERSION=auto, or null when they make none (the socket is not WhatsApp's). */
  versionLookup: ((signal: AbortSignal) => Promise<DoctorWaVersion>) | null
  /** How long connects wait for that lookup before they fall back. */
  versionLookupTimeoutMs: number
  /** Where the lookup asks, for the operator's sentence. */
  versionLookupUrl: string
  /** The version built into Baileys, which connects announce when the lookup fails. */
  builtInVersion(): Promise<DoctorWaVersion>
}

/** What the TLS probe learned. */
export type TlsProbe =
  | { ok: true; protocol: string; http: HttpDate }
  | { ok: false; stage: "connect" | "tls" | "timeout"; code: string; message: string }

/** The `Date` a GET request was answered with, between which two local times; or why there is none. */
export type HttpDate =
  | { ok: true; status: number; dateMs: number; sentAtMs: number; answeredAtMs: number }
  | { ok: false; reason: string }

export interface TlsProbeOptions {
  /** The address to connect to (resolved beforehand). */
  address: string
  port: number
  /** The name the certificate must be valid for, also sent as SNI and as the Host header. */
  host: string
  /** Certificates (PEM) to trust instead of the built-in roots; tests pass their throwaway CA. */
  ca?: string
  /**
   * False accepts any certificate: only to read the `Date` of a host whose certificate failed the
   * check, since a wrong clock is one reason a valid certificate fails. Default true.
   */
  verifyCertificate?: boolean
  timeoutMs: number
  clock: Clock
}

/** The longest answer head read before giving up on a `Date` header, in bytes. */
const MAX_HEAD_BYTES = 16 * 1024

/** TLS error codes that mean the handshake reached the peer and the peer's certificate or protocol was refused. */
function isTlsRefusal(code: string): boolean {
  return /CERT|SELF_SIGNED|SIGNATURE|ALTNAME|TLS|SSL|ISSUER|VERIFY|HANDSHAKE/.test(code)
}

/**
 * Opens TLS to `address:port` with the certificate checked for `host`, then sends one
 * `GET / HTTP/1.1` and reads the answer's head for its `Date` (RFC 9110 has origin servers
 * send it; Bun's own server leaves it out of HEAD answers, so GET it is). Never rejects: every
 * failure is a result, and the whole probe ends within `timeoutMs`.
 */
export function probeTls(options: TlsProbeOptions): Promise<TlsProbe> {
  const { address, port, host, clock } = options
  return new Promise<TlsProbe>((resolve) => {
    let settled = false
    let handshaken: { protocol: string } | null = null
    let sentAtMs = 0
    let head = ""
    const socket: TLSSocket = connect({
      host: address,
      port,
      // SNI carries a name, never an address; without one the certificate is checked against the address.
      servername: isIP(host) ? undefined : host,
      ca: options.ca,
      rejectUnauthorized: options.verifyCertificate ?? true,
      ALPNProtocols: ["http/1.1"],
    })
    const finish = (result: TlsProbe) => {
      if (settled) return
      settled = true
      timer.cancel()
      socket.destroy()
      resolve(result)
    }
    const timer = clock.setTimer(options.timeoutMs, () => {
      if (handshaken) finish({ ok: true, protocol: handshaken.protocol, http: { ok: false, reason: `no answer to GET / within ${options.timeoutMs} ms` } })
      else finish({ ok: false, stage: "timeout", code: "ETIMEDOUT", message: `no TLS handshake within ${options.timeoutMs} ms` })
    })
    socket.once("secureConnect", () => {
      handshaken = { protocol: socket.getProtocol() ?? "TLS" }
      sentAtMs = clock.nowMs()
      socket.write(`GET / HTTP/1.1\r\nHost: ${isIP(host) === 6 ? `[${host}]` : host}\r\nUser-Agent: wagate-doctor\r\nConnection: close\r\n\r\n`)
    })
    socket.on("data", (chunk: Buffer) => {
      if (!handshaken) return
      head += chunk.toString("latin1")
      const end = head.indexOf("\r\n\r\n")
      if (end === -1 && head.length < MAX_HEAD_BYTES) return
      finish({ ok: true, protocol: handshaken.protocol, http: readDate(head.slice(0, end === -1 ? MAX_HEAD_BYTES : end), sentAtMs, clock.nowMs()) })
    })
    // An error, when there is one, comes before the close and has settled the probe with its code.
    socket.once("close", () => {
      if (handshaken) finish({ ok: true, protocol: handshaken.protocol, http: { ok: false, reason: "the connection closed before an answer to GET /" } })
      else finish({ ok: false, stage: "connect", code: "ECONNRESET", message: "the connection closed before the TLS handshake completed" })
    })
    // `on`, not `once`: a second error after the first settled the probe must not go unhandled.
    socket.on("error", (err: NodeJS.ErrnoException) => {
      const code = err.code ?? "ERROR"
      if (handshaken) {
        finish({ ok: true, protocol: handshaken.protocol, http: { ok: false, reason: `${code}: ${err.message}` } })
        return
      }
      finish({ ok: false, stage: isTlsRefusal(code) ? "tls" : "connect", code, message: err.message })
    })
  })
}

/** The status and `Date` of an HTTP answer head. */
function readDate(head: string, sentAtMs: number, answeredAtMs: number): HttpDate {
  const [statusLine = "", ...lines] = head.split("\r\n")
  const status = /^HTTP\/\d(?:\.\d)? (\d{3})/.exec(statusLine)
  if (!status) return { ok: false, reason: "the answer to GET / was not HTTP" }
  const dateLine = lines.find((l) => /^date:/i.test(l))
  if (!dateLine) return { ok: false, reason: `the answer to GET / (HTTP ${status[1]}) had no Date header` }
  const dateMs = Date.parse(dateLine.slice(dateLine.indexOf(":") + 1).trim())
  if (Number.isNaN(dateMs)) return { ok: false, reason: "the answer's Date header is not a date" }
  return { ok: true, status: Number(status[1]), dateMs, sentAtMs, answeredAtMs }
}
