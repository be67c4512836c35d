import { randomBytes } from "node:crypto"
import dns from "node:dns"
import { createWriteStream, type WriteStream } from "node:fs"
import { rm } from "node:fs/promises"
import type { ClientRequest, IncomingMessage } from "node:http"
import https from "node:https"
import net from "node:net"
import { join } from "node:path"
import type { Readable } from "node:stream"
import tls from "node:tls"
import zlib from "node:zlib"
import type { Clock, TimerHandle } from "./clock"
import { createGarbagePacer } from "./garbage-pacer"
import { chooseFileName, SNIFF_HEAD_BYTES, sniffMedia, type MediaKind, type SniffedType } from "./media-sniff"
import { MEDIA_TEMP_PREFIX } from "./media-temp"
import { type CidrList, isAllowedAddress, mediaUrlProblem } from "./net-policy"

/** Re-exported so callers need only this module; identical to the gateway's `MediaKind`. */
export type { MediaKind } from "./media-sniff"

import { DEFAULT_MEDIA_MAX_BYTES, type MediaMaxBytes } from "./media-limits"
export { DEFAULT_MEDIA_MAX_BYTES, type MediaMaxBytes } from "./media-limits"

const MiB = 1024 * 1024

/**
 * A download slower than this for a whole window is abandoned: a server that drips a byte a second
 * would otherwise hold a send (and a download slot) for the full total deadline.
 */
export const MEDIA_MIN_BYTES_PER_SECOND = 8 * 1024
/** The window over which `MEDIA_MIN_BYTES_PER_SECOND` is measured, and the wait for response headers. */
export const MEDIA_SLOW_WINDOW_MS = 10_000

/** Settings of one download. `allowCidrs`, `clock` and `tempDir` are required; the rest have production defaults. */
export interface MediaFetchOptions {
  /** WAGATE_OUTBOUND_ALLOW_CIDRS: private ranges the operator (or a test) allows. */
  allowCidrs: CidrList
  /**
   * The directory the body is streamed into (a file of mode 0600), so a download never holds
   * the file in memory. A failed download removes its file; a successful one hands it to the
   * caller, who removes it after the send.
   */
  tempDir: string
  /** The total deadline and the slow-body detection use it, so tests drive time instead of sleeping. */
  clock: Clock
  /** Every address of a name; default `node:dns` lookup with `{ all: true }`. */
  resolve?: (hostname: string) => Promise<string[]>
  /** Time to open the TCP connection and finish the TLS handshake; default 5 000 ms. */
  connectTimeoutMs?: number
  /** The whole download including redirects and DNS; default 60 000 ms. */
  totalTimeoutMs?: number
  /** Redirects followed at most; default 3. */
  maxRedirects?: number
  /** Size caps per sniffed kind; default 16 MiB for image, video and audio, 100 MiB for documents. */
  maxBytes?: MediaMaxBytes
  /** Extra trusted CA certificates in PEM (tests); production uses the system store alone. */
  ca?: string | string[]
  /**
   * The TCP port dialled for URLs that name none; default 443. A URL names another port only
   * when it points at an address the operator allowed explicitly. Tests set it because their
   * HTTPS server cannot listen on 443; it never changes which URLs pass.
   */
  dialPort?: number
}

/** Why a download failed; each becomes the message's `errorCode`. */
export type MediaErrorCode = "media_url_blocked" | "media_fetch_failed" | "media_too_large" | "media_unsupported_type"

/** A downloaded file on disk, ready for the gateway. */
export interface DownloadedMedia {
  kind: MediaKind
  /** The file in `tempDir` that holds the body; the caller removes it. */
  path: string
  sizeBytes: number
  mimetype: string
  fileName: string
}

/** A downloaded file ready for the gateway, or why there is none (`message` is safe to show the API client). */
export type MediaFetchResult =
  | { ok: true; media: DownloadedMedia }
  | { ok: false; errorCode: MediaErrorCode; message: string }

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308])

/** TLS verification failures, reported as "certificate not valid" rather than a generic network error. */
const TLS_ERROR_CODES = new Set([
  "DEPTH_ZERO_SELF_SIGNED_CERT",
  "SELF_SIGNED_CERT_IN_CHAIN",
  "UNABLE_TO_VERIFY_LEAF_SIGNATURE",
  "UNABLE_TO_GET_ISSUER_CERT",
  "UNABLE_TO_GET_ISSUER_CERT_LOCALLY",
  "CERT_HAS_EXPIRED",
  "CERT_NOT_YET_VALID",
  "CERT_REVOKED",
  "CERT_UNTRUSTED",
  "CERT_REJECTED",
  "ERR_TLS_CERT_ALTNAME_INVALID",
  "HOSTNAME_MISMATCH",
])

