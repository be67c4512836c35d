import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { createConnection, type Socket } from "node:net"
import { STREAMS_PER_KEY } from "../../src/domain/event-streams"
import { createLogger } from "../../src/lib/logger"
import type { StreamClient } from "../helpers/event-stream-client"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { bearer, emit, streamTenants } from "./stream-helpers"

/* GET /v1/events refused, bounded and kept to its own account (docs/webhooks.md § "Streams"). */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const tenant = streamTenants()

describe("GET /v1/events: refused requests", () => {
  test.each([
    ["/v1/events?after=evt_nope", "after"],
    ["/v1/events?after=msg_01jd0m3k7v5q9z8y6x4w2t0r1p", "after"],
  ])("a malformed resume id %s is a 400 naming the parameter", async (path, field) => {
    const t = await tenant()
    const res = await t.sse(path)
    expect(res.status).toBe(400)
    expect(JSON.stringify(res.error)).toContain(field)
  })

  test("a malformed Last-Event-ID header is a 400 naming it", async () => {
    const t = await tenant()
    const res = await t.sse("/v1/events", { ...bearer(t.key), "last-event-id": "12" })
    expect(res.status).toBe(400)
    expect(JSON.stringify(res.error)).toContain("Last-Event-ID")
  })

  test.each(["message.recieved", "nothing.*", "message.received,groups.*"])("a filter naming no event (%s) is a 400 naming it", async (types) => {
    const t = await tenant()
    const res = await t.sse(`/v1/events?types=${types}`)
    expect(res.status).toBe(400)
    const bad = types.split(",").at(-1)!
    expect(JSON.stringify(res.error)).toContain(`types: ${bad} names no event`)
  })

  test(`a key holds at most ${STREAMS_PER_KEY} streams: the next is a 429, and closing one frees its place`, async () => {
    const t = await tenant()
    const open: StreamClient[] = []
    for (let i = 0; i < STREAMS_PER_KEY; i++) open.push(await t.sse())
    for (const s of open) expect(s.status).toBe(200)
    const refused = await t.sse()
    expect(refused.status).toBe(429)
    expect(refused.headers.get("retry-after")).toBe("15")
    await open[0]!.close()
    // The server learns of the close when the socket ends (no clock can hurry that); the place frees then.
    let next = await t.sse()
    for (let i = 0; i < 100 && next.status === 429; i++) {
      await Bun.sleep(20)
      next = await t.sse()
    }
    expect(next.status).toBe(200)
  })
})

/** A raw HTTP client that reads the headers and then stops reading, so the server's socket fills. */
async function stalledStream(base: string, key: string): Promise<{ socket: Socket; read(): Promise<string> }> {
  const url = new URL(base)
  const socket = createConnection({ host: url.hostname, port: Number(url.port) })
  let text = ""
  let stalled = false
  socket.on("data", (chunk) => {
    text += chunk.toString()
    if (!stalled && text.includes(": connected")) {
      stalled = true
      socket.pause()
    }
  })
  socket.write(`GET /v1/events HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${key}\r\nConnection: close\r\n\r\n`)
  for (let i = 0; i < 500 && !text.includes(": connected"); i++) await Bun.sleep(10)
  return {
    socket,
    read: () =>
      new Promise((resolve) => {
        socket.on("end", () => resolve(text))
        socket.on("close", () => resolve(text))
        socket.resume()
      }),
  }
}

describe("GET /v1/events: a consumer that stops reading", () => {
  test("is sent `event: overflow` with its last id once its unsent bytes pass the buffer, and the stream ends", async () => {
    const t = await tenant({ eventStreams: { bufferBytes: 64 * 1024 } })
    const stalled = await stalledStream(t.base, t.key)
    // Far more than the socket buffers of both ends hold, in writes of 200 events of 4 KiB.
    const padding = "x".repeat(4096)
    for (let i = 0; i < 20; i++) await emit(t.h, t.account.id, Array(200).fill("message.received"), { padding })
    const text = await stalled.read()
    const overflow = text.split("\n\n").find((b) => b.includes("event: overflow"))
    expect(overflow).toBeDefined()
    const lastId = JSON.parse(overflow!.split("data: ")[1]!).lastEventId
    const ids = [...text.matchAll(/^id: (evt_\w+)$/gm)].map((m) => m[1])
    expect(ids.length).toBeLessThan(4000)
    expect(ids.at(-1)).toBe(lastId)
    // Nothing follows the overflow: the stream has ended.
    expect(text.slice(text.indexOf("event: overflow")).includes("id: evt_")).toBe(false)
  })
})

describe("GET /v1/events: security", () => {
  test("?access_token= opens the stream, and the token appears in no log line", async () => {
    const lines: string[] = []
    const logger = createLogger({ level: "debug", format: "json", nowIso: () => "t", write: (line) => lines.push(line) })
    const t = await tenant({ logger })
    const stream = await t.sse(`/v1/events?access_token=${t.key}`, {})
    expect(stream.status).toBe(200)
    await emit(t.h, t.account.id, ["message.received"])
    expect((await stream.events(1))[0]!.event).toBe("message.received")
    expect((await t.sse(`/v1/events?access_token=${t.key}&types=nope`, {})).status).toBe(400)
    expect(lines.length).toBeGreaterThan(0)
    expect(lines.filter((l) => l.includes(t.key))).toEqual([])
  })

  test("?access_token= is not a credential on any other route", async () => {
    const t = await tenant()
    const res = await fetch(`${t.base}/v1/account?access_token=${t.key}`)
    expect(res.status).toBe(401)
  })

  test("a key without events:read is refused with 403", async () => {
    const t = await tenant()
    const other = await t.h.seedKey(t.account.id, { scopes: ["messages:read"] })
    expect((await t.sse("/v1/events", bearer(other))).status).toBe(403)
  })

  test("another account's events never reach a stream, and its event ids resume nothing", async () => {
    const t = await tenant()
    const stranger = await t.h.seedTenant()
    const strangerKey = await t.h.seedKey(stranger.account.id, { scopes: ["events:read"] })
    const theirs = await t.sse("/v1/events", bearer(strangerKey))
    await emit(t.h, stranger.account.id, ["message.received"])
    const [foreign] = await theirs.events(1)
    const mine = await t.sse(`/v1/events?after=${foreign!.id}`)
    expect((await mine.next())!.event).toBe("reset")
    await emit(t.h, stranger.account.id, ["message.reaction"])
    await emit(t.h, t.account.id, ["message.edited"])
    expect((await mine.events(1)).map((f) => f.event)).toEqual(["message.edited"])
  })
})
