import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from "node:fs"
import type { IncomingMessage, ServerResponse } from "node:http"
import https from "node:https"
import net from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gzipSync } from "node:zlib"
import { fetchMedia, type MediaFetchOptions, type MediaFetchResult } from "../../src/lib/media-fetcher"
import { chooseFileName, contentDispositionFileName, sanitizeFileName, sniffMedia } from "../../src/lib/media-sniff"
import { type CidrList, parseCidrList } from "../../src/lib/net-policy"
import { TestClock } from "../helpers/test-clock"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

// ---------------------------------------------------------------------------------------------
// Sample files: just enough structure for magic-number sniffing, padded past the early-sniff size.
// ---------------------------------------------------------------------------------------------

const encoder = new TextEncoder()

function bytes(...parts: (string | number[] | Uint8Array)[]): Uint8Array {
  const arrays = parts.map((p) => (typeof p === "string" ? encoder.encode(p) : p instanceof Uint8Array ? p : Uint8Array.from(p)))
  const out = new Uint8Array(arrays.reduce((n, a) => n + a.length, 0))
  let offset = 0
  for (const a of arrays) {
    out.set(a, offset)
    offset += a.length
  }
  return out
}
const u32be = (n: number) => [(n >>> 24) & 255, (n >>> 16) & 255, (n >>> 8) & 255, n & 255]
const u32le = (n: number) => [n & 255, (n >>> 8) & 255, (n >>> 16) & 255, (n >>> 24) & 255]
const u16le = (n: number) => [n & 255, (n >>> 8) & 255]

/** Deterministic pseudo-random bytes, so no sample accidentally looks like text. */
function filler(length: number, seed = 1): Uint8Array {
  const out = new Uint8Array(length)
  let x = seed
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) >>> 0
    out[i] = x >>> 24
  }
  return out
}

function isoMedia(brand: string, payloadBytes = 20_000): Uint8Array {
  return bytes(u32be(24), "ftyp", brand, u32be(0x200), brand, "mp41", u32be(8 + payloadBytes), "mdat", filler(payloadBytes))
}

/** The data of one entry of a zip made by `storedZip`, found by walking its local headers. */
function storedZipEntry(zip: Uint8Array, name: string): Uint8Array {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength)
  for (let at = 0; view.getUint32(at, true) === 0x04034b50; ) {
    const size = view.getUint32(at + 18, true)
    const nameLength = view.getUint16(at + 26, true)
    const start = at + 30 + nameLength + view.getUint16(at + 28, true)
    if (new TextDecoder().decode(zip.subarray(at + 30, at + 30 + nameLength)) === name) return zip.subarray(start, start + size)
    at = start + size
  }
  throw new Error(`no entry ${name}`)
}

/** A stored (uncompressed) zip of text entries. */
function storedZip(entries: Record<string, string>): Uint8Array {
  const parts: Uint8Array[] = []
  for (const [name, text] of Object.entries(entries)) {
    const data = encoder.encode(text)
    const crc = Bun.hash.crc32(data)
    parts.push(bytes(u32le(0x04034b50), u16le(20), u16le(0), u16le(0), u16le(0), u16le(0x21), u32le(crc), u32le(data.length), u32le(data.length), u16le(name.length), u16le(0), name, data))
  }
  return bytes(...parts)
}

const PNG_1X1 = Uint8Array.from(Buffer.from("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==", "base64"))

const SAMPLES = {
  png: bytes(PNG_1X1, filler(20_000)),
  jpeg: bytes([0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10], "JFIF", [0, 1, 1, 0, 0, 1, 0, 1, 0, 0], filler(20_000), [0xff, 0xd9]),
  gif: bytes("GIF89a", [1, 0, 1, 0, 0x80, 0, 0], filler(20_000)),
  webp: bytes("RIFF", u32le(20_012), "WEBPVP8 ", filler(20_004)),
  mp4: isoMedia("isom"),
  threegp: isoMedia("3gp4"),
  mov: isoMedia("qt  "),
  opus: bytes("OggS", [0, 2], [0, 0, 0, 0, 0, 0, 0, 0], u32le(1), u32le(0), u32le(0), [1, 19], "OpusHead", [1, 2, 0x38, 1, 0x80, 0xbb, 0, 0, 0, 0, 0], filler(20_000)),
  mp3: bytes("ID3", [3, 0, 0, 0, 0, 0, 0], [0xff, 0xfb, 0x90, 0x64], filler(20_000)),
  m4a: isoMedia("M4A "),
  aac: bytes([0xff, 0xf1, 0x50, 0x80, 0x02, 0x1f, 0xfc], filler(20_000)),
  amr: bytes("#!AMR\n", filler(20_000)),
  wav: bytes("RIFF", u32le(20_036), "WAVE", "fmt ", u32le(16), u16le(1), u16le(1), u32le(8000), u32le(16000), u16le(2), u16le(16), "data", u32le(20_000), filler(20_000)),
  pdf: bytes("%PDF-1.4\n1 0 obj\n<<>>\nendobj\n", "x".repeat(20_000), "\n%%EOF\n"),
  docx: storedZip({
    "[Content_Types].xml":
      '<?xml version="1.0" encoding="UTF-8" standalone="yes"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>',
    "word/document.xml": `<w:document/>${"x".repeat(20_000)}`,
  }),
  zip: storedZip({ "notes.txt": "hello ".repeat(4000) }),
  csv: bytes(`name,phone\n${"alice,+15551234567\n".repeat(1000)}`),
  text: bytes("Dear customer,\n\nyour order has shipped.\n".repeat(400)),
  html: bytes(`<!DOCTYPE html>\n<html><head><title>Download</title></head><body>${"x".repeat(20_000)}</body></html>`),
  xhtml: bytes('<?xml version="1.0" encoding="UTF-8"?>\n<html xmlns="http://www.w3.org/1999/xhtml"><body>hi</body></html>'),
  binary: bytes([0, 1, 2, 3, 0xfe, 0xff], filler(20_000)),
}

// ---------------------------------------------------------------------------------------------
// A local HTTPS server with a certificate generated at test start.
// ---------------------------------------------------------------------------------------------

type Handler = (req: IncomingMessage, res: ServerResponse) => void

/**
 * An HTTPS server on 127.0.0.1 behind a plain TCP relay. The relay counts every TCP connection as
 * it is accepted (Bun's https server reports a connection only after the TLS handshake, which
 * would miss a client that gives up during it); probe sockets from `barrier` are not counted.
 */
