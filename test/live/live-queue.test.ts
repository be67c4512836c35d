import { afterEach, describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { waMessageIdFor } from "../../src/domain/wa-ids"
import { createHarness, expectErrorEnvelope, type Harness } from "../helpers/harness"
import { TestClock } from "../helpers/test-clock"
import { FakeGateway } from "../fakes/fake-gateway"
import { WebhookReceiver } from "../helpers/webhook-receiver"
import { addEndpoint } from "../helpers/webhooks"
import { eventsOf, getMessage, iso, liveTenant, recordEvents, send, sendJobCount } from "./live-helpers"

/*
 * API-DECISIONS §7: one paced serial sender per phone; jobs survive disconnects and restarts
 * and are re-sent with the same WhatsApp ids; a phone disconnected for longer than
 * WAGATE_SEND_TIMEOUT_MS fails its pending messages with send_timeout; a logout fails them
 * with phone_disconnected.
 */

const TO = "+14155550199"
let h: Harness
afterEach(() => h?.close())

const sentIds = () => h.gateway.sent.map((s) => s.part.waMessageId)

async function tick(ms: number) {
  await h.advance(ms)
  await h.settle()
}

describe("pacing", () => {
  test("three sends: the first goes at once, then one per WAGATE_SEND_INTERVAL_MS, never two within the interval", async () => {
    h = await createHarness({ env: { WAGATE_SEND_INTERVAL_MS: "2000" } })
    const { key, phone } = await liveTenant(h)
    const ids: string[] = []
    for (const content of ["one", "two", "three"]) ids.push((await send(h, key, { fromPhoneId: phone.id, to: TO, content })).body.data.id)
    await h.settle()
    expect(sentIds()).toEqual([waMessageIdFor(ids[0]!, 0)])
    await tick(1_999)
    expect(sentIds().length).toBe(1)
    await tick(1)
    expect(sentIds()).toEqual([waMessageIdFor(ids[0]!, 0), waMessageIdFor(ids[1]!, 0)])
    await tick(1_999)
    expect(sentIds().length).toBe(2)
    await tick(1)
    expect(sentIds()).toEqual(ids.map((id) => waMessageIdFor(id, 0)))
    await tick(10_000)
    expect(sentIds().length).toBe(3)
  })

  test("a send after a quiet period goes at once; each phone has its own pace", async () => {
    h = await createHarness()
    const a = await liveTenant(h)
    const b = await liveTenant(h)
    await send(h, a.key, { fromPhoneId: a.phone.id, to: TO, content: "a1" })
    await send(h, b.key, { fromPhoneId: b.phone.id, to: TO, content: "b1" })
    await h.settle()
    expect(h.gateway.sentBy(a.phone.id).length).toBe(1)
    expect(h.gateway.sentBy(b.phone.id).length).toBe(1)
    await tick(5_000)
    await send(h, a.key, { fromPhoneId: a.phone.id, to: TO, content: "a2" })
    await h.settle()
    expect(h.gateway.sentBy(a.phone.id).length).toBe(2)
  })

  test("a number check that fails while the phone stays connected is retried at the next pace, not left stuck", async () => {
    h = await createHarness()
    const { key, phone } = await liveTenant(h)
    const session = h.gateway.current(phone.id)
    const check = session.checkNumbers.bind(session)
    let failures = 1
    session.checkNumbers = (n) => (failures-- > 0 ? Promise.reject(new Error("usync timed out")) : check(n))
    const m = (await send(h, key, { fromPhoneId: phone.id, to: TO, content: "x" })).body.data
    await h.settle()
    expect(h.gateway.sent).toEqual([])
    await tick(1_000)
    expect(sentIds()).toEqual([waMessageIdFor(m.id, 0)])
  })
})

describe("disconnects and timeouts", () => {
  test("a dropped phone keeps its jobs; after the backoff reconnect they resume and the unacked part is re-sent with the same id", async () => {
    h = await createHarness()
    const { key, phone } = await liveTenant(h)
    const a = (await send(h, key, { fromPhoneId: phone.id, to: TO, content: "a" })).body.data
    const b = (await send(h, key, { fromPhoneId: phone.id, to: TO, content: "b" })).body.data
    await h.settle()
    expect(sentIds()).toEqual([waMessageIdFor(a.id, 0)])

    h.gateway.current(phone.id).drop("connection_lost")
    await h.settle()
    const refused = await send(h, key, { fromPhoneId: phone.id, to: TO, content: "c" })
    expect(expectErrorEnvelope(refused, 400, "Bad Request")).toEqual([`Phone ${phone.phoneNumber} is not connected (status: disconnected)`])
    await tick(1_000)
    expect(sentIds().length).toBe(1)

    // The backoff timer (0.75 × 1 s) has opened a new socket; it logs in with the stored credentials.
    const second = h.gateway.current(phone.id)
    expect(h.gateway.sessions.get(phone.id)!.length).toBe(2)
    expect(second.connects).toEqual([undefined])
    second.open(phone.phoneNumber)
    await h.settle()
    expect(sentIds()).toEqual([waMessageIdFor(a.id, 0), waMessageIdFor(a.id, 0)])
    await tick(1_000)
    expect(sentIds()).toEqual([waMessageIdFor(a.id, 0), waMessageIdFor(a.id, 0), waMessageIdFor(b.id, 0)])

    second.ack(waMessageIdFor(a.id, 0), h.clock.nowMs())
    second.ack(waMessageIdFor(b.id, 0), h.clock.nowMs())
    await h.settle()
    expect((await getMessage(h, key, a.id)).status).toBe("sent")
    expect((await getMessage(h, key, b.id)).status).toBe("sent")
    expect(sendJobCount(h)).toBe(0)
  })

  test("an acked message is not re-sent after a reconnect", async () => {
    h = await createHarness()
    const { key, phone } = await liveTenant(h)
    const a = (await send(h, key, { fromPhoneId: phone.id, to: TO, content: "a" })).body.data
    await h.settle()
    h.gateway.current(phone.id).ack(waMessageIdFor(a.id, 0), h.clock.nowMs())
    await h.settle()
    h.gateway.current(phone.id).drop("connection_lost")
    await tick(750)
    h.gateway.current(phone.id).open(phone.phoneNumber)
    await tick(5_000)
    expect(sentIds()).toEqual([waMessageIdFor(a.id, 0)])
  })

  test("disconnected longer than WAGATE_SEND_TIMEOUT_MS: every pending message fails send_timeout", async () => {
    h = await createHarness({ env: { WAGATE_SEND_TIMEOUT_MS: "60000" } })
    const { account, key, phone } = await liveTenant(h)
    await recordEvents(h, account.id)
    const a = (await send(h, key, { fromPhoneId: phone.id, to: TO, content: "a" })).body.data
    const b = (await send(h, key, { fromPhoneId: phone.id, to: TO, content: "b" })).body.data
    await h.settle()
    const droppedAt = h.clock.nowMs()
    h.gateway.current(phone.id).drop("connection_lost")
    await h.settle()
    // Reconnect attempts keep failing.
    for (let elapsed = 0; elapsed < 55_000; elapsed += 5_000) {
      await tick(5_000)
      const s = h.gateway.current(phone.id)
      if (!s.closed && s.connects.length > 0 && !s.connected) s.drop("connection_lost")
    }
    await h.settle()
    h.clock.advanceTo(droppedAt + 59_999)
    await h.settle()
    expect((await getMessage(h, key, a.id)).status).toBe("pending")
    await tick(1)
    for (const id of [a.id, b.id]) {
      const m = await getMessage(h, key, id)
      expect(m).toMatchObject({ status: "failed", errorCode: "send_timeout", failedAt: iso(droppedAt + 60_000) })
      expect(m.errorMessage).toContain("60000")
    }
    expect(sendJobCount(h)).toBe(0)
    expect(eventsOf(h, "message.failed").map((e) => e.data.messageId).sort()).toEqual([a.id, b.id].sort())
  })

  test("a reconnect within WAGATE_SEND_TIMEOUT_MS cancels the timeout", async () => {
    h = await createHarness({ env: { WAGATE_SEND_TIMEOUT_MS: "60000" } })
    const { key, phone } = await liveTenant(h)
    const a = (await send(h, key, { fromPhoneId: phone.id, to: TO, content: "a" })).body.data
    await h.settle()
    h.gateway.current(phone.id).drop("connection_lost")
    await tick(750)
    h.gateway.current(phone.id).open(phone.phoneNumber)
    await tick(120_000)
    expect((await getMessage(h, key, a.id)).status).toBe("pending")
    h.gateway.current(phone.id).ack(waMessageIdFor(a.id, 0), h.clock.nowMs())
    await h.settle()
    expect((await getMessage(h, key, a.id)).status).toBe("sent")
  })
})

describe("logout fails queued sends", () => {
  test("admin POST /logout: queued messages fail phone_disconnected, status logged_out, credentials wiped, phone.disconnected with willReconnect false", async () => {
    const receiver = new WebhookReceiver()
    try {
      h = await createHarness()
      const { account, key, phone } = await liveTenant(h)
      await addEndpoint(h, account.id, receiver.url(), { environment: "live", events: ["phone.disconnected", "message.failed"] })
      const connectedAt = h.clock.nowMs()
      const a = (await send(h, key, { fromPhoneId: phone.id, to: TO, content: "a" })).body.data
      const b = (await send(h, key, { fromPhoneId: phone.id, to: TO, content: "b" })).body.data
      await h.settle()
      await h.advance(100)
      const session = h.gateway.current(phone.id)

      const res = await h.request("POST", `/admin/v1/phones/${phone.id}/logout`, { key: await h.adminToken() })
      expect(res.status).toBe(200)
      expect(res.body.data).toMatchObject({ id: phone.id, connectionStatus: "logged_out" })
      await h.settle()
      expect(session.loggedOut).toBe(true)
      expect(await h.gateway.hasCredentials(phone.id)).toBe(false)
      for (const id of [a.id, b.id]) expect(await getMessage(h, key, id)).toMatchObject({ status: "failed", errorCode: "phone_disconnected" })
      expect(sendJobCount(h)).toBe(0)

      await h.advance(10)
      const hooks = await receiver.waitFor(3)
      const disconnected = hooks.find((x) => x.json.event === "phone.disconnected")!
      expect(disconnected.json.data).toEqual({
        phoneId: phone.id,
        phoneNumber: phone.phoneNumber,
        connectionStatus: "logged_out",
        lastConnectedAt: iso(connectedAt),
        lastDisconnectedAt: iso(connectedAt + 100),
        reason: "logged_out_by_operator",
        willReconnect: false,
      })
      expect(hooks.filter((x) => x.json.event === "message.failed").map((x) => x.json.data.errorCode)).toEqual(["phone_disconnected", "phone_disconnected"])

      // Nothing reconnects and nothing is sent afterwards.
      await tick(120_000)
      expect(h.gateway.sessions.get(phone.id)!.length).toBe(1)
      expect(sentIds()).toEqual([waMessageIdFor(a.id, 0)])
    } finally {
      await receiver.stop()
    }
  })

  test("a remote logout (logged_out from WhatsApp) fails queued messages, wipes credentials and never reconnects", async () => {
    h = await createHarness()
    const { account, key, phone } = await liveTenant(h)
    await recordEvents(h, account.id)
    const a = (await send(h, key, { fromPhoneId: phone.id, to: TO, content: "a" })).body.data
    await h.settle()
    h.gateway.current(phone.id).drop("logged_out")
    await h.settle()
    expect(await getMessage(h, key, a.id)).toMatchObject({ status: "failed", errorCode: "phone_disconnected" })
    expect(await h.gateway.hasCredentials(phone.id)).toBe(false)
    const status = await h.request("GET", `/v1/phone-numbers/${phone.id}/status`, { key })
    expect(status.body.data.connectionStatus).toBe("logged_out")
    expect(eventsOf(h, "phone.disconnected").map((e) => e.data)).toEqual([
      expect.objectContaining({ connectionStatus: "logged_out", reason: "logged_out", willReconnect: false }),
    ])
    await tick(120_000)
    expect(h.gateway.sessions.get(phone.id)!.length).toBe(1)
  })
})

describe("restart", () => {
  test("a job handed over but never acked before a restart is re-sent with the same id once the phone reconnects at boot", async () => {
    const dir = mkdtempSync(join(tmpdir(), "wagate-live-"))
    const databasePath = join(dir, "wagate.db")
    const gateway = new FakeGateway()
    const clock = new TestClock()
    try {
      h = await createHarness({ databasePath, gateway, clock })
      const { key, phone } = await liveTenant(h)
      const m = (await send(h, key, { fromPhoneId: phone.id, to: TO, content: "survives" })).body.data
      await h.settle()
      expect(sentIds()).toEqual([waMessageIdFor(m.id, 0)])
      await h.close()

      clock.advance(30_000)
      h = await createHarness({ databasePath, gateway, clock })
      // Paired phones start at boot, logging in with their stored credentials.
      const session = gateway.current(phone.id)
      expect(gateway.sessions.get(phone.id)!.length).toBe(2)
      expect(session.connects).toEqual([undefined])
      await h.settle()
      expect((await h.request("GET", `/v1/phone-numbers/${phone.id}/status`, { key })).body.data.connectionStatus).toBe("connecting")
      session.open(phone.phoneNumber)
      await h.settle()
      expect(sentIds()).toEqual([waMessageIdFor(m.id, 0), waMessageIdFor(m.id, 0)])
      expect(gateway.sent[1]!.part).toEqual({ waMessageId: waMessageIdFor(m.id, 0), toJid: "14155550199@s.whatsapp.net", text: "survives" })
      session.ack(waMessageIdFor(m.id, 0), clock.nowMs())
      await h.settle()
      expect(await getMessage(h, key, m.id)).toMatchObject({ status: "sent", sentAt: iso(clock.nowMs()) })
    } finally {
      await h.close()
      h = undefined as never
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test("a phone that stays offline after a restart fails its queued sends after WAGATE_SEND_TIMEOUT_MS", async () => {
    const dir = mkdtempSync(join(tmpdir(), "wagate-live-"))
    const databasePath = join(dir, "wagate.db")
    const gateway = new FakeGateway()
    const clock = new TestClock()
    const env = { WAGATE_SEND_TIMEOUT_MS: "60000" }
    try {
      h = await createHarness({ databasePath, gateway, clock, env })
      const { key, phone } = await liveTenant(h)
      const m = (await send(h, key, { fromPhoneId: phone.id, to: TO, content: "x" })).body.data
      await h.settle()
      await h.close()
      h = await createHarness({ databasePath, gateway, clock, env })
      await h.settle()
      await tick(59_990)
      expect((await getMessage(h, key, m.id)).status).toBe("pending")
      await tick(10)
      expect(await getMessage(h, key, m.id)).toMatchObject({ status: "failed", errorCode: "send_timeout" })
    } finally {
      await h.close()
      h = undefined as never
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
