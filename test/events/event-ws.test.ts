import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { STREAM_HEARTBEAT_MS } from "../../src/domain/event-streams"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { emit, streamTenants } from "./stream-helpers"

/* GET /v1/events/ws over a real socket: what a WebSocket client receives (docs/webhooks.md § "WebSocket"). */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const tenant = streamTenants()

describe("GET /v1/events/ws: success", () => {
  test("events committed after the socket opened arrive in order as {id, event, timestamp, data}, the webhook envelope with its id", async () => {
    const t = await tenant()
    const ws = await t.socket()
    await emit(t.h, t.account.id, ["message.received", "message.reaction"])
    await emit(t.h, t.account.id, ["group.updated"])
    const frames = await ws.frames(3)
    expect(frames.map((f) => f.event)).toEqual(["message.received", "message.reaction", "group.updated"])
    for (const f of frames) expect(f.id).toMatch(/^evt_[0-9a-z]{26}$/)
    expect(frames[0]).toEqual({ id: frames[0]!.id, event: "message.received", timestamp: new Date(t.h.clock.nowMs()).toISOString(), data: { n: 0 } })
    const stored = await t.h.services.ctx.store.findEvent(frames[2]!.id!)
    const { id, ...envelope } = frames[2]!
    expect(envelope).toEqual(JSON.parse(stored!.body))
  })

  for (const database of ["sqlite", "postgres"] as const) {
    test(`?after= replays every event of the absence once, in order, then live ones (${database})`, async () => {
      const t = await tenant({ database })
      const first = await t.socket()
      await emit(t.h, t.account.id, ["message.received", "message.received"])
      const seen = await first.frames(2)
      first.close()
      await emit(t.h, t.account.id, ["message.reaction", "message.edited"])
      await emit(t.h, t.account.id, ["message.revoked"])
      const resumed = await t.socket(`/v1/events/ws?after=${seen[1]!.id}`)
      const missed = await resumed.frames(3)
      expect(missed.map((f) => f.event)).toEqual(["message.reaction", "message.edited", "message.revoked"])
      await emit(t.h, t.account.id, ["call.received"])
      const [live] = await resumed.frames(1)
      expect(live!.event).toBe("call.received")
      expect(new Set([...seen, ...missed, live!].map((f) => f.id)).size).toBe(6)
    })
  }

  test("?types= keeps the named events and a group's events by `group.*`, in order", async () => {
    const t = await tenant()
    const ws = await t.socket("/v1/events/ws?types=message.received,group.*")
    await emit(t.h, t.account.id, ["message.sent", "group.joined", "message.received", "call.received", "group.participants"])
    expect((await ws.frames(3)).map((f) => f.event)).toEqual(["group.joined", "message.received", "group.participants"])
  })

  test("an id the log does not hold gets a reset frame first, then the socket is live", async () => {
    const t = await tenant()
    const ws = await t.socket("/v1/events/ws?after=evt_01jd0m3k7v5q9z8y6x4w2t0r1p")
    expect((await ws.frames(1))[0]).toEqual({ event: "reset", data: { after: "evt_01jd0m3k7v5q9z8y6x4w2t0r1p" } })
    await emit(t.h, t.account.id, ["message.received"])
    expect((await ws.frames(1))[0]!.event).toBe("message.received")
  })

  test("a quiet socket is pinged every 15 s of the clock", async () => {
    const t = await tenant()
    const ws = await t.socket()
    await t.h.advance(STREAM_HEARTBEAT_MS - 1)
    await Bun.sleep(50)
    expect(ws.pings()).toBe(0)
    await t.h.advance(1)
    for (let i = 0; i < 200 && ws.pings() === 0; i++) await Bun.sleep(10)
    expect(ws.pings()).toBe(1)
  })

  test("a stopping server closes the socket with 1001 (going away)", async () => {
    const t = await tenant()
    const ws = await t.socket()
    t.h.services.eventStreams.closeAll()
    expect(await ws.closed).toBe(1001)
  })
})
