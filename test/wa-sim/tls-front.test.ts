import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import WebSocket from "ws"
import { TestCa } from "./test-ca"
import { startTlsFront, type TlsFront } from "./tls-front"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * The TLS front on its own, driven by the `ws` client Baileys uses (Bun's built-in `ws`), in
 * front of a plain echo WebSocket server standing in for the simulator. The wagate tests in
 * test/e2e-live/wss-*.test.ts run the real simulator behind it.
 */

let ca: TestCa
let front: TlsFront
/** The stand-in upstream: echoes every message, and counts the sockets that closed. */
let upstream: ReturnType<typeof Bun.serve>
let upstreamClosed = 0

beforeAll(async () => {
  ca = await TestCa.create()
  upstream = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request, server) => (server.upgrade(request, { data: undefined }) ? undefined : new Response("no", { status: 400 })),
    websocket: {
      message: (socket, message) => void socket.send(message),
      close: () => void upstreamClosed++,
    },
  })
  front = await startTlsFront({ upstreamUrl: `ws://127.0.0.1:${upstream.port}/ws/chat`, certificate: await ca.issue() })
}, 30_000)

afterAll(async () => {
  await front?.stop()
  await upstream?.stop(true)
  await ca?.dispose()
}, 20_000)

/** Everything a client saw of one connection attempt. */
interface Attempt {
  socket: WebSocket
  upgradeHeaders?: Record<string, string | string[] | undefined>
  unexpectedStatus?: number
  unexpectedHeaders?: Record<string, string | string[] | undefined>
  error?: Error
  closeCode?: number
  opened: Promise<void>
  closed: Promise<number>
}

/** Connects like Baileys does (same library, an Origin, a handshake timeout), trusting `ca` unless told not to. */
function attempt(options: { trust?: boolean; deflate?: boolean; handshakeTimeoutMs?: number } = {}): Attempt {
  const socket = new WebSocket(front.wsUrl, {
    origin: "https://web.whatsapp.com",
    handshakeTimeout: options.handshakeTimeoutMs ?? 5_000,
    perMessageDeflate: options.deflate ?? true,
    ...(options.trust === false ? {} : { ca: ca.caPem }),
  })
  const result: Partial<Attempt> = { socket }
  result.opened = new Promise((resolve) => socket.on("open", () => resolve()))
  result.closed = new Promise((resolve) =>
    socket.on("close", (code) => {
      result.closeCode = code
      resolve(code)
    }),
  )
  socket.on("upgrade", (response) => (result.upgradeHeaders = response.headers))
  // Baileys listens for this event too, which makes `ws` wait for its handshake timeout.
  socket.on("unexpected-response", (_request, response) => {
    result.unexpectedStatus = response.statusCode
    result.unexpectedHeaders = response.headers
  })
  socket.on("error", (error) => (result.error = error))
  return result as Attempt
}

/** The next message the socket receives. */
function nextMessage(socket: WebSocket): Promise<Buffer> {
  return new Promise((resolve) => socket.once("message", (data) => resolve(data as Buffer)))
}

describe("TLS front", () => {
  test("answers the upgrade like a production edge: 101 with Server, Date, Via, HSTS and permessage-deflate when offered", async () => {
    front.behave({ kind: "forward" })
    const client = attempt()
    await client.opened
    expect(client.upgradeHeaders).toMatchObject({
      server: "wa-sim-edge",
      via: "1.1 wa-sim-edge",
      "strict-transport-security": "max-age=31536000; includeSubDomains; preload",
    })
    expect(new Date(String(client.upgradeHeaders!.date)).getTime()).not.toBeNaN()
    expect(String(client.upgradeHeaders!["sec-websocket-extensions"])).toStartWith("permessage-deflate")
    expect(client.socket.extensions).toStartWith("permessage-deflate")
    expect(front.upgrades.at(-1)).toMatchObject({ path: "/ws/chat", status: 101 })
    expect(front.upgrades.at(-1)!.requestHeaders["sec-websocket-extensions"]).toContain("permessage-deflate")
    client.socket.close()
    await client.closed
  })

  test("relays binary messages both ways, large compressible ones included", async () => {
    const client = attempt()
    await client.opened
    for (const payload of [Buffer.from([0, 1, 2, 250, 251, 252]), Buffer.alloc(200_000, "wagate ")]) {
      const echoed = nextMessage(client.socket)
      client.socket.send(payload)
      expect(Buffer.compare(await echoed, payload)).toBe(0)
    }
    client.socket.close()
    await client.closed
  })

  test("negotiates no extension with a client that offers none", async () => {
    const client = attempt({ deflate: false })
    await client.opened
    expect(client.upgradeHeaders!["sec-websocket-extensions"]).toBeUndefined()
    expect(client.upgradeHeaders!.server).toBe("wa-sim-edge")
    client.socket.close()
    await client.closed
  })

  test("a client that does not trust the test CA fails the TLS handshake", async () => {
    const client = attempt({ trust: false })
    await client.closed
    expect(client.error?.message).toMatch(/certificate/i)
    expect(client.upgradeHeaders).toBeUndefined()
  })

  test("dropConnections cuts the TCP connection: the client closes abnormally (1006) and the upstream socket closes too", async () => {
    const client = attempt()
    await client.opened
    const closedBefore = upstreamClosed
    expect(front.dropConnections()).toBeGreaterThanOrEqual(1)
    expect(await client.closed).toBe(1006)
    await front.waitFor(() => (front.openRelays === 0 ? true : undefined), "the relay to close")
    await front.waitFor(() => (upstreamClosed > closedBefore ? true : undefined), "the upstream socket to close")
  })

  test("refuse_upgrade answers the upgrade with 503 and the edge's headers", async () => {
    front.behave({ kind: "refuse_upgrade", status: 503 })
    try {
      const client = attempt({ handshakeTimeoutMs: 1_000 })
      expect(await client.closed).toBe(1006)
      expect(client.unexpectedStatus).toBe(503)
      expect(client.unexpectedHeaders).toMatchObject({ server: "wa-sim-edge", via: "1.1 wa-sim-edge", "retry-after": "10" })
      expect(front.upgrades.at(-1)).toMatchObject({ path: "/ws/chat", status: 503 })
    } finally {
      front.behave({ kind: "forward" })
    }
  })

  test("stall_tls accepts the TCP connection and never completes TLS: the client's handshake times out", async () => {
    front.behave({ kind: "stall_tls" })
    try {
      const accepted = front.acceptedConnections
      const upgrades = front.upgrades.length
      const client = attempt({ handshakeTimeoutMs: 1_000 })
      expect(await client.closed).toBe(1006)
      expect(client.error?.message).toMatch(/handshake has timed out/i)
      expect(front.acceptedConnections).toBe(accepted + 1)
      expect(front.upgrades).toHaveLength(upgrades)
    } finally {
      front.behave({ kind: "forward" })
    }
  })
})
