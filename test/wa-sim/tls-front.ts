import { createServer, connect, type Server, type Socket } from "node:net"
import type { TlsCertificate } from "./media-cert"
import { ChangeSignal } from "./wait"

/**
 * What the front does with the next connections:
 * - `forward`: terminate TLS, answer the WebSocket upgrade like a production edge and relay
 *   every message to the upstream simulator;
 * - `refuse_upgrade`: complete TLS, then answer the upgrade with an HTTP error (`status`, e.g.
 *   503 from an overloaded or misconfigured edge);
 * - `stall_tls`: accept the TCP connection and never say a word (a black-holing middlebox), so
 *   the client's TLS handshake never completes.
 */
export type FrontBehaviour = { kind: "forward" } | { kind: "refuse_upgrade"; status: number } | { kind: "stall_tls" }

/** One WebSocket upgrade request the front answered, for assertions on what the client asked. */
export interface UpgradeRecord {
  path: string
  /** The request's headers, names in lower case. */
  requestHeaders: Record<string, string>
  /** 101 when the upgrade was accepted, else the HTTP status the front answered. */
  status: number
}

export interface TlsFrontOptions {
  /** The simulator's plain `ws://` URL (`sim.wsUrl`); the front serves the same path over `wss://`. */
  upstreamUrl: string
  /** The front's certificate, issued by a CA the client trusts (see `TestCa.issue`). */
  certificate: TlsCertificate
  /** Receives one line per connection event. Default: silent. */
  log?: (line: string) => void
}

/** The headers a production edge adds to its answers, 101 included (Bun adds `Date` itself). */
const EDGE_HEADERS: Readonly<Record<string, string>> = {
  Server: "wa-sim-edge",
  Via: "1.1 wa-sim-edge",
  "Strict-Transport-Security": "max-age=31536000; includeSubDomains; preload",
  "X-Content-Type-Options": "nosniff",
  "Cache-Control": "private, no-store",
}

/** How long a refused upgrade tells the client to wait before trying again, in seconds. */
const REFUSED_RETRY_AFTER_SECONDS = 10

/** What the edge keeps per accepted WebSocket: its upstream and what arrived before it opened. */
interface Relay {
  upstream: WebSocket
  downstream: Bun.ServerWebSocket<Relay> | null
  early: (string | ArrayBuffer)[]
  /** Set when the upstream closed, possibly before the downstream opened. */
  upstreamClose: { code: number; reason: string } | null
}

/**
 * A TLS front for the simulator on 127.0.0.1, standing where WhatsApp's edge stands in production:
 * clients connect over `wss://` with a certificate from a test CA, and the front answers the
 * WebSocket upgrade with a production edge's extra headers (`Server`, `Date`, `Via`,
 * `Strict-Transport-Security`, …) and negotiates `permessage-deflate` when the client offers it,
 * then relays each message to the simulator over its own plain WebSocket.
 *
 * It has two layers so that each fault happens where it happens in real networks: a TCP listener
 * (the public port), which can hold connections in silence (`stall_tls`) or cut them
 * (`dropConnections`), pipes bytes to an inner TLS and WebSocket server (Bun.serve), which answers
 * or refuses the upgrade. Both listen on ephemeral ports.
 */
export class TlsFront {
  /** Every upgrade request that reached the edge, in order. */
  readonly upgrades: UpgradeRecord[] = []
  /** TCP connections accepted on the public port so far. */
  acceptedConnections = 0
  private behaviour: FrontBehaviour = { kind: "forward" }
  private readonly clients = new Set<Socket>()
  private readonly relays = new Set<Relay>()
  private readonly changed = new ChangeSignal()
  private readonly log: (line: string) => void
  private readonly upstreamUrl: URL
  private edge!: ReturnType<typeof Bun.serve<Relay>>
  private listener!: Server

  private constructor(options: TlsFrontOptions) {
    this.upstreamUrl = new URL(options.upstreamUrl)
    this.log = options.log ?? (() => undefined)
  }