class MediaServer {
  readonly routes = new Map<string, Handler>()
  readonly requests: { path: string; host: string | undefined; servername: string | undefined }[] = []
  private server!: https.Server
  private relay!: net.Server
  private readonly seenPorts: number[] = []
  private readonly probePorts = new Set<number>()
  private readonly sockets = new Set<net.Socket>()
  private onConnection: (() => void)[] = []
  /** The relay's port: the one clients dial. */
  port = 0

  async start(cert: string, key: string): Promise<void> {
    this.server = https.createServer({ cert, key }, (req, res) => {
      const path = new URL(req.url ?? "/", "https://x").pathname
      this.requests.push({ path, host: req.headers.host, servername: (req.socket as { servername?: string }).servername })
      const handler = this.routes.get(path)
      if (handler) return handler(req, res)
      res.writeHead(404, { "content-type": "text/plain" })
      res.end("not found")
    })
    this.server.on("connection", (socket: net.Socket) => this.track(socket))
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", () => resolve()))
    const httpsPort = (this.server.address() as net.AddressInfo).port

    this.relay = net.createServer((client) => {
      this.seenPorts.push(client.remotePort ?? -1)
      for (const fn of this.onConnection) fn()
      const upstream = net.connect(httpsPort, "127.0.0.1")
      this.track(client)
      this.track(upstream)
      client.pipe(upstream)
      upstream.pipe(client)
      client.on("close", () => upstream.destroy())
      upstream.on("close", () => client.destroy())
    })
    await new Promise<void>((resolve) => this.relay.listen(0, "127.0.0.1", () => resolve()))
    this.port = (this.relay.address() as net.AddressInfo).port
  }

  private track(socket: net.Socket): void {
    this.sockets.add(socket)
    socket.on("error", () => undefined)
    socket.on("close", () => this.sockets.delete(socket))
  }

  /** Connections made so far by anything but `barrier` probes. */
  get connections(): number {
    return this.seenPorts.filter((p) => !this.probePorts.has(p)).length
  }

  /**
   * Opens a probe connection and waits until the relay has seen it. The relay accepts in order,
   * so every connection made before the probe has been counted by then.
   */
  async barrier(): Promise<void> {
    const socket = net.connect(this.port, "127.0.0.1")
    socket.on("error", () => undefined)
    const localPort = await new Promise<number>((resolve) => socket.once("connect", () => resolve(socket.localPort!)))
    this.probePorts.add(localPort)
    await new Promise<void>((resolve) => {
      const check = () => {
        if (!this.seenPorts.includes(localPort)) return
        this.onConnection = this.onConnection.filter((fn) => fn !== check)
        resolve()
      }
      this.onConnection.push(check)
      check()
    })
    socket.destroy()
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy()
    await new Promise<void>((resolve) => this.relay.close(() => resolve()))
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }
}

/** A TCP server that accepts and then never speaks: the TLS handshake never completes. */
class SilentTcpServer {
  private server!: net.Server
  private readonly sockets = new Set<net.Socket>()
  private waiters: (() => void)[] = []
  connections = 0
  port = 0

  async start(): Promise<void> {
    this.server = net.createServer((socket) => {
      this.connections++
      this.sockets.add(socket)
      socket.on("error", () => undefined)
      socket.on("close", () => this.sockets.delete(socket))
      for (const fn of this.waiters.splice(0)) fn()
    })
    await new Promise<void>((resolve) => this.server.listen(0, "127.0.0.1", () => resolve()))
    this.port = (this.server.address() as net.AddressInfo).port
  }

  nextConnection(): Promise<void> {
    return new Promise((resolve) => this.waiters.push(resolve))
  }

  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.destroy()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }
}

let certDir: string
let cert: string
let server: MediaServer
let silent: SilentTcpServer
const LOOPBACK: CidrList = parseCidrList("127.0.0.1/32")

beforeAll(async () => {
  certDir = mkdtempSync(join(tmpdir(), "wagate-media-"))
  const openssl = Bun.spawnSync(
    [
      "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes",
      "-subj", "/CN=media.test", "-addext", "subjectAltName=DNS:media.test,IP:127.0.0.1", "-days", "1",
      "-keyout", join(certDir, "key.pem"), "-out", join(certDir, "cert.pem"),
    ],
    { stderr: "pipe", stdout: "pipe" },
  )
  if (openssl.exitCode !== 0) throw new Error(`openssl failed: ${openssl.stderr.toString()}`)
  cert = readFileSync(join(certDir, "cert.pem"), "utf8")
  server = new MediaServer()
  await server.start(cert, readFileSync(join(certDir, "key.pem"), "utf8"))
  silent = new SilentTcpServer()
  await silent.start()
}, SLOW_HOOK_TIMEOUT_MS)

afterAll(async () => {
  await server?.stop()
  await silent?.stop()
  rmSync(certDir, { recursive: true, force: true })
  rmSync(mediaDir, { recursive: true, force: true })
}, SLOW_HOOK_TIMEOUT_MS)

/** Where downloads are written; each test gets a folder of its own, so it can count what is left. */
const mediaDir = mkdtempSync(join(tmpdir(), "wagate-media-"))
let mediaSeq = 0
function freshTempDir(): string {
  const dir = join(mediaDir, String(++mediaSeq))
  mkdirSync(dir)
  return dir
}

/** The bytes a successful download wrote to its file. */
function fileBytes(media: { path: string }): Buffer {
  return readFileSync(media.path)
}

/** A resolver from a fixed table that records every name it was asked for. */
function tableResolver(table: Record<string, string[]>) {
  const calls: string[] = []
  const resolve = async (hostname: string) => {
    calls.push(hostname)
    const answer = table[hostname]
    if (answer === undefined) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: "ENOTFOUND" })
    return answer
  }
  return { resolve, calls }
}

interface Harness {
  options: MediaFetchOptions
  clock: TestClock
  resolverCalls: string[]
}

function harness(overrides: Partial<MediaFetchOptions> = {}, table: Record<string, string[]> = { "media.test": ["127.0.0.1"] }): Harness {
  const clock = new TestClock()
  const resolver = tableResolver(table)
  return {
    clock,
    resolverCalls: resolver.calls,
    options: { allowCidrs: LOOPBACK, clock, resolve: resolver.resolve, ca: cert, dialPort: server.port, tempDir: freshTempDir(), ...overrides },
  }
}

