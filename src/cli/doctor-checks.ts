import { isIP } from "node:net"
import type { Clock } from "../lib/clock"
import { withDeadline } from "../lib/deadline"
import { boundedOutsideText } from "../lib/outside-text"
import { probeTls, type DoctorNet, type DoctorWaVersion, type HttpDate, type TlsProbe } from "../lib/net-probes"

/*
 * The network checks of `wagate doctor` (docs/live-whatsapp.md § "Check this host: wagate
 * doctor"): DNS, TLS and the clock against the host of the WhatsApp socket, and the WhatsApp Web
 * version lookup that connects make. Every target comes in through DoctorNet and the socket URL,
 * so tests point them at 127.0.0.1.
 */

/** One check's outcome: `ok`, `fail` (with one sentence that says what to do) or `skip` (could not be judged). */
export interface CheckResult {
  name: string
  status: "ok" | "fail" | "skip"
  detail: string
  action: string | null
}

/** What the network checks need besides DoctorNet. */
export interface NetworkCheckOptions {
  net: DoctorNet
  clock: Clock
  /** WAGATE_WA_WS_URL: its host and port are the target. */
  wsUrl: string
  /** WAGATE_WA_VERSION. */
  waVersion: DoctorWaVersion | "auto"
  /** WAGATE_WA_CONNECT_TIMEOUT_MS: the TLS probe gets as long as a connect does. */
  connectTimeoutMs: number
}

/**
 * The largest clock difference from WhatsApp's that passes. A host kept by NTP is within a
 * second; a minute off means no time synchronisation, and Baileys stamps sent messages, read
 * receipts and privacy tokens with this clock.
 */
export const MAX_CLOCK_SKEW_MS = 60_000
/** How long the name may take to resolve. */
export const DNS_TIMEOUT_MS = 5_000

/** Runs the network checks in order: DNS, then TLS and the clock over one connection, then the version lookup. */
export async function networkChecks(options: NetworkCheckOptions): Promise<CheckResult[]> {
  const url = new URL(options.wsUrl)
  const host = url.hostname.replace(/^\[|\]$/g, "")
  const port = Number(url.port || (url.protocol === "ws:" ? 80 : 443))
  const dns = await checkDns(options, host)
  const address = dns.addresses[0]
  const probe = (verifyCertificate: boolean) =>
    probeTls({ address: address!, port, host, ca: options.net.ca, verifyCertificate, timeoutMs: options.connectTimeoutMs, clock: options.clock })
  const tls = address !== undefined && url.protocol === "wss:" ? await probe(true) : null
  // A refused certificate may be the clock's fault (not yet valid, expired): the host's Date,
  // read without trusting it, still tells how far off this clock is.
  const unverified = tls && !tls.ok && tls.stage === "tls" ? await probe(false) : null
  return [dns.result, tlsResult(url, host, port, address, tls), clockResult(host, unverified ?? tls, unverified !== null), await versionResult(options)]
}

async function checkDns(options: NetworkCheckOptions, host: string): Promise<{ result: CheckResult; addresses: string[] }> {
  if (isIP(host)) return { result: ok("dns", `${host} is an address: nothing to resolve`), addresses: [host] }
  try {
    const addresses = await withTimeout(options.net.resolveHost(host), DNS_TIMEOUT_MS, options.clock, `no answer within ${DNS_TIMEOUT_MS} ms`)
    if (addresses.length === 0) throw Object.assign(new Error("no address in the answer"), { code: "ENODATA" })
    return { result: ok("dns", `${host} resolves to ${addresses.slice(0, 3).join(", ")}${addresses.length > 3 ? ", …" : ""}`), addresses }
  } catch (err) {
    const why = outside(errorText(err))
    return {
      result: fail("dns", `${host} does not resolve (${why})`, `Fix DNS on this host until \`getent hosts ${host}\` prints an address (see /etc/resolv.conf).`),
      addresses: [],
    }
  }
}

function tlsResult(url: URL, host: string, port: number, address: string | undefined, tls: TlsProbe | null): CheckResult {
  const target = `${host}:${port}`
  if (address === undefined) return skip("tls", `not tried: ${host} did not resolve`)
  if (url.protocol === "ws:") return skip("tls", `not tried: WAGATE_WA_WS_URL is plain ws://, without TLS`)
  if (tls === null) return skip("tls", "not tried")
  if (tls.ok) return ok("tls", `${target} (${address}) presented a trusted certificate for ${host} over ${tls.protocol}`)
  const why = outside(`${tls.code}: ${tls.message}`)
  if (tls.stage === "tls") {
    return fail(
      "tls",
      `${target} (${address}) refused by the certificate check (${why})`,
      "Check that no proxy intercepts HTTPS here (else give wagate its CA with NODE_EXTRA_CA_CERTS=/path/ca.pem) and that the system clock is right.",
    )
  }
  return fail(
    "tls",
    `${target} (${address}) could not be reached (${why})`,
    `Allow outgoing TCP to ${host} port ${port} in the firewall or proxy between this host and the internet.`,
  )
}