  /** Starts a front relaying to `options.upstreamUrl`; call `stop()` when done. */
  static async start(options: TlsFrontOptions): Promise<TlsFront> {
    const front = new TlsFront(options)
    front.edge = front.startEdge(options.certificate)
    front.listener = await front.listen()
    return front
  }

  /** The URL to give the client: `wss://127.0.0.1:<port>` and the simulator's path. */
  get wsUrl(): string {
    return `wss://127.0.0.1:${this.port}${this.upstreamUrl.pathname}`
  }

  /** The public port. */
  get port(): number {
    const address = this.listener.address()
    if (address === null || typeof address === "string") throw new Error("the TLS front is not listening")
    return address.port
  }

  /** WebSockets currently relayed to the simulator. */
  get openRelays(): number {
    return this.relays.size
  }

  /** Changes what the front does with connections accepted from now on (open ones are untouched). */
  behave(behaviour: FrontBehaviour): void {
    this.behaviour = behaviour
    this.log(`behaviour ${behaviour.kind}`)
  }

  /**
   * Cuts every TCP connection on the public port at once, without a TLS close_notify or a
   * WebSocket close frame, as a network failure or a restarting edge does. Returns how many.
   */
  dropConnections(): number {
    const count = this.clients.size
    for (const client of [...this.clients]) client.destroy()
    this.log(`dropped ${count} connection(s)`)
    return count
  }

  /**
   * Resolves with the first value of `probe` that is not undefined, re-checked whenever a
   * connection is accepted or closed or an upgrade is answered.
   */
  waitFor<T>(probe: () => T | undefined, what: string, timeoutMs = 10_000): Promise<T> {
    return this.changed.waitFor(probe, { timeoutMs, what })
  }

  /** Closes every connection and both listeners. */
  async stop(): Promise<void> {
    this.dropConnections()
    for (const relay of [...this.relays]) relay.upstream.close()
    await new Promise<void>((resolve) => this.listener.close(() => resolve()))
    await this.edge.stop(true)
  }

  // -------------------------------------------------------------------------------------------

  /** The public TCP port: pipes to the edge, or holds the connection in silence. */
  private listen(): Promise<Server> {
    const server = createServer((client) => this.accept(client))
    return new Promise((resolve, reject) => {
      server.once("error", reject)
      server.listen(0, "127.0.0.1", () => resolve(server))
    })
  }

  private accept(client: Socket): void {
    this.acceptedConnections++
    this.clients.add(client)
    const id = this.acceptedConnections
    client.on("error", () => undefined)
    client.on("close", () => {
      this.clients.delete(client)
      this.log(`tcp${id} closed`)
      this.changed.notify()
    })
    if (this.behaviour.kind === "stall_tls") {
      // Read and discard the ClientHello; answer nothing, ever.
      client.on("data", () => undefined)
      this.log(`tcp${id} accepted, stalled`)
    } else {
      const inner = connect(this.edge.port!, "127.0.0.1")
      inner.on("error", () => client.destroy())
      client.on("close", () => inner.destroy())
      inner.on("close", () => client.destroy())
      client.pipe(inner)
      inner.pipe(client)
      this.log(`tcp${id} accepted, piped to the edge`)
    }
    this.changed.notify()
  }

  /** The inner TLS server: answers the upgrade as an edge would and relays messages. */
  private startEdge(certificate: TlsCertificate): ReturnType<typeof Bun.serve<Relay>> {
    return Bun.serve<Relay>({
      hostname: "127.0.0.1",
      port: 0,
      tls: { cert: certificate.certPem, key: certificate.keyPem },
      fetch: (request, server) => this.answerUpgrade(request, server),
      websocket: {
        // Bun negotiates it (and answers Sec-WebSocket-Extensions) only when the client offers it.
        perMessageDeflate: true,
        open: (socket) => {
          const relay = socket.data
          relay.downstream = socket
          for (const message of relay.early.splice(0)) socket.send(message)
          if (relay.upstreamClose) this.closeDownstream(relay)
        },
        message: (socket, message) => {
          if (socket.data.upstream.readyState === WebSocket.OPEN) socket.data.upstream.send(message)
        },
        close: (socket) => {
          this.relays.delete(socket.data)
          socket.data.upstream.close()
          this.changed.notify()
        },
      },
    })
  }

