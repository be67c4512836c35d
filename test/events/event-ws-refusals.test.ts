import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { STREAMS_PER_KEY } from "../../src/domain/event-streams"
import { createLogger } from "../../src/lib/logger"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { bearer, emit, streamTenants } from "./stream-helpers"

/* GET /v1/events/ws refused before the upgrade, bounded, and its key in the URL (docs/webhooks.md § "WebSocket"). */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const tenant = streamTenants()

describe("GET /v1/events/ws: refused before the upgrade, as JSON errors", () => {
  test("a plain GET (no Upgrade) is 426 Upgrade Required naming websocket in `Upgrade`, with or without a key", async () => {
    const t = await tenant()
    for (const headers of [bearer(t.key), {}]) {
      const res = await fetch(`${t.base}/v1/events/ws`, { headers })
      expect(res.status).toBe(426)
      expect(res.headers.get("upgrade")).toBe("websocket")
      const body = await res.json()
      expect(body.error).toBe("Upgrade Required")
      expect(body.message[0]).toContain("Upgrade: websocket")
    }
  })

  test("another method is 405 with Allow: GET", async () => {
    const t = await tenant()
    const res = await fetch(`${t.base}/v1/events/ws`, { method: "POST", headers: bearer(t.key) })
    expect(res.status).toBe(405)
    expect(res.headers.get("allow")).toBe("GET")
  })

  test.each(["evt_nope", "msg_01jd0m3k7v5q9z8y6x4w2t0r1p"])("a malformed resume id (%s) is a 400 naming `after`", async (after) => {
    const t = await tenant()
    const res = await t.upgrade(`/v1/events/ws?after=${after}`)
    expect(res.status).toBe(400)
    expect(JSON.stringify(res.body.message)).toContain("after")
  })

  test("a filter naming no event is a 400 naming it", async () => {
    const t = await tenant()
    const res = await t.upgrade("/v1/events/ws?types=message.received,groups.*")
    expect(res.status).toBe(400)
    expect(JSON.stringify(res.body.message)).toContain("types: groups.* names no event")
  })

  test("no key is a 401", async () => {
    const t = await tenant()
    expect((await t.upgrade("/v1/events/ws", {})).status).toBe(401)
  })

  test(`a key holds at most ${STREAMS_PER_KEY} streams, Server-Sent Events and WebSocket together: the next is a 429, and closing a socket frees its place`, async () => {
    const t = await tenant()
    for (let i = 0; i < 3; i++) expect((await t.sse()).status).toBe(200)
    const sockets = [await t.socket(), await t.socket()]
    const refused = await t.upgrade("/v1/events/ws")
    expect(refused.status).toBe(429)
    expect(refused.body.message.join(" ")).toContain(`${STREAMS_PER_KEY} event streams open`)
    expect((await t.sse()).status).toBe(429)
    sockets[0]!.close()
    // The server learns of the close when the socket ends (no clock can hurry that); the place frees then.
    let next = await t.upgrade("/v1/events/ws")
    for (let i = 0; i < 100 && next.status === 429; i++) {
      await Bun.sleep(20)
      next = await t.upgrade("/v1/events/ws")
    }
    expect(next.status).toBe(101)
    next.socket.destroy()
  })
})

/** The server's frames in raw socket bytes (server frames are not masked): text payloads and the close code. */
function serverFrames(bytes: Buffer): { texts: string[]; closeCode: number | null } {
  const texts: string[] = []
  let closeCode: number | null = null
  let at = bytes.indexOf("\r\n\r\n") + 4
  while (at + 2 <= bytes.length) {
    const opcode = bytes[at]! & 0x0f
    let len = bytes[at + 1]! & 0x7f
    let head = 2
    if (len === 126) (len = bytes.readUInt16BE(at + 2)), (head = 4)
    else if (len === 127) (len = Number(bytes.readBigUInt64BE(at + 2))), (head = 10)
    if (at + head + len > bytes.length) break
    const payload = bytes.subarray(at + head, at + head + len)
    if (opcode === 1) texts.push(payload.toString())
    if (opcode === 8) closeCode = payload.readUInt16BE(0)
    at += head + len
  }
  return { texts, closeCode }
}

describe("GET /v1/events/ws: a consumer that stops reading", () => {
  test("gets an overflow frame with its last id once its unsent bytes pass the buffer, then close code 1008", async () => {
    const t = await tenant({ eventStreams: { bufferBytes: 64 * 1024 } })
    const stalled = await t.upgrade("/v1/events/ws")
    expect(stalled.status).toBe(101)
    stalled.socket.pause()
    const padding = "x".repeat(4096)
    for (let i = 0; i < 20; i++) await emit(t.h, t.account.id, Array(200).fill("message.received"), { padding })
    const ended = new Promise<void>((resolve) => stalled.socket.on("close", () => resolve()))
    stalled.socket.resume()
    await ended
    const { texts, closeCode } = serverFrames(Buffer.from(stalled.text(), "latin1"))
    const frames = texts.map((x) => JSON.parse(x))
    const last = frames.at(-1)
    expect(last.event).toBe("overflow")
    const events = frames.filter((f) => f.id !== undefined)
    expect(events.length).toBeLessThan(4000)
    expect(last.data.lastEventId).toBe(events.at(-1).id)
    expect(closeCode).toBe(1008)
  })
})

describe("GET /v1/events/ws: security", () => {
  test("?access_token= opens the socket, and the token appears in no log line", async () => {
    const lines: string[] = []
    const logger = createLogger({ level: "debug", format: "json", nowIso: () => "t", write: (line) => lines.push(line) })
    const t = await tenant({ logger })
    const ws = await t.socket(`/v1/events/ws?access_token=${t.key}`, {})
    await emit(t.h, t.account.id, ["message.received"])
    expect((await ws.frames(1))[0]!.event).toBe("message.received")
    expect((await t.upgrade(`/v1/events/ws?access_token=${t.key}&types=nope`, {})).status).toBe(400)
    expect(lines.length).toBeGreaterThan(0)
    expect(lines.filter((l) => l.includes(t.key))).toEqual([])
  })

  test("?access_token= is not a credential on a route beside it", async () => {
    const t = await tenant()
    expect((await fetch(`${t.base}/v1/account?access_token=${t.key}`)).status).toBe(401)
    expect((await fetch(`${t.base}/v1/messages?access_token=${t.key}`)).status).toBe(401)
  })

  test("a key without events:read is refused with 403 before the upgrade", async () => {
    const t = await tenant()
    const other = await t.h.seedKey(t.account.id, { scopes: ["messages:read"] })
    const res = await t.upgrade("/v1/events/ws", bearer(other))
    expect(res.status).toBe(403)
    expect(res.body.message.join(" ")).toContain("events:read")
  })

  test("another account's events never reach a socket", async () => {
    const t = await tenant()
    const stranger = await t.h.seedTenant()
    const ws = await t.socket()
    await emit(t.h, stranger.account.id, ["message.received"])
    await emit(t.h, t.account.id, ["message.edited"])
    expect((await ws.frames(1)).map((f) => f.event)).toEqual(["message.edited"])
  })
})