/** Runs one fetch and reports how many connections reached the test server meanwhile. */
async function fetchCounting(url: string, options: MediaFetchOptions): Promise<{ result: MediaFetchResult; connections: number }> {
  await server.barrier()
  const before = server.connections
  const result = await fetchMedia(url, options)
  await server.barrier()
  return { result, connections: server.connections - before }
}

let routeSeq = 0
/** Registers a handler under a fresh path and returns the full URL for it. */
function route(name: string, handler: Handler, host = "media.test"): string {
  const path = `/r${++routeSeq}/${name}`
  server.routes.set(path, handler)
  return `https://${host}${path}`
}

function serve(body: Uint8Array, headers: Record<string, string> = {}): Handler {
  return (_req, res) => {
    res.writeHead(200, { "content-length": String(body.length), ...headers })
    res.end(Buffer.from(body))
  }
}

function redirect(location: string, status = 302): Handler {
  return (_req, res) => {
    res.writeHead(status, { location, "content-length": "0" })
    res.end()
  }
}

/** Lets promise callbacks and I/O already queued run, without waiting for time. */
async function flush(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve))
}

/** Tracks whether a promise has settled, for "not yet" assertions around clock advances. */
function track<T>(promise: Promise<T>): { promise: Promise<T>; settled: () => boolean } {
  let settled = false
  void promise.then(() => (settled = true))
  return { promise, settled: () => settled }
}

function expectOk(result: MediaFetchResult) {
  if (!result.ok) throw new Error(`expected success, got ${result.errorCode}: ${result.message}`)
  return result.media
}

function expectError(result: MediaFetchResult, errorCode: string, message?: RegExp) {
  if (result.ok) throw new Error(`expected ${errorCode}, got success (${result.media.kind})`)
  expect(result.errorCode).toBe(errorCode as never)
  if (message) expect(result.message).toMatch(message)
}

// ---------------------------------------------------------------------------------------------

describe("fetchMedia: success", () => {
  test.each([
    { name: "PNG", sample: SAMPLES.png, file: "photo.png", kind: "image", mimetype: "image/png" },
    { name: "JPEG", sample: SAMPLES.jpeg, file: "photo.jpg", kind: "image", mimetype: "image/jpeg" },
    { name: "GIF", sample: SAMPLES.gif, file: "anim.gif", kind: "image", mimetype: "image/gif" },
    { name: "WebP", sample: SAMPLES.webp, file: "sticker.webp", kind: "image", mimetype: "image/webp" },
    { name: "MP4", sample: SAMPLES.mp4, file: "clip.mp4", kind: "video", mimetype: "video/mp4" },
    { name: "3GP", sample: SAMPLES.threegp, file: "clip.3gp", kind: "video", mimetype: "video/3gpp" },
    { name: "QuickTime", sample: SAMPLES.mov, file: "clip.mov", kind: "video", mimetype: "video/quicktime" },
    { name: "Ogg Opus", sample: SAMPLES.opus, file: "voice.ogg", kind: "audio", mimetype: "audio/ogg; codecs=opus" },
    { name: "MP3", sample: SAMPLES.mp3, file: "song.mp3", kind: "audio", mimetype: "audio/mpeg" },
    { name: "M4A", sample: SAMPLES.m4a, file: "song.m4a", kind: "audio", mimetype: "audio/mp4" },
    { name: "AAC", sample: SAMPLES.aac, file: "song.aac", kind: "audio", mimetype: "audio/aac" },
    { name: "AMR", sample: SAMPLES.amr, file: "memo.amr", kind: "audio", mimetype: "audio/amr" },
    { name: "WAV", sample: SAMPLES.wav, file: "memo.wav", kind: "audio", mimetype: "audio/wav" },
    { name: "PDF", sample: SAMPLES.pdf, file: "invoice.pdf", kind: "document", mimetype: "application/pdf" },
    {
      name: "DOCX",
      sample: SAMPLES.docx,
      file: "letter.docx",
      kind: "document",
      mimetype: "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
    },
    { name: "ZIP", sample: SAMPLES.zip, file: "bundle.zip", kind: "document", mimetype: "application/zip" },
    { name: "CSV", sample: SAMPLES.csv, file: "contacts.csv", kind: "document", mimetype: "text/csv" },
    { name: "plain text", sample: SAMPLES.text, file: "notes.txt", kind: "document", mimetype: "text/plain" },
    { name: "unknown binary", sample: SAMPLES.binary, file: "blob.dat", kind: "document", mimetype: "application/octet-stream" },
  ])("$name → $kind ($mimetype), byte-exact", async ({ sample, file, kind, mimetype }) => {
    const h = harness()
    // A generic Content-Type: the kind must come from the bytes alone.
    const url = route(file, serve(sample, { "content-type": "application/octet-stream" }))
    const media = expectOk(await fetchMedia(url, h.options))
    expect(media.kind).toBe(kind as never)
    expect(media.mimetype).toBe(mimetype)
    expect(media.fileName).toBe(file)
    expect(media.sizeBytes).toBe(sample.length)
    expect(fileBytes(media).equals(Buffer.from(sample))).toBe(true)
    expect(h.clock.pendingTimers).toBe(0)
  })

  test("the name is resolved once by the injected resolver, then sent as Host and SNI", async () => {
    const h = harness()
    const url = route("a.png", serve(SAMPLES.png))
    expectOk(await fetchMedia(url, h.options))
    // media.test exists in no real DNS: success proves the socket used the approved address.
    expect(h.resolverCalls).toEqual(["media.test"])
    const seen = server.requests.at(-1)!
    expect(seen.host).toBe("media.test")
    expect(seen.servername).toBe("media.test")
  })

  test("DNS rebinding: a second, private answer is never consulted", async () => {
    const clock = new TestClock()
    let calls = 0
    const resolve = async () => (++calls === 1 ? ["127.0.0.1"] : ["10.0.0.1"])
    const url = route("rebind.png", serve(SAMPLES.png))
    expectOk(await fetchMedia(url, { allowCidrs: LOOPBACK, clock, resolve, ca: cert, dialPort: server.port, tempDir: freshTempDir() }))
    expect(calls).toBe(1)
  })

  test("an allowed IP literal is dialled without the resolver and verified against the IP SAN", async () => {
    const h = harness()
    const url = route("literal.png", serve(SAMPLES.png), "127.0.0.1")
    expectOk(await fetchMedia(url, h.options))
    expect(h.resolverCalls).toEqual([])
  })

  test("Content-Type never decides the kind: a PNG labelled text/html is an image", async () => {
    const h = harness()
    const media = expectOk(await fetchMedia(route("x.png", serve(SAMPLES.png, { "content-type": "text/html" })), h.options))
    expect(media.kind).toBe("image")
    expect(media.mimetype).toBe("image/png")
  })

  test("a video labelled image/jpeg is still a video", async () => {
    const h = harness()
    const media = expectOk(await fetchMedia(route("fake.jpg", serve(SAMPLES.mp4, { "content-type": "image/jpeg" })), h.options))
    expect(media.kind).toBe("video")
  })

  test("a chunked body without Content-Length is read to the end", async () => {
    const h = harness()
    const url = route("chunked.pdf", (_req, res) => {
      res.writeHead(200, { "content-type": "application/pdf" })
      res.write(Buffer.from(SAMPLES.pdf.subarray(0, 5000)))
      res.write(Buffer.from(SAMPLES.pdf.subarray(5000, 12_000)))
      res.end(Buffer.from(SAMPLES.pdf.subarray(12_000)))
    })
    const media = expectOk(await fetchMedia(url, h.options))
    expect(fileBytes(media).equals(Buffer.from(SAMPLES.pdf))).toBe(true)
  })

  test("a gzip body the server sent anyway is decoded", async () => {
    const h = harness()
    const url = route("zipped.png", serve(gzipSync(SAMPLES.png), { "content-encoding": "gzip" }))
    const media = expectOk(await fetchMedia(url, h.options))
    expect(fileBytes(media).equals(Buffer.from(SAMPLES.png))).toBe(true)
  })

  test("the CSV mimetype comes from Content-Type when the bytes are text", async () => {
    const h = harness()
    const media = expectOk(await fetchMedia(route("export", serve(SAMPLES.csv, { "content-type": "text/csv; charset=utf-8" })), h.options))
    expect(media.mimetype).toBe("text/csv")
    expect(media.fileName).toBe("export.csv")
  })
})

