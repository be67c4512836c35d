import type { Socket, TCPSocketConnectOptions } from "bun"
import { HttpFailure, ResponseParser, type HttpAnswer, type ParsedAnswer } from "./http1-response"

/*
 * The socket half of the webhook HTTP/1.1 client (src/webhooks/http1-client.ts): one kept-alive
 * connection, plain or TLS, carrying one request at a time; its answers are parsed by
 * ./http1-response.ts and handed to the client's pool through ConnectionEvents.
 */

/** A connection left idle this long is closed rather than reused (receivers close theirs after about 5 s). */
export const IDLE_CLOSE_MS = 4_000

/** What a connection needs of the client's options. */
export interface ConnectionOptions {
  readLimitBytes: number
  keepBytes: number
  ca?: string
}

/** An origin and path requests go to, with its pool of idle connections. */
export interface Target {
  key: string
  tls: boolean
  hostname: string
  port: number
  /** `POST <path> HTTP/1.1` and the Host line, ready to prepend. */
  requestLine: string
  idle: Connection[]
}

/** A request waiting for its answer. */
export interface Pending {
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

export interface ConnectionEvents {
  onAnswer(connection: Connection, pending: Pending, answer: HttpAnswer, reusable: boolean): void
  onFailure(connection: Connection, pending: Pending, failure: HttpFailure, nothingReceived: boolean): void
  onClosed(connection: Connection): void
}

/** One kept-alive socket carrying one request at a time, and the parser of its answers. */
export class Connection {
  private socket: Socket<undefined> | null = null
  private pending: Pending | null = null
  private outbox: Buffer | null = null
  private response: ResponseParser | null = null
  private destroyed = false
  idleSinceMs = 0

  constructor(
    private readonly target: Target,
    private readonly options: ConnectionOptions,
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
