import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { Envelope } from "../../src/http/models/common"
import { PairingState } from "../../src/http/models/pairing"
import { waMessageIdFor } from "../../src/domain/wa-ids"
import { createHarness, expectErrorEnvelope, expectSchema, type Harness } from "../helpers/harness"
import { eventsOf, getMessage, iso, liveTenant, recordEvents, send, sendJobCount } from "./live-helpers"

/*
 * API-DECISIONS §12: the admin pairing routes. connect (qr by default, or code) → pairing
 * state with the raw QR or the code; GET pairing; an SSE stream of pairing states that ends once
 * connected; disconnect keeps the credentials, logout wipes them, DELETE unlinks first.
 */

let h: Harness
let admin: string
beforeEach(async () => {
  h = await createHarness()
  admin = await h.adminToken()
})
afterEach(() => h.close())

const post = (path: string, body?: unknown) => h.request("POST", `/admin/v1${path}`, { key: admin, body })
const get = (path: string) => h.request("GET", `/admin/v1${path}`, { key: admin })

/** Reads `event: pairing` frames from an SSE body, failing instead of hanging when none comes. */
function sseReader(body: ReadableStream<Uint8Array>) {
  const reader = body.getReader()
  const decoder = new TextDecoder()
  let buffer = ""
  return {
    async next(): Promise<{ event: string; data: any } | "end"> {
      for (;;) {
        const end = buffer.indexOf("\n\n")
        if (end !== -1) {
          const frame = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          if (frame.startsWith(":")) continue
          const event = /^event: (.*)$/m.exec(frame)?.[1] ?? ""
          const data = /^data: (.*)$/m.exec(frame)?.[1]
          return { event, data: data === undefined ? undefined : JSON.parse(data) }
        }
        let timer: ReturnType<typeof setTimeout> | undefined
        const chunk = await Promise.race([
          reader.read(),
          new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error("no SSE frame within 5 s")), 5_000))),
        ]).finally(() => clearTimeout(timer))
        if (chunk.done) return "end"
        buffer += decoder.decode(chunk.value)
      }
    },
    cancel: () => reader.cancel(),
  }
}

describe("connect and pairing state", () => {
  test("connect with no body pairs by QR: pairing state, then the raw QR string in GET pairing", async () => {
    const { phone } = await h.seedTenant({ env: "live" })
    const res = await post(`/phones/${phone.id}/connect`)
    expect(res.status).toBe(200)
    expectSchema(Envelope(PairingState), res.body)
    expect(res.body.data).toEqual({ connectionStatus: "pairing", qr: null, pairingCode: null, lastError: null, waVersion: null, offlineWatchdogAt: null, clientExpiresAt: null, updatedAt: iso(h.clock.nowMs()) })
    expect(h.gateway.current(phone.id).connects).toEqual([{ method: "qr" }])

    h.gateway.current(phone.id).showQr("2@AbC+/=,xyz,123,456,1")
    await h.settle()
    const state = await get(`/phones/${phone.id}/pairing`)
    expect(state.status).toBe(200)
    expectSchema(Envelope(PairingState), state.body)
    expect(state.body.data).toMatchObject({ connectionStatus: "pairing", qr: "2@AbC+/=,xyz,123,456,1", pairingCode: null })

    // A new QR (WhatsApp rotates them) replaces the old one.
    h.gateway.current(phone.id).showQr("2@second")
    await h.settle()
    expect((await get(`/phones/${phone.id}/pairing`)).body.data.qr).toBe("2@second")
  })

  test("connect {method: code} asks WhatsApp for a code for the phone's number and shows it", async () => {
    const { phone } = await h.seedTenant({ env: "live" })
    const res = await post(`/phones/${phone.id}/connect`, { method: "code" })
    expect(res.status).toBe(200)
    expect(h.gateway.current(phone.id).connects).toEqual([{ method: "code", phoneNumber: phone.phoneNumber }])
    h.gateway.current(phone.id).showPairingCode("K7QP2M4X")
    await h.settle()
    expect((await get(`/phones/${phone.id}/pairing`)).body.data).toMatchObject({ connectionStatus: "pairing", qr: null, pairingCode: "K7QP2M4X" })
  })

  test("switching from QR to code replaces the pairing socket; asking again for the same method keeps it", async () => {
    const { phone } = await h.seedTenant({ env: "live" })
    await post(`/phones/${phone.id}/connect`, { method: "qr" })
    await post(`/phones/${phone.id}/connect`, { method: "qr" })
    expect(h.gateway.sessions.get(phone.id)!.length).toBe(1)
    await post(`/phones/${phone.id}/connect`, { method: "code" })
    const sessions = h.gateway.sessions.get(phone.id)!
    expect(sessions.length).toBe(2)
    expect(sessions[0]!.closed).toBe(true)
  })

  test("connect on a connected phone changes nothing and reports connected", async () => {
    const { phone } = await liveTenant(h)
    const res = await post(`/phones/${phone.id}/connect`)
    expect(res.body.data).toMatchObject({ connectionStatus: "connected", qr: null, pairingCode: null })
    expect(h.gateway.sessions.get(phone.id)!.length).toBe(1)
  })

  test("a method other than qr or code is 400 naming the field", async () => {
    const { phone } = await h.seedTenant({ env: "live" })
    expect(expectErrorEnvelope(await post(`/phones/${phone.id}/connect`, { method: "sms" }), 400, "Bad Request")).toEqual(["method must be qr or code"])
    expect(h.gateway.sessions.get(phone.id)).toBeUndefined()
  })
})