describe("fetchMedia: file names", () => {
  test("Content-Disposition filename wins over the URL", async () => {
    const h = harness()
    const url = route("download", serve(SAMPLES.pdf, { "content-disposition": 'attachment; filename="Invoice 2026-01.pdf"' }))
    expect(expectOk(await fetchMedia(url, h.options)).fileName).toBe("Invoice 2026-01.pdf")
  })

  test("RFC 6266 filename* (UTF-8) is decoded", async () => {
    const h = harness()
    const url = route("d", serve(SAMPLES.pdf, { "content-disposition": "attachment; filename=\"resume.pdf\"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf" }))
    expect(expectOk(await fetchMedia(url, h.options)).fileName).toBe("résumé.pdf")
  })

  test("a path-traversal Content-Disposition is reduced to its last segment", async () => {
    const h = harness()
    const url = route("d", serve(SAMPLES.pdf, { "content-disposition": 'attachment; filename="../../etc/passwd"' }))
    expect(expectOk(await fetchMedia(url, h.options)).fileName).toBe("passwd.pdf")
  })

  test("the last URL path segment is decoded", async () => {
    const h = harness()
    const url = route("Quarterly%20Report.pdf", serve(SAMPLES.pdf))
    expect(expectOk(await fetchMedia(url, h.options)).fileName).toBe("Quarterly Report.pdf")
  })

  test("a URL without a path falls back to file.<ext>", async () => {
    const h = harness()
    server.routes.set("/", serve(SAMPLES.png))
    try {
      expect(expectOk(await fetchMedia("https://media.test/", h.options)).fileName).toBe("file.png")
    } finally {
      server.routes.delete("/")
    }
  })

  test("after a redirect to an opaque key, the client's named URL gives the name", async () => {
    const h = harness()
    const target = route("a8f3c2", serve(SAMPLES.pdf))
    const url = route("report.pdf", redirect(target))
    expect(expectOk(await fetchMedia(url, h.options)).fileName).toBe("report.pdf")
  })

  test("sanitizeFileName strips directories, control and bidi characters and leading dots", () => {
    expect(sanitizeFileName("..\\..\\windows\\evil.pdf")).toBe("evil.pdf")
    expect(sanitizeFileName("invoice\u202Efdp.exe")).toBe("invoice_fdp.exe")
    expect(sanitizeFileName("a\u0000b\nc.txt")).toBe("a_b_c.txt")
    expect(sanitizeFileName("two   spaces\u00a0here.txt")).toBe("two spaces here.txt")
    expect(sanitizeFileName("...hidden")).toBe("hidden")
    expect(sanitizeFileName("..")).toBeUndefined()
    expect(sanitizeFileName("   ")).toBeUndefined()
    expect(sanitizeFileName('a<b>c:"d|e?f*.pdf')).toBe("a_b_c__d_e_f_.pdf")
    const long = sanitizeFileName(`${"x".repeat(300)}.pdf`)!
    expect(long.length).toBe(120)
    expect(long.endsWith(".pdf")).toBe(true)
  })

  test("contentDispositionFileName reads quoted, token and extended forms", () => {
    expect(contentDispositionFileName('attachment; filename="a \\"b\\".pdf"')).toBe('a "b".pdf')
    expect(contentDispositionFileName("attachment; filename=plain.pdf")).toBe("plain.pdf")
    expect(contentDispositionFileName("attachment; filename*=UTF-8''%E2%82%AC.txt")).toBe("€.txt")
    expect(contentDispositionFileName("attachment; filename*=iso-8859-1''caf%E9.txt")).toBe("café.txt")
    expect(contentDispositionFileName("inline")).toBeUndefined()
    expect(contentDispositionFileName(undefined)).toBeUndefined()
  })

  test("chooseFileName adds the sniffed extension to a bare name", () => {
    expect(chooseFileName(undefined, ["https://x.example/download"], "pdf")).toBe("download.pdf")
    expect(chooseFileName('attachment; filename="/"', ["https://x.example/"], "png")).toBe("file.png")
  })
})