  private async answerUpgrade(request: Request, server: Bun.Server<Relay>): Promise<Response | undefined> {
    const url = new URL(request.url)
    const record: UpgradeRecord = { path: url.pathname, requestHeaders: Object.fromEntries(request.headers), status: 0 }
    this.upgrades.push(record)
    const answer = (status: number, body: string, headers: Record<string, string> = {}): Response => {
      record.status = status
      this.log(`upgrade ${url.pathname} answered ${status}`)
      this.changed.notify()
      return new Response(body, { status, headers: { ...EDGE_HEADERS, "Content-Type": "text/html; charset=utf-8", ...headers } })
    }
    if (this.behaviour.kind === "refuse_upgrade") {
      const status = this.behaviour.status
      return answer(status, `<html><body><h1>${status}</h1>The edge refused the upgrade.</body></html>`, {
        "Retry-After": String(REFUSED_RETRY_AFTER_SECONDS),
      })
    }
    if (url.pathname !== this.upstreamUrl.pathname) return answer(404, "<html><body><h1>404</h1></body></html>")
    if (request.headers.get("upgrade")?.toLowerCase() !== "websocket") return answer(426, "<html><body><h1>426</h1>Upgrade required.</body></html>", { Upgrade: "websocket" })

    let upstream: WebSocket
    try {
      upstream = await this.openUpstream(url.search)
    } catch (error) {
      return answer(502, `<html><body><h1>502</h1>${String(error)}</body></html>`)
    }
    const relay: Relay = { upstream, downstream: null, early: [], upstreamClose: null }
    upstream.onmessage = (event) => {
      const message = event.data as string | ArrayBuffer
      if (relay.downstream) relay.downstream.send(message)
      else relay.early.push(message)
    }
    upstream.onclose = (event) => {
      relay.upstreamClose = { code: event.code, reason: event.reason }
      this.relays.delete(relay)
      this.closeDownstream(relay)
      this.changed.notify()
    }
    if (!server.upgrade(request, { data: relay, headers: EDGE_HEADERS })) {
      upstream.close()
      return answer(400, "<html><body><h1>400</h1>Not a WebSocket upgrade.</body></html>")
    }
    this.relays.add(relay)
    record.status = 101
    this.log(`upgrade ${url.pathname} answered 101`)
    this.changed.notify()
    return undefined
  }

  /** Opens the front's own WebSocket to the simulator; rejects when it does not open. */
  private openUpstream(search: string): Promise<WebSocket> {
    const upstream = new WebSocket(`${this.upstreamUrl.origin}${this.upstreamUrl.pathname}${search}`)
    upstream.binaryType = "arraybuffer"
    return new Promise((resolve, reject) => {
      upstream.onopen = () => resolve(upstream)
      upstream.onerror = () => reject(new Error(`the simulator at ${this.upstreamUrl.href} did not accept the WebSocket`))
    })
  }

  /** Passes the simulator's close on: an abnormal one (1006) as a cut, a normal one as a close frame. */
  private closeDownstream(relay: Relay): void {
    const downstream = relay.downstream
    const close = relay.upstreamClose
    if (!downstream || !close) return
    // 1005 and 1006 are never sent on the wire; the others are passed on as they came.
    if (close.code === 1006) downstream.terminate()
    else if (close.code === 1005) downstream.close()
    else downstream.close(close.code, close.reason)
  }
}

/** Starts a TLS front for the simulator at `options.upstreamUrl`. */
export function startTlsFront(options: TlsFrontOptions): Promise<TlsFront> {
  return TlsFront.start(options)
}