function clockResult(host: string, tls: TlsProbe | null, untrusted: boolean): CheckResult {
  if (!tls?.ok) return skip("clock", `not judged: no HTTPS answer from ${host}`)
  const http: HttpDate = tls.http
  if (!http.ok) return skip("clock", `not judged: ${outside(http.reason)}`)
  // The Date header has whole seconds: the server's time at its answer lies within the second it
  // names, and the local time of that answer within the request's round trip. Only a difference
  // beyond both uncertainties counts.
  const localMidMs = (http.sentAtMs + http.answeredAtMs) / 2
  const skewMs = http.dateMs + 500 - localMidMs
  const uncertaintyMs = 500 + (http.answeredAtMs - http.sentAtMs) / 2
  const judged = `judged by ${host}'s HTTPS Date header${untrusted ? " over a connection whose certificate was not trusted" : ""}, ±${seconds(uncertaintyMs)}`
  const direction = skewMs > 0 ? "behind" : "ahead of"
  const found = `this host's clock is ${seconds(Math.abs(skewMs))} ${direction} ${host}'s (${judged})`
  if (Math.abs(skewMs) - uncertaintyMs <= MAX_CLOCK_SKEW_MS) return ok("clock", found)
  return fail("clock", found, "Turn on time synchronisation (`timedatectl set-ntp true`, or chrony or ntpd) and run the doctor again.")
}

async function versionResult(options: NetworkCheckOptions): Promise<CheckResult> {
  const { net } = options
  if (options.waVersion !== "auto") return ok("version", `WAGATE_WA_VERSION is ${options.waVersion.join(".")}: connects announce it, nothing is looked up`)
  if (!net.versionLookup) {
    const builtIn = (await net.builtInVersion()).join(".")
    return ok("version", `not looked up: WAGATE_WA_WS_URL is not WhatsApp's, so connects announce Baileys' built-in ${builtIn}`)
  }
  const abort = new AbortController()
  try {
    const version = await withTimeout(net.versionLookup(abort.signal), net.versionLookupTimeoutMs, options.clock, `no answer within ${net.versionLookupTimeoutMs} ms`, () =>
      abort.abort(),
    )
    return ok("version", `WhatsApp Web ${version.join(".")}, looked up at ${net.versionLookupUrl} as connects do`)
  } catch (err) {
    const builtIn = (await net.builtInVersion()).join(".")
    return fail(
      "version",
      `the lookup at ${net.versionLookupUrl} failed (${outside(errorText(err))}); connects would announce Baileys' built-in ${builtIn}, which WhatsApp may refuse as outdated`,
      `Let this host reach ${net.versionLookupUrl}, or set WAGATE_WA_VERSION to the version web.whatsapp.com shows in a browser.`,
    )
  }
}

/** Rejects with `message` (code ETIMEDOUT) when `promise` has not settled within `timeoutMs` (then calls `onTimeout`). */
function withTimeout<T>(promise: Promise<T>, timeoutMs: number, clock: Clock, message: string, onTimeout?: () => void): Promise<T> {
  return withDeadline(clock, timeoutMs, Object.assign(new Error(message), { code: "ETIMEDOUT" }), promise, onTimeout)
}

function errorText(err: unknown): string {
  if (!(err instanceof Error)) return String(err)
  const code = (err as NodeJS.ErrnoException).code
  return code && !err.message.includes(code) ? `${code}: ${err.message}` : err.message
}

/** A network error's or a server's wording, bounded and escaped before it is printed. */
function outside(text: string): string {
  return boundedOutsideText(text)
}

function seconds(ms: number): string {
  return ms >= 120_000 ? `${Math.round(ms / 60_000)} min` : `${(ms / 1000).toFixed(1)} s`
}

export function ok(name: string, detail: string): CheckResult {
  return { name, status: "ok", detail, action: null }
}

export function fail(name: string, detail: string, action: string): CheckResult {
  return { name, status: "fail", detail, action }
}

export function skip(name: string, detail: string): CheckResult {
  return { name, status: "skip", detail, action: null }
}