describe("fetchMedia: blocked URLs never connect", () => {
  test.each([
    { name: "http:", url: "http://media.test/x.png" },
    { name: "file:", url: "file:///etc/passwd" },
    { name: "data:", url: "data:image/png;base64,iVBORw0KGgo=" },
    { name: "ftp:", url: "ftp://media.test/x.png" },
    { name: "a plain path", url: "/etc/passwd" },
    { name: "a relative name", url: "x.png" },
    { name: "user:pass@", url: "https://user:pass@media.test/x.png" },
    { name: "a user only", url: "https://user@media.test/x.png" },
    { name: "another port", url: "https://media.test:8443/x.png" },
    { name: "IPv4 loopback", url: "https://127.0.0.1/x.png" },
    { name: "IPv6 loopback", url: "https://[::1]/x.png" },
    { name: "IPv4-mapped IPv6 loopback", url: "https://[::ffff:127.0.0.1]/x.png" },
    { name: "decimal IPv4", url: "https://2130706433/x.png" },
    { name: "hex IPv4", url: "https://0x7f000001/x.png" },
    { name: "short hex IPv4", url: "https://0x7f.1/x.png" },
    { name: "octal IPv4", url: "https://0177.0.0.1/x.png" },
    { name: "short IPv4", url: "https://127.1/x.png" },
    { name: "unspecified", url: "https://0.0.0.0/x.png" },
    { name: "private 10/8", url: "https://10.0.0.1/x.png" },
    { name: "private 192.168/16", url: "https://192.168.1.1/x.png" },
    { name: "cloud metadata", url: "https://169.254.169.254/latest/meta-data/" },
    { name: "CGNAT", url: "https://100.64.0.1/x.png" },
    { name: "multicast", url: "https://224.0.0.1/x.png" },
    { name: "IPv6 link-local", url: "https://[fe80::1]/x.png" },
    { name: "IPv6 unique local", url: "https://[fd00::1]/x.png" },
    { name: "localhost", url: "https://localhost/x.png" },
    { name: "*.localhost", url: "https://media.localhost/x.png" },
    { name: "*.local", url: "https://printer.local/x.png" },
    { name: "*.internal", url: "https://db.internal/x.png" },
    { name: "a single-label name", url: "https://intranet/x.png" },
    { name: "an overlong URL", url: `https://media.test/${"a".repeat(2100)}` },
  ])("$name → media_url_blocked", async ({ url }) => {
    // Nothing is allowed beyond public unicast here: 127.0.0.1 must be refused like any private address.
    const h = harness({ allowCidrs: [] })
    const { result, connections } = await fetchCounting(url, h.options)
    expectError(result, "media_url_blocked")
    expect(connections).toBe(0)
    expect(h.resolverCalls).toEqual([])
    expect(h.clock.pendingTimers).toBe(0)
  })

  test("a name resolving to loopback is blocked unless allowed", async () => {
    const url = route("loop.png", serve(SAMPLES.png))
    const h = harness({ allowCidrs: [] })
    const { result, connections } = await fetchCounting(url, h.options)
    expectError(result, "media_url_blocked", /media\.test resolves to a non-public address/)
    expect(connections).toBe(0)
    // The message names the host, never the internal address it resolved to.
    expect((result as { message: string }).message).not.toContain("127.0.0.1")
  })

  test.each([
    { name: "an IPv4-compatible IPv6 address (::127.0.0.1)", address: "::127.0.0.1" },
    { name: "an IPv4-compatible IPv6 address as URLs write it (::7f00:1)", address: "::7f00:1" },
    { name: "an IPv6 address outside global unicast 2000::/3", address: "4000::1" },
  ])("a name resolving to $name is blocked before any connection", async ({ address }) => {
    const h = harness({ allowCidrs: [] }, { "media.test": [address] })
    const { result, connections } = await fetchCounting(route("v6.png", serve(SAMPLES.png)), h.options)
    expectError(result, "media_url_blocked", /media\.test resolves to a non-public address/)
    expect(connections).toBe(0)
  })

  test("a resolver answer mixing public and private addresses is blocked", async () => {
    const h = harness({}, { "media.test": ["93.184.216.34", "10.0.0.5"] })
    const { result, connections } = await fetchCounting(route("mixed.png", serve(SAMPLES.png)), h.options)
    expectError(result, "media_url_blocked")
    expect(connections).toBe(0)
  })

  test("an allowed address next to one outside the allowed range is blocked", async () => {
    const h = harness({}, { "media.test": ["127.0.0.1", "127.0.0.2"] })
    const { result, connections } = await fetchCounting(route("mixed2.png", serve(SAMPLES.png)), h.options)
    expectError(result, "media_url_blocked")
    expect(connections).toBe(0)
  })

  test.each([
    { name: "IPv4-mapped loopback", address: "::ffff:127.0.0.1" },
    { name: "link-local metadata", address: "169.254.169.254" },
    { name: "IPv6 loopback", address: "::1" },
    { name: "NAT64 of loopback", address: "64:ff9b::7f00:1" },
    { name: "not an address at all", address: "media.test" },
  ])("a name resolving to $name is blocked", async ({ address }) => {
    const h = harness({ allowCidrs: [] }, { "media.test": [address] })
    const { result, connections } = await fetchCounting(route("r.png", serve(SAMPLES.png)), h.options)
    expectError(result, "media_url_blocked")
    expect(connections).toBe(0)
  })

  test("a name that does not resolve fails without connecting", async () => {
    const h = harness({}, {})
    const { result, connections } = await fetchCounting("https://nowhere.test/x.png", h.options)
    expectError(result, "media_fetch_failed", /could not resolve nowhere\.test/)
    expect(connections).toBe(0)
  })

  test("an empty resolver answer fails without connecting", async () => {
    const h = harness({}, { "media.test": [] })
    const { result, connections } = await fetchCounting(route("e.png", serve(SAMPLES.png)), h.options)
    expectError(result, "media_fetch_failed")
    expect(connections).toBe(0)
  })
})

