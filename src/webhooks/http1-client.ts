import type { Socket, TCPSocketConnectOptions } from "bun"
import type { Clock, TimerHandle } from "../lib/clock"

/*
 * A minimal HTTP/1.1 client for webhook POSTs, on `Bun.connect` sockets kept alive per origin.
 * Bun's `fetch` costs about 1.6 times its CPU per request, measured in
 * docs/performance.md § "Webhooks, 2026-11-23 (second pass)", and a webhook needs little of what `fetch` does: one POST with a
 * small body, no redirects, no compression, no cookies, a status and the start of the response
 * body. What it must still get right, and the tests check against real servers: HTTPS with the
 * system's trusted certificates, responses framed by Content-Length, chunked encoding or the
 * connection's close, 1xx interim answers, connection reuse (and a kept-alive connection the
 * receiver closed meanwhile), a deadline per request, and malformed answers.
 */

/** Largest response head (status line and headers) accepted; a longer one is malformed. */
export const MAX_HEAD_BYTES = 64 * 1024
/** A connection left idle this long is closed rather than reused (receivers close theirs after about 5 s). */
export const IDLE_CLOSE_MS = 4_000

/** What a receiver answered. */
export interface HttpAnswer {
  status: number
  /** The `Location` header, for reporting a redirect. */
  location: string | null
  /** The first `keepBytes` of the body as UTF-8, or null when the body is empty. */
  body: string | null
}

/** Why a request has no answer. */
export type HttpFailureKind = "refused" | "closed" | "connect" | "malformed" | "timeout" | "aborted"

export class HttpFailure extends Error {
  constructor(
    readonly kind: HttpFailureKind,
    message: string,
  ) {
    super(message)
  }
}

export interface Http1Client {
  /** POSTs `body` with `headers` to `url` (http or https); rejects with an HttpFailure. */
  post(url: string, headers: Record<string, string>, body: string): Promise<HttpAnswer>
  /** Fails every request in flight with `aborted` and closes every connection. */
  close(): void
  /** Connections open now, idle or busy (for tests). */
  readonly openConnections: number
}

export interface Http1ClientOptions {
  clock: Clock
  /** Every request must be answered within this, connecting included. */
  timeoutMs: number
  /** At most this many body bytes are read; past it the connection is closed. */
  readLimitBytes: number
  /** This many body bytes are kept as the answer's `body`. */
  keepBytes: number
  /** Certificate authorities trusted for HTTPS instead of the system's (tests). */
  ca?: string
}

interface Target {
  key: string
  tls: boolean
  hostname: string
  port: number
  /** `POST <path> HTTP/1.1` and the Host line, ready to prepend. */
  requestLine: string
  idle: Connection[]
}

interface Pending {
  target: Target
  request: string
  /** The request's length in bytes. */
  requestBytes: number
  resolve: (answer: HttpAnswer) => void
  reject: (err: HttpFailure) => void
  deadlineMs: number
  /** Whether this request may be sent again on a fresh connection (it went out on a reused one that the receiver had closed). */
  retryable: boolean
  connection: Connection | null
  settled: boolean
}

const TARGET_CACHE_LIMIT = 1_000