/** The default resolver: every A and AAAA address the system resolver returns for a name. */
async function systemResolve(hostname: string): Promise<string[]> {
  const entries = await dns.promises.lookup(hostname, { all: true, verbatim: true })
  return entries.map((e) => e.address)
}

/**
 * Downloads one client-supplied media URL for a live WhatsApp send. This is the only path by which
 * a client URL is ever fetched (Baileys never sees one), so it carries the whole SSRF defence:
 *
 * - the URL and every redirect target must pass `mediaUrlProblem` (https, port 443, no
 *   credentials, no blocked names or non-public literals); redirects are followed by hand, at most
 *   `maxRedirects`;
 * - names are resolved once per hop and refused if ANY address is not public (or allowed by
 *   `allowCidrs`); the socket then goes to exactly the approved address through
 *   `https.request({ lookup })`, so a second, rebinding DNS answer is never consulted, while TLS
 *   still verifies the certificate against the host name;
 * - connect, total and slow-body deadlines use the injected clock and abort the socket;
 * - bytes are counted while streaming and the download stops at the cap of the sniffed kind;
 * - the body streams into a file in `tempDir` (mode 0600); only its first 8 KiB stay in memory;
 * - the kind comes from the bytes, never from Content-Type, and a web page is refused.
 *
 * It never throws: every failure is a result with an error code and a readable message.
 */
export function fetchMedia(url: string, options: MediaFetchOptions): Promise<MediaFetchResult> {
  return new MediaDownload(url, options).run()
}

/** One download's state: the current hop, its timers and the bytes so far. Settles exactly once. */
class MediaDownload {
  private readonly clock: Clock
  private readonly allowCidrs: CidrList
  private readonly resolve: (hostname: string) => Promise<string[]>
  private readonly connectTimeoutMs: number
  private readonly totalTimeoutMs: number
  private readonly maxRedirects: number
  private readonly maxBytes: MediaMaxBytes
  private readonly largestCapBytes: number
  private readonly ca: string[] | undefined
  private readonly dialPort: number
  private readonly tempDir: string
  /** The file the current body is written to, removed unless the download succeeds. */
  private tempPath: string | undefined
  private tempFile: WriteStream | undefined

  private settled = false
  private settle!: (result: MediaFetchResult) => void
  private totalTimer: TimerHandle | undefined
  /** Timers and streams of the current hop, torn down when the hop ends or the download settles. */
  private hopTimers: TimerHandle[] = []
  private hopStreams: { destroy(): unknown }[] = []
  /** Increments per hop, so late events of an abandoned hop are ignored. */
  private hopSeq = 0
  /** Every URL visited, for the file name fallback. */
  private readonly visited: string[] = []

  constructor(
    private readonly url: string,
    options: MediaFetchOptions,
  ) {
    this.clock = options.clock
    this.allowCidrs = options.allowCidrs
    this.resolve = options.resolve ?? systemResolve
    this.connectTimeoutMs = options.connectTimeoutMs ?? 5_000
    this.totalTimeoutMs = options.totalTimeoutMs ?? 60_000
    this.maxRedirects = options.maxRedirects ?? 3
    this.maxBytes = options.maxBytes ?? DEFAULT_MEDIA_MAX_BYTES
    this.largestCapBytes = Math.max(this.maxBytes.image, this.maxBytes.video, this.maxBytes.audio, this.maxBytes.document)
    // Node's `ca` replaces the system store; appending to it keeps public CAs trusted too.
    this.ca = options.ca === undefined ? undefined : [...tls.rootCertificates, ...(Array.isArray(options.ca) ? options.ca : [options.ca])]
    this.dialPort = options.dialPort ?? 443
    this.tempDir = options.tempDir
  }

  run(): Promise<MediaFetchResult> {
    return new Promise<MediaFetchResult>((resolve) => {
      this.settle = resolve
      this.totalTimer = this.clock.setTimer(this.totalTimeoutMs, () =>
        this.fail("media_fetch_failed", `the download did not finish within ${seconds(this.totalTimeoutMs)}`),
      )
      this.hop(this.url, 0).catch(() => this.fail("media_fetch_failed", "the download failed unexpectedly"))
    })
  }