describe("fetchMedia: redirects", () => {
  function chain(length: number): string {
    let url = route("end.png", serve(SAMPLES.png))
    for (let i = 0; i < length; i++) url = route(`hop${i}`, redirect(url))
    return url
  }

  test("a chain of 3 redirects (the default limit) is followed", async () => {
    const h = harness()
    const { result, connections } = await fetchCounting(chain(3), h.options)
    expect(expectOk(result).kind).toBe("image")
    expect(connections).toBe(4)
    expect(h.clock.pendingTimers).toBe(0)
  })

  test("a chain of 4 redirects fails after the 3rd", async () => {
    const h = harness()
    const { result, connections } = await fetchCounting(chain(4), h.options)
    expectError(result, "media_fetch_failed", /more than 3 times/)
    expect(connections).toBe(4)
  })

  test("maxRedirects is configurable", async () => {
    const h = harness({ maxRedirects: 0 })
    expectError(await fetchMedia(chain(1), h.options), "media_fetch_failed", /more than 0 times/)
  })

  test.each([301, 302, 303, 307, 308])("status %d with a relative Location is followed", async (status) => {
    const h = harness()
    const target = route("t.png", serve(SAMPLES.png))
    const url = route("rel", redirect(new URL(target).pathname, status))
    expectOk(await fetchMedia(url, h.options))
  })

  test("a redirect to a private IP literal is blocked after the first connection only", async () => {
    const h = harness()
    const { result, connections } = await fetchCounting(route("to-private", redirect("https://10.0.0.1/x.png")), h.options)
    expectError(result, "media_url_blocked", /redirected to 10\.0\.0\.1/)
    expect(connections).toBe(1)
  })

  test("a redirect to a name resolving to a private address is blocked", async () => {
    const h = harness({}, { "media.test": ["127.0.0.1"], "internal.example.com": ["192.168.1.10"] })
    const { result, connections } = await fetchCounting(route("to-internal", redirect("https://internal.example.com/x.png")), h.options)
    expectError(result, "media_url_blocked", /internal\.example\.com resolves to a non-public address/)
    expect(connections).toBe(1)
    expect(h.resolverCalls).toEqual(["media.test", "internal.example.com"])
  })

  test("an https → http redirect is blocked", async () => {
    const h = harness()
    const { result, connections } = await fetchCounting(route("downgrade", redirect("http://media.test/x.png")), h.options)
    expectError(result, "media_url_blocked", /must use https/)
    expect(connections).toBe(1)
  })

  test("a redirect to another port is blocked", async () => {
    const h = harness()
    const { result } = await fetchCounting(route("port", redirect("https://media.test:8443/x.png")), h.options)
    expectError(result, "media_url_blocked")
  })

  test("a redirect to a file: URL is blocked", async () => {
    const h = harness()
    const { result, connections } = await fetchCounting(route("file", redirect("file:///etc/passwd")), h.options)
    expectError(result, "media_url_blocked")
    expect(connections).toBe(1)
  })

  test("a redirect to localhost is blocked", async () => {
    const h = harness()
    expectError(await fetchMedia(route("lh", redirect("https://localhost/x.png")), h.options), "media_url_blocked")
  })
})

describe("fetchMedia: HTTP and TLS failures", () => {
  test("404 → media_fetch_failed naming the status", async () => {
    const h = harness()
    expectError(await fetchMedia("https://media.test/missing.png", h.options), "media_fetch_failed", /HTTP 404/)
    expect(h.clock.pendingTimers).toBe(0)
  })

  test("500 → media_fetch_failed naming the status", async () => {
    const h = harness()
    const url = route("boom", (_req, res) => {
      res.writeHead(500)
      res.end("oops")
    })
    expectError(await fetchMedia(url, h.options), "media_fetch_failed", /HTTP 500/)
  })

  test("a 3xx without Location is a failure, not a redirect", async () => {
    const h = harness()
    const url = route("nolocation", (_req, res) => {
      res.writeHead(302, { "content-length": "0" })
      res.end()
    })
    expectError(await fetchMedia(url, h.options), "media_fetch_failed", /HTTP 302/)
  })

  test("a self-signed certificate without `ca` fails verification", async () => {
    const h = harness({ ca: undefined })
    const { result, connections } = await fetchCounting(route("tls.png", serve(SAMPLES.png)), h.options)
    expectError(result, "media_fetch_failed", /TLS certificate of media\.test could not be verified/)
    expect(connections).toBe(1)
    expect(h.clock.pendingTimers).toBe(0)
  })

  test("a certificate for another name fails even though the address is approved", async () => {
    const h = harness({}, { "other.example.com": ["127.0.0.1"] })
    const url = route("othername.png", serve(SAMPLES.png), "other.example.com")
    expectError(await fetchMedia(url, h.options), "media_fetch_failed", /TLS certificate of other\.example\.com/)
  })

  test("a refused connection fails", async () => {
    const closed = net.createServer()
    await new Promise<void>((resolve) => closed.listen(0, "127.0.0.1", () => resolve()))
    const port = (closed.address() as net.AddressInfo).port
    await new Promise<void>((resolve) => closed.close(() => resolve()))
    const h = harness({ dialPort: port })
    expectError(await fetchMedia("https://media.test/x.png", h.options), "media_fetch_failed", /refused the connection/)
  })

  test("a body cut short of its Content-Length fails", async () => {
    const h = harness()
    const url = route("short.png", (req, res) => {
      res.writeHead(200, { "content-length": String(SAMPLES.png.length) })
      res.write(Buffer.from(SAMPLES.png.subarray(0, 1000)), () => req.socket.destroy())
    })
    expectError(await fetchMedia(url, h.options), "media_fetch_failed", /closed before the file was complete/)
  })
})

describe("fetchMedia: types", () => {
  test("an HTML page → media_unsupported_type", async () => {
    const h = harness()
    const url = route("page.png", serve(SAMPLES.html, { "content-type": "image/png" }))
    expectError(await fetchMedia(url, h.options), "media_unsupported_type", /web page/)
  })

  test("an XHTML page → media_unsupported_type", async () => {
    const h = harness()
    expectError(await fetchMedia(route("page.xhtml", serve(SAMPLES.xhtml)), h.options), "media_unsupported_type")
  })

  test("text served as text/html → media_unsupported_type", async () => {
    const h = harness()
    const url = route("page", serve(encoder.encode("Sorry, this file has moved."), { "content-type": "text/html; charset=utf-8" }))
    expectError(await fetchMedia(url, h.options), "media_unsupported_type")
  })

  test("an empty body → media_unsupported_type", async () => {
    const h = harness()
    expectError(await fetchMedia(route("empty.png", serve(new Uint8Array(0))), h.options), "media_unsupported_type", /empty/)
  })

  test("sniffMedia: SVG is a document, never an image", async () => {
    const svg = encoder.encode('<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"></svg>')
    expect(await sniffMedia(svg)).toEqual({ ok: true, type: { kind: "document", mimetype: "image/svg+xml", ext: "svg" } })
  })

  test("sniffMedia: a lowercase html fragment is recognised after a comment", async () => {
    const page = encoder.encode("\uFEFF  <!-- generated -->\n<html lang=en><p>hi")
    expect((await sniffMedia(page)).ok).toBe(false)
  })
})