describe("GET /phones/{phoneId}/pairing/events", () => {
  test("streams event: pairing frames with each state and ends once the phone is connected", async () => {
    const { phone } = await h.seedTenant({ env: "live" })
    await post(`/phones/${phone.id}/connect`)
    await h.settle()
    const res = await h.app.handle(new Request(`http://localhost/admin/v1/phones/${phone.id}/pairing/events`, { headers: { authorization: `Bearer ${admin}` } }))
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toStartWith("text/event-stream")
    const sse = sseReader(res.body!)

    const first = await sse.next()
    expect(first).toEqual({
      event: "pairing",
      data: { connectionStatus: "pairing", qr: null, pairingCode: null, lastError: null, waVersion: null, offlineWatchdogAt: null, clientExpiresAt: null, updatedAt: iso(h.clock.nowMs()) },
    })

    h.gateway.current(phone.id).showQr("2@streamed")
    expect(await sse.next()).toMatchObject({ event: "pairing", data: { connectionStatus: "pairing", qr: "2@streamed" } })

    await h.advance(3_000)
    h.gateway.current(phone.id).open(phone.phoneNumber)
    expect(await sse.next()).toEqual({
      event: "pairing",
      data: { connectionStatus: "connected", qr: null, pairingCode: null, lastError: null, waVersion: null, offlineWatchdogAt: null, clientExpiresAt: null, updatedAt: iso(h.clock.nowMs()) },
    })
    expect(await sse.next()).toBe("end")
  })

  test("a phone already connected gets one frame and the end of the stream", async () => {
    const { phone } = await liveTenant(h)
    const res = await h.app.handle(new Request(`http://localhost/admin/v1/phones/${phone.id}/pairing/events`, { headers: { authorization: `Bearer ${admin}` } }))
    const sse = sseReader(res.body!)
    expect(await sse.next()).toMatchObject({ event: "pairing", data: { connectionStatus: "connected" } })
    expect(await sse.next()).toBe("end")
  })

  test("an idle stream sends a keepalive comment every 15 s", async () => {
    const { phone } = await h.seedTenant({ env: "live" })
    await post(`/phones/${phone.id}/connect`)
    const res = await h.app.handle(new Request(`http://localhost/admin/v1/phones/${phone.id}/pairing/events`, { headers: { authorization: `Bearer ${admin}` } }))
    const reader = res.body!.getReader()
    const decoder = new TextDecoder()
    expect(decoder.decode((await reader.read()).value)).toStartWith("event: pairing\n")
    h.clock.advance(15_000)
    expect(decoder.decode((await reader.read()).value)).toBe(": keepalive\n\n")
    await reader.cancel()
  })

  test("an unknown phone is a 404 envelope, not an empty stream", async () => {
    const res = await get("/phones/ph_unknown/pairing/events")
    expectErrorEnvelope(res, 404, "Not Found")
  })
})