export function createHttp1Client(options: Http1ClientOptions): Http1Client {
  const targets = new Map<string, Target>()
  const connections = new Set<Connection>()
  // Requests in flight in deadline order: every request has the same timeout, so the order
  // they started in is the order they expire in, and one timer (for the oldest) serves them all.
  const inFlight = new Set<Pending>()
  let deadlineTimer: TimerHandle | null = null
  let closed = false

  function targetFor(url: string): Target {
    let target = targets.get(url)
    if (target) return target
    const parsed = new URL(url)
    const tls = parsed.protocol === "https:"
    if (!tls && parsed.protocol !== "http:") throw new HttpFailure("connect", `unsupported URL scheme ${parsed.protocol}`)
    const hostname = parsed.hostname.startsWith("[") ? parsed.hostname.slice(1, -1) : parsed.hostname
    const port = parsed.port ? Number(parsed.port) : tls ? 443 : 80
    const key = `${parsed.protocol}//${parsed.host}`
    // Connections are shared per origin; targets (one per URL) point at their origin's pool.
    const sameOrigin = [...targets.values()].find((t) => t.key === key)
    if (targets.size >= TARGET_CACHE_LIMIT) targets.clear()
    target = {
      key,
      tls,
      hostname,
      port,
      requestLine: `POST ${parsed.pathname}${parsed.search} HTTP/1.1\r\nHost: ${parsed.host}\r\n`,
      idle: sameOrigin?.idle ?? [],
    }
    targets.set(url, target)
    return target
  }

  // One timer, armed while connections may be idle, closes those unused for IDLE_CLOSE_MS
  // (a per-socket inactivity timer, set and cleared around every request, cost more).
  let idleSweep: TimerHandle | null = null
  function armIdleSweep(): void {
    if (idleSweep || closed) return
    idleSweep = options.clock.setTimer(IDLE_CLOSE_MS, sweepIdle)
  }

  function sweepIdle(): void {
    idleSweep = null
    const nowMs = options.clock.nowMs()
    let idleLeft = false
    for (const connection of [...connections]) {
      if (connection.isIdle && nowMs - connection.idleSinceMs >= IDLE_CLOSE_MS) connection.destroy()
      else if (connection.isIdle) idleLeft = true
    }
    if (idleLeft) armIdleSweep()
  }

  function armDeadline(): void {
    if (deadlineTimer || inFlight.size === 0) return
    const oldest = inFlight.values().next().value!
    deadlineTimer = options.clock.setTimer(Math.max(0, oldest.deadlineMs - options.clock.nowMs()), expire)
  }

  function expire(): void {
    deadlineTimer = null
    const nowMs = options.clock.nowMs()
    for (const pending of inFlight) {
      if (pending.deadlineMs > nowMs) break
      // Settled before its connection is closed, so the close cannot count as a reason to retry.
      const connection = pending.connection
      settle(pending, new HttpFailure("timeout", `timed out after ${options.timeoutMs} ms`))
      connection?.destroy()
    }
    armDeadline()
  }

  function settle(pending: Pending, outcome: HttpAnswer | HttpFailure): void {
    if (pending.settled) return
    pending.settled = true
    pending.connection = null
    inFlight.delete(pending)
    if (outcome instanceof HttpFailure) pending.reject(outcome)
    else pending.resolve(outcome)
  }

  function dispatch(pending: Pending): void {
    const { target } = pending
    let connection: Connection | undefined
    while ((connection = target.idle.pop())) {
      if (connection.usable(options.clock.nowMs())) break
      connection.destroy()
    }
    if (connection) {
      pending.retryable = true
      connection.send(pending)
      return
    }
    pending.retryable = false
    const fresh = new Connection(target, options, {
      onAnswer: (c, p, answer, reusable) => {
        settle(p, answer)
        if (reusable && !closed) {
          c.idleSinceMs = options.clock.nowMs()
          target.idle.push(c)
          armIdleSweep()
        } else c.destroy()
      },
      onFailure: (c, p, failure, nothingReceived) => {
        c.destroy()
        // A kept-alive connection the receiver closed before our request reached it: try once
        // more on a new connection, as browsers and fetch do.
        if (p.retryable && nothingReceived && failure.kind === "closed" && !p.settled && !closed) {
          dispatch(p)
          return
        }
        settle(p, failure)
      },
      onClosed: (c) => {
        connections.delete(c)
        const i = target.idle.indexOf(c)
        if (i >= 0) target.idle.splice(i, 1)
      },
    })
    connections.add(fresh)
    fresh.open(pending)
  }

  return {
    post(url, headers, body) {
      if (closed) return Promise.reject(new HttpFailure("aborted", "client closed"))
      let target: Target
      try {
        target = targetFor(url)
      } catch (err) {
        return Promise.reject(err instanceof HttpFailure ? err : new HttpFailure("connect", `invalid URL: ${url}`))
      }
      let head = target.requestLine
      for (const name in headers) head += `${name}: ${headers[name]}\r\n`
      const bodyBytes = Buffer.byteLength(body)
      head += `Accept: */*\r\nConnection: keep-alive\r\nContent-Length: ${bodyBytes}\r\n\r\n`
      const request = head + body
      const requestBytes = Buffer.byteLength(head) + bodyBytes
      return new Promise<HttpAnswer>((resolve, reject) => {
        const deadlineMs = options.clock.nowMs() + options.timeoutMs
        const pending: Pending = { target, request, requestBytes, resolve, reject, deadlineMs, retryable: false, connection: null, settled: false }
        inFlight.add(pending)
        armDeadline()
        dispatch(pending)
      })
    },
    close() {
      closed = true
      deadlineTimer?.cancel()
      deadlineTimer = null
      idleSweep?.cancel()
      idleSweep = null
      for (const pending of [...inFlight]) settle(pending, new HttpFailure("aborted", "client closed"))
      for (const connection of [...connections]) connection.destroy()
      targets.clear()
    },
    get openConnections() {
      return connections.size
    },
  }
}

