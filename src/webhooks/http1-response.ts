/*
 * The parsing half of the webhook HTTP/1.1 client (src/webhooks/http1-client.ts): one answer,
 * as its bytes arrive, framed by Content-Length, chunked encoding or the connection's end.
 */

/** Largest response head (status line and headers) accepted; a longer one is malformed. */
export const MAX_HEAD_BYTES = 64 * 1024

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

const CRLFCRLF = Buffer.from("\r\n\r\n")
const THREE_DIGITS = /^\d{3}$/

/** A complete answer, and whether its connection may carry another request. */
export interface ParsedAnswer {
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