describe("fetchMedia: size caps", () => {
  const smallCaps = { image: 64 * 1024, video: 64 * 1024, audio: 64 * 1024, document: 256 * 1024 }

  /** Streams `head` then endless filler until the client goes away; resolves `closed` then. */
  function endless(head: Uint8Array, headers: Record<string, string> = {}) {
    let written = 0
    let resolveClosed!: () => void
    const closed = new Promise<void>((resolve) => (resolveClosed = resolve))
    const handler: Handler = (_req, res) => {
      res.writeHead(200, headers)
      res.on("close", () => resolveClosed())
      res.write(Buffer.from(head))
      const chunk = Buffer.from(filler(16 * 1024, 7))
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) {
          written += chunk.length
          if (written > 64 * 1024 * 1024) return void res.end()
        }
        if (!res.destroyed) res.once("drain", pump)
      }
      pump()
    }
    return { handler, closed, written: () => written }
  }

  test("a declared Content-Length over the largest cap fails before any body is read", async () => {
    const h = harness()
    let closed = false
    const url = route("huge.mp4", (_req, res) => {
      res.on("close", () => (closed = true))
      res.writeHead(200, { "content-length": String(200 * 1024 * 1024) })
      res.flushHeaders()
      // No body is ever sent: the answer must come from the header alone.
    })
    expectError(await fetchMedia(url, h.options), "media_too_large", /200 MiB, more than the 100 MiB limit/)
    await server.barrier()
    await flush()
    expect(closed).toBe(true)
    expect(h.clock.pendingTimers).toBe(0)
  })

  test("a declared Content-Length over the sniffed kind's cap fails once the kind is known", async () => {
    const h = harness({ maxBytes: smallCaps })
    const url = route("big.png", (_req, res) => {
      res.writeHead(200, { "content-length": String(200 * 1024) })
      // Only the first 16 KiB arrive; the image cap (64 KiB) is below the declared 200 KiB.
      res.write(Buffer.from(bytes(PNG_1X1, filler(16 * 1024))))
    })
    expectError(await fetchMedia(url, h.options), "media_too_large", /image is larger than the 64 KiB limit for images/)
  })

  test("an endless image body is aborted at the image cap", async () => {
    const h = harness({ maxBytes: smallCaps })
    const body = endless(PNG_1X1)
    const result = await fetchMedia(route("endless.png", body.handler), h.options)
    expectError(result, "media_too_large", /64 KiB limit for images/)
    await body.closed
    expect(body.written()).toBeLessThan(64 * 1024 * 1024)
    expect(h.clock.pendingTimers).toBe(0)
  })

  test("an endless unrecognised body is aborted at the document cap", async () => {
    const h = harness({ maxBytes: smallCaps })
    const body = endless(new Uint8Array([0, 1, 2, 3]))
    expectError(await fetchMedia(route("endless.bin", body.handler), h.options), "media_too_large", /256 KiB limit for documents/)
    await body.closed
  })

  test("an endless gzip body is capped on the decoded bytes", async () => {
    const h = harness({ maxBytes: smallCaps })
    // 4 MiB of zeros after a PNG header compresses to a few KiB: the cap must count what it decodes to.
    const bomb = gzipSync(bytes(PNG_1X1, new Uint8Array(4 * 1024 * 1024)))
    expect(bomb.length).toBeLessThan(64 * 1024)
    expectError(await fetchMedia(route("bomb.png", serve(bomb, { "content-encoding": "gzip" })), h.options), "media_too_large")
  })

  test("a file exactly at the cap passes", async () => {
    const exact = bytes(PNG_1X1, filler(64 * 1024 - PNG_1X1.length))
    const h = harness({ maxBytes: smallCaps })
    expect(expectOk(await fetchMedia(route("exact.png", serve(exact)), h.options)).sizeBytes).toBe(64 * 1024)
    const over = harness({ maxBytes: { ...smallCaps, image: 64 * 1024 - 1 } })
    expectError(await fetchMedia(route("over.png", serve(exact)), over.options), "media_too_large")
  })
})