interface ConnectionEvents {
  onAnswer(connection: Connection, pending: Pending, answer: HttpAnswer, reusable: boolean): void
  onFailure(connection: Connection, pending: Pending, failure: HttpFailure, nothingReceived: boolean): void
  onClosed(connection: Connection): void
}

const CRLFCRLF = Buffer.from("\r\n\r\n")
const THREE_DIGITS = /^\d{3}$/

/** One kept-alive socket carrying one request at a time, and the parser of its answers. */
class Connection {
  private socket: Socket<undefined> | null = null
  private pending: Pending | null = null
  private outbox: Buffer | null = null
  private response: ResponseParser | null = null
  private destroyed = false
  idleSinceMs = 0

  constructor(
    private readonly target: Target,
    private readonly options: Http1ClientOptions,
    private readonly events: ConnectionEvents,
  ) {}

  /** Open, with no request on it. */
  get isIdle(): boolean {
    return !this.destroyed && this.pending === null && this.socket !== null
  }

  usable(nowMs: number): boolean {
    return !this.destroyed && this.socket !== null && nowMs - this.idleSinceMs < IDLE_CLOSE_MS
  }

  open(pending: Pending): void {
    this.pending = pending
    pending.connection = this
    const self = this
    const connectOptions: TCPSocketConnectOptions<undefined> = {
      hostname: this.target.hostname,
      port: this.target.port,
      socket: {
        open(socket) {
          if (self.destroyed) {
            socket.end()
            return
          }
          self.socket = socket
          if (self.pending) self.write(self.pending)
        },
        data(_socket, chunk) {
          self.receive(chunk)
        },
        drain() {
          self.flushOutbox()
        },
        close() {
          self.closedByPeer()
        },
        error(_socket, err) {
          self.fail(new HttpFailure("closed", describeSocketError(err)))
        },
        connectError(_socket, err) {
          self.fail(connectFailure(err))
        },
        handshake(_socket, success, authorizationError) {
          if (!success || authorizationError) self.fail(new HttpFailure("connect", `TLS handshake failed: ${authorizationError?.message ?? "refused"}`))
        },
      },
    }
    if (this.target.tls) {
      const servername = /^[\d.]+$|:/.test(this.target.hostname) ? undefined : this.target.hostname
      connectOptions.tls = { serverName: servername, rejectUnauthorized: true, ...(this.options.ca ? { ca: [this.options.ca] } : {}) } as never
    }
    Bun.connect(connectOptions).catch((err: unknown) => this.fail(connectFailure(err)))
  }

  send(pending: Pending): void {
    this.pending = pending
    pending.connection = this
    this.response = null
    this.write(pending)
  }



  destroy(): void {
    if (this.destroyed) return
    this.destroyed = true
    this.socket?.terminate()
    this.events.onClosed(this)
  }

  private write({ request, requestBytes }: Pending): void {
    // The string is written as it is (copying it into a Buffer first cost about a tenth of an
    // attempt); only what the socket did not take is kept, as bytes, for its drain.
    const written = this.socket!.write(request)
    if (written < requestBytes) this.outbox = Buffer.from(request).subarray(Math.max(0, written))
  }

  private flushOutbox(): void {
    if (!this.outbox || !this.socket) return
    const written = this.socket.write(this.outbox)
    this.outbox = written < this.outbox.length ? this.outbox.subarray(Math.max(0, written)) : null
  }

  private receive(chunk: Buffer): void {
    const pending = this.pending
    // Bytes nobody asked for (on an idle connection): the connection cannot be trusted any more.
    if (!pending) {
      this.destroy()
      return
    }
    this.response ??= new ResponseParser(this.options.readLimitBytes, this.options.keepBytes)
    let done: ParsedAnswer | null
    try {
      done = this.response.push(chunk)
    } catch (err) {
      this.fail(err instanceof HttpFailure ? err : new HttpFailure("malformed", String(err)))
      return
    }
    if (done) this.answered(done)
  }