  private finish(result: MediaFetchResult): void {
    if (this.settled) return
    this.settled = true
    this.totalTimer?.cancel()
    this.endHop()
    if (!result.ok) this.discardFile()
    this.settle(result)
  }

  /**
   * Removes the body's file once its stream has closed: a file whose open is still pending
   * would otherwise be created after its removal and be left behind.
   */
  private discardFile(): void {
    const { tempPath, tempFile } = this
    if (tempPath === undefined) return
    const remove = () => void rm(tempPath, { force: true }).catch(() => undefined)
    if (tempFile !== undefined && !tempFile.closed) {
      tempFile.once("close", remove)
      tempFile.destroy()
    } else remove()
  }

  private fail(errorCode: MediaErrorCode, message: string): void {
    this.finish({ ok: false, errorCode, message })
  }

  /** Cancels the current hop's timers and destroys its sockets and streams. */
  private endHop(): void {
    this.hopSeq++
    for (const timer of this.hopTimers) timer.cancel()
    for (const stream of this.hopStreams) stream.destroy()
    this.hopTimers = []
    this.hopStreams = []
  }

  /** Validates, resolves and requests one URL; `redirects` is how many redirects led here. */
  private async hop(rawUrl: string, redirects: number): Promise<void> {
    this.endHop()
    const problem = mediaUrlProblem(rawUrl, this.allowCidrs)
    if (problem !== null) {
      const what = redirects === 0 ? "the media URL" : `the media URL redirected to ${safeHost(rawUrl)}, refused because it`
      return this.fail("media_url_blocked", `${what} ${problem}`)
    }
    const url = new URL(rawUrl)
    this.visited.push(url.href)
    const host = url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname

    let address: string
    if (net.isIP(host) !== 0) {
      // mediaUrlProblem has approved the literal; checked again so this path can never dial a blocked one.
      if (!isAllowedAddress(host, this.allowCidrs)) return this.fail("media_url_blocked", `${host} is not a public address`)
      address = host
    } else {
      let addresses: string[]
      try {
        addresses = await this.resolve(host)
      } catch {
        return this.fail("media_fetch_failed", `could not resolve ${host}`)
      }
      if (this.settled) return
      if (addresses.length === 0) return this.fail("media_fetch_failed", `could not resolve ${host}`)
      // Any non-public answer refuses the name: a mixed answer is how rebinding attacks start.
      if (addresses.some((a) => !isAllowedAddress(a, this.allowCidrs))) {
        return this.fail("media_url_blocked", `${host} resolves to a non-public address`)
      }
      address = addresses[0]!
    }
    this.request(url, host, address, redirects)
  }

  private request(url: URL, host: string, address: string, redirects: number): void {
    const seq = this.hopSeq
    const current = () => !this.settled && this.hopSeq === seq
    const family = net.isIPv6(address) ? 6 : 4
    // The only answer the socket ever gets: the address approved above, whatever name it asks for.
    const lookup = (_hostname: string, opts: { all?: boolean } | undefined, callback: (...args: unknown[]) => void) => {
      if (opts?.all) callback(null, [{ address, family }])
      else callback(null, address, family)
    }

    const req: ClientRequest = https.request({
      host,
      port: url.port === "" ? this.dialPort : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: "GET",
      // SNI and certificate checks use the name; an IP literal is checked against the IP SANs.
      servername: net.isIP(host) === 0 ? host : undefined,
      headers: { host: url.host, accept: "*/*", "accept-encoding": "identity", "user-agent": "wagate" },
      lookup: lookup as never,
      ca: this.ca,
      agent: false,
    })
    this.hopStreams.push(req)

    const connectTimer = this.clock.setTimer(this.connectTimeoutMs, () => {
      if (current()) this.fail("media_fetch_failed", `could not connect to ${host} within ${seconds(this.connectTimeoutMs)}`)
    })
    this.hopTimers.push(connectTimer)
    req.on("socket", (socket) => socket.once("secureConnect", () => connectTimer.cancel()))

    // Slow-body detection, also covering the wait for response headers: every window must bring
    // at least MEDIA_MIN_BYTES_PER_SECOND on average, or the download is abandoned.
    let windowBytes = 0
    let responded = false
    const watch = () => {
      this.hopTimers.push(
        this.clock.setTimer(MEDIA_SLOW_WINDOW_MS, () => {
          if (!current()) return
          if (!responded) return this.fail("media_fetch_failed", `${host} did not respond within ${seconds(MEDIA_SLOW_WINDOW_MS)}`)
          if (windowBytes < MEDIA_MIN_BYTES_PER_SECOND * (MEDIA_SLOW_WINDOW_MS / 1000)) {
            return this.fail(
              "media_fetch_failed",
              `${host} sent the file too slowly (under ${MEDIA_MIN_BYTES_PER_SECOND / 1024} KiB/s for ${seconds(MEDIA_SLOW_WINDOW_MS)})`,
            )
          }
          windowBytes = 0
          watch()
        }),
      )
    }
    watch()

    req.on("error", (error) => {
      if (current()) this.fail("media_fetch_failed", describeNetworkError(error, host))
    })
    req.on("response", (res) => {
      if (!current()) return void res.destroy()
      responded = true
      connectTimer.cancel()
      this.hopStreams.push(res)
      res.on("data", (chunk: Buffer) => (windowBytes += chunk.length))
      this.onResponse(res, url, host, redirects, current)
    })
    req.end()
  }