describe("fetchMedia: deadlines (TestClock, no sleeping)", () => {
  test("a server that never completes the TLS handshake fails at the connect timeout", async () => {
    const h = harness({ dialPort: silent.port })
    const connected = silent.nextConnection()
    const fetching = track(fetchMedia("https://media.test/x.png", h.options))
    await connected
    h.clock.advance(4_999)
    await flush()
    expect(fetching.settled()).toBe(false)
    h.clock.advance(1)
    expectError(await fetching.promise, "media_fetch_failed", /could not connect to media\.test within 5 s/)
    expect(h.clock.pendingTimers).toBe(0)
  })

  test("connectTimeoutMs is configurable", async () => {
    const h = harness({ dialPort: silent.port, connectTimeoutMs: 1_500 })
    const connected = silent.nextConnection()
    const fetching = fetchMedia("https://media.test/x.png", h.options)
    await connected
    h.clock.advance(1_500)
    expectError(await fetching, "media_fetch_failed", /within 1\.5 s/)
  })

  test("a server that accepts the request but never answers fails when no response comes in 10 s", async () => {
    const h = harness()
    let requested!: () => void
    const gotRequest = new Promise<void>((resolve) => (requested = resolve))
    const url = route("hang.png", () => requested())
    const fetching = track(fetchMedia(url, h.options))
    await gotRequest
    h.clock.advance(9_999)
    await flush()
    expect(fetching.settled()).toBe(false)
    h.clock.advance(1)
    expectError(await fetching.promise, "media_fetch_failed", /did not respond within 10 s/)
    expect(h.clock.pendingTimers).toBe(0)
  })

  test("the total deadline ends a hanging download", async () => {
    const h = harness({ totalTimeoutMs: 8_000 })
    let requested!: () => void
    const gotRequest = new Promise<void>((resolve) => (requested = resolve))
    const url = route("hang2.png", () => requested())
    const fetching = track(fetchMedia(url, h.options))
    await gotRequest
    h.clock.advance(7_999)
    await flush()
    expect(fetching.settled()).toBe(false)
    h.clock.advance(1)
    expectError(await fetching.promise, "media_fetch_failed", /did not finish within 8 s/)
    expect(h.clock.pendingTimers).toBe(0)
  })

  test("the total deadline counts from the start, across redirects", async () => {
    const h = harness({ totalTimeoutMs: 8_000 })
    let requested!: () => void
    const gotRequest = new Promise<void>((resolve) => (requested = resolve))
    const target = route("slow-target.png", () => requested())
    const fetching = fetchMedia(route("slow-first", redirect(target)), h.options)
    await gotRequest
    h.clock.advance(8_000)
    expectError(await fetching, "media_fetch_failed", /did not finish within 8 s/)
  })

  test("a dripping body (under 8 KiB/s over 10 s) is aborted", async () => {
    const h = harness()
    let drips = 0
    let dripped!: () => void
    const enoughDrips = new Promise<void>((resolve) => (dripped = resolve))
    let serverClosed!: () => void
    const closed = new Promise<void>((resolve) => (serverClosed = resolve))
    const url = route("drip.png", (_req, res) => {
      res.writeHead(200, { "content-length": String(SAMPLES.png.length) })
      res.write(Buffer.from(SAMPLES.png.subarray(0, 100)))
      // One byte at a time in real time: the client has long since seen the headers when the clock moves.
      const timer = setInterval(() => {
        if (res.destroyed) return
        res.write(Buffer.from(SAMPLES.png.subarray(100 + drips, 101 + drips)))
        if (++drips === 10) dripped()
      }, 10)
      res.on("close", () => {
        clearInterval(timer)
        serverClosed()
      })
    })
    const fetching = track(fetchMedia(url, h.options))
    await enoughDrips
    h.clock.advance(9_999)
    await flush()
    expect(fetching.settled()).toBe(false)
    h.clock.advance(1)
    expectError(await fetching.promise, "media_fetch_failed", /too slowly \(under 8 KiB\/s for 10 s\)/)
    await closed
    expect(h.clock.pendingTimers).toBe(0)
  })

  test("a DNS lookup that never answers is ended by the total deadline", async () => {
    const clock = new TestClock()
    let asked!: () => void
    const lookedUp = new Promise<void>((resolve) => (asked = resolve))
    const resolve = () => {
      asked()
      return new Promise<string[]>(() => undefined)
    }
    const fetching = fetchMedia("https://media.test/x.png", { allowCidrs: LOOPBACK, clock, resolve, ca: cert, dialPort: server.port, tempDir: freshTempDir() })
    await lookedUp
    clock.advance(60_000)
    expectError(await fetching, "media_fetch_failed", /did not finish within 60 s/)
    expect(clock.pendingTimers).toBe(0)
  })
})

describe("fetchMedia: the file on disk", () => {
  /** The files a download left in its folder, once its removal (after the file's stream closed) has run. */
  async function leftIn(dir: string): Promise<string[]> {
    for (let i = 0; i < 400 && readdirSync(dir).length > 0; i++) await Bun.sleep(5)
    return readdirSync(dir)
  }

  test("a download streams into one file of mode 0600 in tempDir, named so a clean-up can find it", async () => {
    const h = harness()
    const media = expectOk(await fetchMedia(route("doc.pdf", serve(SAMPLES.pdf)), h.options))
    expect(media.path.startsWith(`${h.options.tempDir}/media-`)).toBe(true)
    expect(statSync(media.path).mode & 0o777).toBe(0o600)
    expect(await leftIn(h.options.tempDir)).toHaveLength(1)
  })

  test("a zip container is recognised from the whole file, not only its first bytes", async () => {
    // The OOXML marker entry sits past the 8 KiB head, where only a read of the file finds it.
    const types = new TextDecoder().decode(storedZipEntry(SAMPLES.docx, "[Content_Types].xml"))
    const docx = storedZip({ "padding.bin": "p".repeat(12_000), "[Content_Types].xml": types, "word/document.xml": "<w:document/>" })
    const h = harness()
    const media = expectOk(await fetchMedia(route("letter", serve(docx)), h.options))
    expect(media.mimetype).toBe("application/vnd.openxmlformats-officedocument.wordprocessingml.document")
  })

  const failures: { name: string; handler: Handler; errorCode: string; caps?: boolean }[] = [
    {
      name: "a body cut short",
      handler: (_req, res) => {
        res.writeHead(200, { "content-length": String(SAMPLES.pdf.length) })
        res.write(Buffer.from(SAMPLES.pdf.subarray(0, 10_000)))
        setTimeout(() => res.destroy(), 20)
      },
      errorCode: "media_fetch_failed",
    },
    { name: "a file over its kind's cap", handler: serve(bytes(PNG_1X1, filler(80 * 1024))), errorCode: "media_too_large", caps: true },
    { name: "a web page", handler: serve(SAMPLES.html), errorCode: "media_unsupported_type" },
    { name: "an empty body", handler: serve(new Uint8Array(0)), errorCode: "media_unsupported_type" },
  ]
  test.each(failures)("$name leaves no file behind", async ({ handler, errorCode, caps }) => {
    const h = harness(caps ? { maxBytes: { image: 64 * 1024, video: 64 * 1024, audio: 64 * 1024, document: 64 * 1024 } } : {})
    expectError(await fetchMedia(route("f", handler), h.options), errorCode)
    expect(await leftIn(h.options.tempDir)).toEqual([])
  })

  test("a download the deadline ends mid-body leaves no file behind", async () => {
    const h = harness()
    const url = route("slow.pdf", (_req, res) => {
      res.writeHead(200, { "content-length": String(SAMPLES.pdf.length) })
      res.write(Buffer.from(SAMPLES.pdf.subarray(0, 12_000)))
    })
    const fetching = fetchMedia(url, h.options)
    // Wait until the body has started arriving, so the file exists when the deadline strikes.
    for (let i = 0; i < 200 && readdirSync(h.options.tempDir).length === 0; i++) await Bun.sleep(5)
    expect(readdirSync(h.options.tempDir)).toHaveLength(1)
    h.clock.advance(60_000)
    expectError(await fetching, "media_fetch_failed")
    expect(await leftIn(h.options.tempDir)).toEqual([])
  })

  test("a tempDir that cannot be written fails the download with a reason, not a throw", async () => {
    const h = harness({ tempDir: join(mediaDir, "missing", "dir") })
    expectError(await fetchMedia(route("a.png", serve(SAMPLES.png)), h.options), "media_fetch_failed", /could not be written/)
  })
})