  private answered(done: ParsedAnswer): void {
    const pending = this.pending!
    // An answer before the whole request went out (a receiver refusing a body early) leaves the
    // rest of the request on this connection: it cannot carry another one.
    const requestSent = this.outbox === null
    this.pending = null
    this.response = null
    this.outbox = null
    this.events.onAnswer(this, pending, done.answer, done.reusable && requestSent && !this.destroyed)
  }

  private closedByPeer(): void {
    const pending = this.pending
    if (pending && this.response) {
      // A body framed by the connection's end is complete now; any other is cut short.
      const done = this.response.end()
      if (done) {
        this.answered({ ...done, reusable: false })
        this.destroy()
        return
      }
    }
    this.fail(new HttpFailure("closed", "connection closed by the receiver"))
  }

  private fail(failure: HttpFailure): void {
    const pending = this.pending
    const nothingReceived = this.response === null
    this.pending = null
    this.response = null
    this.destroy()
    if (pending) this.events.onFailure(this, pending, failure, nothingReceived)
  }
}

interface ParsedAnswer {
  answer: HttpAnswer
  reusable: boolean
}

/** Parses one response (after any 1xx interim ones) as its bytes arrive. */
export class ResponseParser {
  private buffer: Buffer | null = null
  private head: { status: number; location: string | null; close: boolean } | null = null
  /** "length": `remaining` bytes to go; "chunked": in a chunked body; "close": until the connection ends. */
  private framing: "length" | "chunked" | "close" = "length"
  private remaining = 0
  private bodyRead = 0
  private kept: Buffer[] = []
  private keptBytes = 0
  private chunkState: "size" | "data" | "data-crlf" | "trailers" = "size"
  private chunkLeft = 0

  constructor(
    private readonly readLimitBytes: number,
    private readonly keepBytes: number,
  ) {}

  /** Feeds bytes; the answer once it is complete, else null. Throws HttpFailure("malformed"). */
  push(chunk: Buffer): ParsedAnswer | null {
    // Positions instead of subarrays: each Buffer view made per answer cost measurably.
    const data = this.buffer ? Buffer.concat([this.buffer, chunk]) : chunk
    this.buffer = null
    let at = 0
    while (!this.head) {
      const end = data.indexOf(CRLFCRLF, at)
      if (end < 0) {
        if (data.length - at > MAX_HEAD_BYTES) throw new HttpFailure("malformed", "malformed response: head too long")
        this.buffer = Buffer.from(data.subarray(at))
        return null
      }
      const head = this.parseHead(data.toString("latin1", at, end))
      at = end + 4
      // 1xx answers are interim (100 Continue, 103 Early Hints): the real one follows.
      if (head !== "interim") this.head = head
    }
    return this.body(data, at)
  }

  /** The connection ended: the answer when its body was framed by that end, else null. */
  end(): ParsedAnswer | null {
    if (this.head && this.framing === "close") return this.finish(false)
    return null
  }

  private parseHead(text: string): { status: number; location: string | null; close: boolean } | "interim" {
    const firstEnd = text.indexOf("\r\n")
    const statusLine = firstEnd < 0 ? text : text.slice(0, firstEnd)
    const minor = statusLine.charCodeAt(7)
    const code = statusLine.slice(9, 12)
    const status = Number(code)
    const shape =
      statusLine.startsWith("HTTP/1.") && (minor === 48 || minor === 49) && statusLine.charCodeAt(8) === 32 &&
      THREE_DIGITS.test(code) && status >= 100 && (statusLine.length === 12 || statusLine.charCodeAt(12) === 32)
    if (!shape) throw new HttpFailure("malformed", `malformed response: status line ${JSON.stringify(statusLine.slice(0, 80))}`)
    if (status < 200) return "interim"
    let length: number | null = null
    let chunked = false
    let location: string | null = null
    let close = minor === 48
    let at = firstEnd < 0 ? text.length : firstEnd + 2
    while (at < text.length) {
      let end = text.indexOf("\r\n", at)
      if (end < 0) end = text.length
      const colon = text.indexOf(":", at)
      if (colon <= at || colon >= end) throw new HttpFailure("malformed", "malformed response: header line without a name")
      const nameLength = colon - at
      const lineStart = at
      at = end + 2
      // Only four headers matter; the others are skipped by their name's length before any copy.
      if (nameLength !== 14 && nameLength !== 17 && nameLength !== 8 && nameLength !== 10) continue
      const name = text.slice(lineStart, colon).toLowerCase()
      const value = text.slice(colon + 1, end).trim()
      if (name === "content-length") {
        if (!/^\d+$/.test(value) || (length !== null && length !== Number(value))) throw new HttpFailure("malformed", "malformed response: bad Content-Length")
        length = Number(value)
      } else if (name === "transfer-encoding") chunked = value.toLowerCase().split(",").at(-1)!.trim() === "chunked"
      else if (name === "location") location = value
      else if (name === "connection") {
        const tokens = value.toLowerCase()
        if (tokens.includes("close")) close = true
        else if (tokens.includes("keep-alive")) close = false
      }
    }
    // RFC 9112 §6.3: no body for 204 and 304; chunked wins over a length; else the length; else until close.
    if (status === 204 || status === 304) {
      this.framing = "length"
      this.remaining = 0
    } else if (chunked) this.framing = "chunked"
    else if (length !== null) {
      this.framing = "length"
      this.remaining = length
    } else {
      this.framing = "close"
      close = true
    }
    return { status, location, close }
  }