describe("disconnect, logout and removal", () => {
  test("disconnect closes the socket and keeps the credentials: no reconnect by itself; connect again logs in without a QR", async () => {
    const { account, phone } = await liveTenant(h)
    await recordEvents(h, account.id)
    const first = h.gateway.current(phone.id)
    const res = await post(`/phones/${phone.id}/disconnect`)
    expect(res.status).toBe(200)
    expect(res.body.data).toMatchObject({ id: phone.id, phoneNumber: phone.phoneNumber, connectionStatus: "disconnected" })
    expect(first.closed).toBe(true)
    expect(await h.gateway.hasCredentials(phone.id)).toBe(true)
    await h.settle()
    expect(eventsOf(h, "phone.disconnected").map((e) => e.data)).toEqual([
      expect.objectContaining({ connectionStatus: "disconnected", reason: "disconnected_by_operator", willReconnect: false }),
    ])
    await h.advance(10 * 60_000)
    expect(h.gateway.sessions.get(phone.id)!.length).toBe(1)

    const again = await post(`/phones/${phone.id}/connect`)
    expect(again.body.data).toMatchObject({ connectionStatus: "connecting", qr: null })
    const second = h.gateway.current(phone.id)
    expect(second.paired).toBe(true)
    expect(second.connects).toEqual([undefined])
    second.open(phone.phoneNumber)
    await h.settle()
    expect((await get(`/phones/${phone.id}/pairing`)).body.data.connectionStatus).toBe("connected")
  })

  test("a phone disconnected by the operator keeps its queued sends; connected again, they are re-sent with the same ids", async () => {
    const { key, phone } = await liveTenant(h)
    const m = (await send(h, key, { fromPhoneId: phone.id, to: "+14155550199", content: "x" })).body.data
    await h.settle()
    expect(h.gateway.sent.map((s) => s.part.waMessageId)).toEqual([waMessageIdFor(m.id, 0)])
    await post(`/phones/${phone.id}/disconnect`)
    await h.settle()
    expect(sendJobCount(h)).toBe(1)
    expect((await getMessage(h, key, m.id)).status).toBe("pending")
    await post(`/phones/${phone.id}/connect`)
    h.gateway.current(phone.id).open(phone.phoneNumber)
    await h.settle()
    await h.advance(1_000)
    await h.settle()
    expect(h.gateway.sent.map((s) => s.part.waMessageId)).toEqual([waMessageIdFor(m.id, 0), waMessageIdFor(m.id, 0)])
    h.gateway.current(phone.id).ack(waMessageIdFor(m.id, 0), h.clock.nowMs())
    await h.settle()
    expect((await getMessage(h, key, m.id)).status).toBe("sent")
  })

  test("logout unlinks the device and wipes the credentials: connect afterwards pairs by QR again", async () => {
    const { phone } = await liveTenant(h)
    const session = h.gateway.current(phone.id)
    const res = await post(`/phones/${phone.id}/logout`)
    expect(res.status).toBe(200)
    expect(res.body.data).toMatchObject({ id: phone.id, connectionStatus: "logged_out" })
    expect(session.loggedOut).toBe(true)
    expect(await h.gateway.hasCredentials(phone.id)).toBe(false)
    await post(`/phones/${phone.id}/connect`)
    expect(h.gateway.current(phone.id).paired).toBe(false)
    expect(h.gateway.current(phone.id).connects).toEqual([{ method: "qr" }])
  })

  test("DELETE a paired phone unlinks it first and fails its queued sends; its messages are kept", async () => {
    const { key, phone } = await liveTenant(h)
    const m = (await send(h, key, { fromPhoneId: phone.id, to: "+14155550199", content: "x" })).body.data
    await h.settle()
    const session = h.gateway.current(phone.id)
    const res = await h.request("DELETE", `/admin/v1/phones/${phone.id}`, { key: admin })
    expect(res.status).toBe(200)
    expect(res.body.data.id).toBe(phone.id)
    await h.settle()
    expect(session.loggedOut).toBe(true)
    expect(await h.gateway.hasCredentials(phone.id)).toBe(false)
    expect(await getMessage(h, key, m.id)).toMatchObject({ status: "failed", errorCode: "phone_disconnected" })
    expect(sendJobCount(h)).toBe(0)
    expectErrorEnvelope(await get(`/phones/${phone.id}/pairing`), 404, "Not Found")
    // A late ack from the old socket finds nothing to change.
    session.ack(waMessageIdFor(m.id, 0), h.clock.nowMs())
    await h.settle()
    expect((await getMessage(h, key, m.id)).status).toBe("failed")
  })
})

describe("auth and unknown phones", () => {
  const routes = (phoneId: string): [string, string][] => [
    ["POST", `/admin/v1/phones/${phoneId}/connect`],
    ["GET", `/admin/v1/phones/${phoneId}/pairing`],
    ["GET", `/admin/v1/phones/${phoneId}/pairing/events`],
    ["POST", `/admin/v1/phones/${phoneId}/disconnect`],
    ["POST", `/admin/v1/phones/${phoneId}/logout`],
    ["DELETE", `/admin/v1/phones/${phoneId}`],
  ]

  test("every pairing route is 401 without the admin token, and a live API key is no admin token", async () => {
    const { key, phone } = await h.seedTenant({ env: "live" })
    for (const [method, path] of routes(phone.id)) {
      expectErrorEnvelope(await h.request(method, path), 401, "Unauthorized", path)
      expectErrorEnvelope(await h.request(method, path, { key }), 401, "Unauthorized", path)
    }
    expect(h.gateway.sessions.get(phone.id)).toBeUndefined()
  })

  test("every pairing route is 404 for an unknown phone", async () => {
    for (const [method, path] of routes("ph_01jzzzzzzzzzzzzzzzzzzzzzzz")) {
      expect(expectErrorEnvelope(await h.request(method, path, { key: admin }), 404, "Not Found", path)).toEqual([
        "Phone number ph_01jzzzzzzzzzzzzzzzzzzzzzzz not found",
      ])
    }
  })
})
