import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { STREAM_HEARTBEAT_MS } from "../../src/domain/event-streams"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { bearer, emit, streamTenants } from "./stream-helpers"

/* GET /v1/events over a real socket: what a stream client receives (docs/webhooks.md § "Streams"). */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const tenant = streamTenants()

describe("GET /v1/events: success", () => {
  test("with no webhook endpoint, events committed after the stream opened arrive in order as id, event and the webhook envelope", async () => {
    const t = await tenant()
    const stream = await t.sse()
    expect(stream.status).toBe(200)
    expect(stream.headers.get("content-type")).toStartWith("text/event-stream")
    await emit(t.h, t.account.id, ["message.received", "message.reaction"])
    await emit(t.h, t.account.id, ["group.updated"])
    const frames = await stream.events(3)
    expect(frames.map((f) => f.event)).toEqual(["message.received", "message.reaction", "group.updated"])
    for (const f of frames) expect(f.id).toMatch(/^evt_[0-9a-z]{26}$/)
    expect(JSON.parse(frames[0]!.data!)).toEqual({ event: "message.received", timestamp: new Date(t.h.clock.nowMs()).toISOString(), data: { n: 0 } })
    const stored = await t.h.services.ctx.store.findEvent(frames[2]!.id!)
    expect(stored?.body).toBe(frames[2]!.data!)
  })

  test("a send through the API reaches the stream as message.sent", async () => {
    const t = await tenant()
    const stream = await t.sse()
    const sent = await t.h.request("POST", "/v1/messages/send", { key: t.sendKey, body: { fromPhoneId: t.phone.phoneNumber, to: "+14155550199", content: "Hi" } })
    expect(sent.status).toBe(201)
    const [frame] = await stream.events(1)
    expect(frame!.event).toBe("message.sent")
    expect(JSON.parse(frame!.data!).data.messageId).toBe(sent.body.data.id)
  })

  for (const database of ["sqlite", "postgres"] as const) {
    test(`a client that resumes with Last-Event-ID gets every event of its absence once, in order, then live ones (${database})`, async () => {
      const t = await tenant({ database })
      const first = await t.sse()
      await emit(t.h, t.account.id, ["message.received", "message.received"], { phase: "before" })
      const seen = await first.events(2)
      await first.close()
      await emit(t.h, t.account.id, ["message.reaction", "message.edited"], { phase: "away" })
      await emit(t.h, t.account.id, ["message.revoked"], { phase: "away" })
      const resumed = await t.sse("/v1/events", { ...bearer(t.key), "last-event-id": seen[1]!.id! })
      const missed = await resumed.events(3)
      expect(missed.map((f) => f.event)).toEqual(["message.reaction", "message.edited", "message.revoked"])
      await emit(t.h, t.account.id, ["call.received"])
      const [live] = await resumed.events(1)
      expect(live!.event).toBe("call.received")
      const all = [...seen, ...missed, live!].map((f) => f.id)
      expect(new Set(all).size).toBe(6)
    })
  }

  test("?after= resumes like Last-Event-ID, and wins over it", async () => {
    const t = await tenant()
    const first = await t.sse()
    await emit(t.h, t.account.id, ["message.received", "message.reaction", "message.edited"])
    const [a, b] = await first.events(3)
    const resumed = await t.sse(`/v1/events?after=${b!.id}`, { ...bearer(t.key), "last-event-id": a!.id! })
    expect((await resumed.events(1))[0]!.event).toBe("message.edited")
  })

  test("?types= keeps the named events and a group's events by `group.*`, in order", async () => {
    const t = await tenant()
    const stream = await t.sse("/v1/events?types=message.received,group.*")
    await emit(t.h, t.account.id, ["message.sent", "group.joined", "message.received", "call.received", "group.participants"])
    expect((await stream.events(3)).map((f) => f.event)).toEqual(["group.joined", "message.received", "group.participants"])
  })

  test("an id the log does not hold gets `event: reset`, then the stream is live", async () => {
    const t = await tenant()
    const stream = await t.sse("/v1/events?after=evt_01jd0m3k7v5q9z8y6x4w2t0r1p")
    const reset = await stream.next()
    expect(reset).toEqual({ event: "reset", data: JSON.stringify({ after: "evt_01jd0m3k7v5q9z8y6x4w2t0r1p" }) })
    await emit(t.h, t.account.id, ["message.received"])
    expect((await stream.events(1))[0]!.event).toBe("message.received")
  })

  test("a quiet stream gets a comment line every 15 s of the clock", async () => {
    const t = await tenant()
    const stream = await t.sse()
    expect(await stream.next()).toEqual({ comment: "connected" })
    await t.h.advance(STREAM_HEARTBEAT_MS)
    expect(await stream.next()).toEqual({ comment: "keep-alive" })
  })
})