  private body(data: Buffer, from: number): ParsedAnswer | null {
    if (this.framing === "length") {
      const take = Math.min(this.remaining, data.length - from)
      this.keep(data, from, from + take)
      this.remaining -= take
      if (this.remaining === 0) return this.finish(data.length === from + take)
      if (this.bodyRead >= this.readLimitBytes) return this.finish(false)
      return null
    }
    if (this.framing === "close") {
      this.keep(data, from, data.length)
      return this.bodyRead >= this.readLimitBytes ? this.finish(false) : null
    }
    return this.chunked(data, from)
  }

  private chunked(data: Buffer, from: number): ParsedAnswer | null {
    let at = from
    while (at < data.length) {
      if (this.chunkState === "data") {
        const take = Math.min(this.chunkLeft, data.length - at)
        this.keep(data, at, at + take)
        at += take
        this.chunkLeft -= take
        if (this.chunkLeft === 0) this.chunkState = "data-crlf"
        if (this.bodyRead >= this.readLimitBytes) return this.finish(false)
        continue
      }
      const eol = data.indexOf("\r\n", at)
      if (eol < 0) {
        if (data.length - at > MAX_HEAD_BYTES) throw new HttpFailure("malformed", "malformed response: chunk line too long")
        this.buffer = Buffer.from(data.subarray(at))
        return null
      }
      const line = data.toString("latin1", at, eol)
      at = eol + 2
      if (this.chunkState === "data-crlf") {
        if (line !== "") throw new HttpFailure("malformed", "malformed response: chunk not followed by CRLF")
        this.chunkState = "size"
      } else if (this.chunkState === "size") {
        const size = /^([0-9a-fA-F]{1,8})(?:[ \t]*;.*)?$/.exec(line)
        if (!size) throw new HttpFailure("malformed", "malformed response: bad chunk size")
        this.chunkLeft = Number.parseInt(size[1]!, 16)
        this.chunkState = this.chunkLeft === 0 ? "trailers" : "data"
      } else if (line === "") {
        // The empty line after the trailers ends the body.
        return this.finish(at === data.length)
      }
    }
    return null
  }

  private keep(data: Buffer, from: number, to: number): void {
    this.bodyRead += to - from
    const n = Math.min(to - from, this.keepBytes - this.keptBytes)
    if (n > 0) {
      const part = Buffer.allocUnsafe(n)
      data.copy(part, 0, from, from + n)
      this.kept.push(part)
      this.keptBytes += n
    }
  }

  /** `clean`: the answer ended exactly at the end of the bytes read, so the connection may carry another request. */
  private finish(clean: boolean): ParsedAnswer {
    const head = this.head!
    const text = this.keptBytes === 0 ? "" : (this.kept.length === 1 ? this.kept[0]! : Buffer.concat(this.kept)).toString("utf8")
    return { answer: { status: head.status, location: head.location, body: text === "" ? null : text }, reusable: clean && !head.close }
  }
}

function connectFailure(err: unknown): HttpFailure {
  const e = err as { code?: string; message?: string }
  if (e?.code === "ECONNREFUSED" || e?.code === "ConnectionRefused") return new HttpFailure("refused", "connection refused")
  return new HttpFailure("connect", `could not connect: ${e?.message ?? e?.code ?? String(err)}`)
}

function describeSocketError(err: unknown): string {
  const e = err as { code?: string; message?: string }
  if (e?.code === "ECONNRESET") return "connection closed by the receiver"
  return `request failed: ${e?.message ?? e?.code ?? String(err)}`
}