  private onResponse(res: IncomingMessage, url: URL, host: string, redirects: number, current: () => boolean): void {
    const status = res.statusCode ?? 0
    const location = res.headers.location
    if (REDIRECT_STATUSES.has(status) && location) {
      if (redirects >= this.maxRedirects) {
        return this.fail("media_fetch_failed", `the media URL redirected more than ${this.maxRedirects} times`)
      }
      let next: URL
      try {
        next = new URL(location, url)
      } catch {
        return this.fail("media_fetch_failed", `${host} redirected to an invalid URL`)
      }
      next.hash = ""
      this.hop(next.href, redirects + 1).catch(() => this.fail("media_fetch_failed", "the download failed unexpectedly"))
      return
    }
    if (status < 200 || status > 299) {
      return this.fail("media_fetch_failed", `${host} answered HTTP ${status}${res.statusMessage ? ` ${res.statusMessage}` : ""}`)
    }

    const declaredBytes = parseContentLength(res.headers["content-length"])
    if (declaredBytes !== undefined && declaredBytes > this.largestCapBytes) {
      return this.fail("media_too_large", `the file is ${formatBytes(declaredBytes)}, more than the ${formatBytes(this.largestCapBytes)} limit`)
    }

    let body: Readable = res
    const encoding = res.headers["content-encoding"]?.trim().toLowerCase()
    if (encoding && encoding !== "identity") {
      // We ask for identity; a server that compresses anyway is decoded, and the caps count the decoded bytes.
      const decoder =
        encoding === "gzip" || encoding === "x-gzip"
          ? zlib.createGunzip()
          : encoding === "deflate"
            ? zlib.createInflate()
            : encoding === "br"
              ? zlib.createBrotliDecompress()
              : undefined
      if (decoder === undefined) return this.fail("media_fetch_failed", `${host} sent an unsupported content encoding (${encoding})`)
      this.hopStreams.push(decoder)
      res.on("error", () => undefined)
      res.pipe(decoder)
      body = decoder
    }
    this.readBody(body, res, host, encoding ? undefined : declaredBytes, current)
  }

  private readBody(body: Readable, res: IncomingMessage, host: string, declaredBytes: number | undefined, current: () => boolean): void {
    // Only the first bytes stay in memory, for sniffing; the body goes to a file as it arrives.
    const head = new Uint8Array(SNIFF_HEAD_BYTES)
    let headBytes = 0
    let totalBytes = 0
    let capBytes = this.largestCapBytes
    let early: SniffedType | undefined
    let earlySniffStarted = false
    const contentType = res.headers["content-type"]
    const disposition = res.headers["content-disposition"]
    const path = join(this.tempDir, `${MEDIA_TEMP_PREFIX}${randomBytes(12).toString("hex")}.part`)
    this.tempPath = path
    const file = createWriteStream(path, { flags: "wx", mode: 0o600 })
    this.tempFile = file
    // The file outlives the hop (it is flushed after the body ends), so its errors count until the download settles.
    file.on("error", () => this.fail("media_fetch_failed", "the file could not be written to the data directory"))

    const tooLarge = (kind: MediaKind | undefined) =>
      this.fail(
        "media_too_large",
        kind === undefined
          ? `the file is larger than the ${formatBytes(capBytes)} limit`
          : `the ${kind} is larger than the ${formatBytes(capBytes)} limit for ${kind === "document" ? "documents" : `${kind}s`}`,
      )

    // Learns the kind from the first bytes, so the cap of that kind applies while streaming.
    const sniffEarly = () => {
      earlySniffStarted = true
      void sniffMedia(head.subarray(0, headBytes), { contentType }).then((sniffed) => {
        if (!current() || !sniffed.ok) return
        early = sniffed.type
        capBytes = this.maxBytes[early.kind]
        if (totalBytes > capBytes || (declaredBytes !== undefined && declaredBytes > capBytes)) tooLarge(early.kind)
      })
    }

    // The socket's chunks are garbage once written; collected as they pile up (garbage-pacer.ts).
    const pacer = createGarbagePacer()
    body.on("data", (chunk: Buffer) => {
      if (!current()) return
      totalBytes += chunk.length
      pacer.passed(chunk.length)
      if (totalBytes > capBytes) return tooLarge(early?.kind)
      if (headBytes < SNIFF_HEAD_BYTES) {
        const taken = chunk.subarray(0, SNIFF_HEAD_BYTES - headBytes)
        head.set(taken, headBytes)
        headBytes += taken.length
      }
      // Backpressure: a disk slower than the network pauses the socket instead of buffering.
      if (!file.write(chunk)) {
        body.pause()
        file.once("drain", () => body.resume())
      }
      if (!earlySniffStarted && headBytes >= SNIFF_HEAD_BYTES) sniffEarly()
    })
    body.on("error", (error) => {
      if (current()) this.fail("media_fetch_failed", describeNetworkError(error, host))
    })
    // A connection that closes before the response's end is a truncated file, whatever the framing.
    let responseEnded = false
    res.on("end", () => (responseEnded = true))
    const truncated = () => {
      if (!responseEnded && current()) this.fail("media_fetch_failed", `the connection to ${host} closed before the file was complete`)
    }
    res.on("aborted", truncated)
    res.on("close", truncated)
    body.on("end", () => {
      if (!current()) return
      if (declaredBytes !== undefined && totalBytes !== declaredBytes) {
        return this.fail("media_fetch_failed", `the connection to ${host} closed before the file was complete`)
      }
      // The body is complete: stop the hop's timers and sockets; only the deadline can still end it.
      this.endHop()
      file.end((error?: Error | null) => {
        if (this.settled || error) return
        const fileNameHint = chooseFileName(disposition, this.visited, "bin")
        void sniffMedia(head.subarray(0, headBytes), { contentType, fileName: fileNameHint, whole: Bun.file(path) }).then((sniffed) => {
          // Only the total deadline can have ended the download meanwhile.
          if (this.settled) return
          if (!sniffed.ok) return this.fail("media_unsupported_type", sniffed.message)
          const { kind, mimetype, ext } = sniffed.type
          capBytes = this.maxBytes[kind]
          if (totalBytes > capBytes) return tooLarge(kind)
          this.finish({ ok: true, media: { kind, path, sizeBytes: totalBytes, mimetype, fileName: chooseFileName(disposition, this.visited, ext) } })
        })
      })
    })
  }
}

/** A Content-Length header as a byte count, or undefined when absent or not a plain number. */
function parseContentLength(header: string | undefined): number | undefined {
  if (header === undefined || !/^\d+$/.test(header.trim())) return undefined
  return Number(header.trim())
}

/** A network error in words safe for the API client: the host and an error code, never an internal address. */
function describeNetworkError(error: unknown, host: string): string {
  const code = typeof error === "object" && error !== null && "code" in error ? String((error as { code: unknown }).code) : undefined
  if (code !== undefined && (TLS_ERROR_CODES.has(code) || code.startsWith("ERR_TLS") || code.startsWith("ERR_SSL"))) {
    return `the TLS certificate of ${host} could not be verified (${code})`
  }
  if (code === "ECONNREFUSED") return `${host} refused the connection`
  if (code === "ECONNRESET" || code === "EPIPE") return `the connection to ${host} closed before the file was complete`
  if (code === "ETIMEDOUT") return `the connection to ${host} timed out`
  if (code !== undefined && /^[A-Z0-9_]+$/.test(code)) return `could not download from ${host} (${code})`
  return `could not download from ${host}`
}

/** The host of a URL for a message, or a placeholder when it does not parse. */
function safeHost(raw: string): string {
  try {
    return new URL(raw).host || "an invalid URL"
  } catch {
    return "an invalid URL"
  }
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`
}

function formatBytes(bytes: number): string {
  if (bytes >= MiB) return `${Math.round((bytes / MiB) * 10) / 10} MiB`
  if (bytes >= 1024) return `${Math.round((bytes / 1024) * 10) / 10} KiB`
  return `${bytes} bytes`
}
