import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { waMessageIdFor } from "../../src/domain/wa-ids"
import { Envelope } from "../../src/http/models/common"
import { Message } from "../../src/http/models/messages"
import { createHarness, expectSchema, type Harness } from "../helpers/harness"
import { WebhookReceiver } from "../helpers/webhook-receiver"
import { addEndpoint } from "../helpers/webhooks"
import { eventsOf, getMessage, iso, liveTenant, partsOf, recordEvents, send, sendJobCount } from "./live-helpers"

/*
 * API-DECISIONS §7, live sends: accepted `pending`, handed to WhatsApp by the phone's paced
 * sender with a WhatsApp id derived from the msg_ id, then moved by the server ack, the error
 * acks and the receipts; the recipient checks run before anything is sent.
 */

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

const TO = "+14155550199"

describe("live send lifecycle", () => {
  test("201 pending with every Message field → handed over with the derived id and the checked JID → ack sent (+ webhook) → delivered → read", async () => {
    const receiver = new WebhookReceiver()
    try {
      const { account, key, phone } = await liveTenant(h)
      await addEndpoint(h, account.id, receiver.url(), { environment: "live" })
      // The JID WhatsApp returns for the number is the one sent to (it may differ from the digits).
      h.gateway.numbers.set(TO, "4915123456789@s.whatsapp.net")
      const createdAtMs = h.clock.nowMs()

      const res = await send(h, key, { fromPhoneId: phone.phoneNumber, to: TO, content: "Hello live" })
      expect(res.status).toBe(201)
      expectSchema(Envelope(Message), res.body)
      const m = res.body.data
      expect(m).toEqual({
        id: m.id,
        from: phone.phoneNumber,
        to: TO,
        isGroup: false,
        groupId: null,
        content: "Hello live",
        mediaUrls: [],
        environment: "live",
        status: "pending",
        sentAt: null,
        deliveredAt: null,
        readAt: null,
        failedAt: null,
        errorCode: null,
        errorMessage: null,
        createdAt: iso(createdAtMs),
        type: "text",
        replyTo: null,
        // Beyond the seed (docs/api.md § "Act on a message").
        editedAt: null,
        revokedAt: null,
        location: null,
        contact: null,
        mentions: null,
        voiceNote: null,
        poll: null,
      })
      await h.settle()

      const waId = waMessageIdFor(m.id, 0)
      expect(waId).toMatch(/^3EB0[0-9A-F]{18}$/)
      expect(h.gateway.sentBy(phone.id)).toEqual([{ waMessageId: waId, toJid: "4915123456789@s.whatsapp.net", text: "Hello live" }])
      expect((await getMessage(h, key, m.id)).status).toBe("pending")

      const session = h.gateway.current(phone.id)
      session.ack(waId, createdAtMs + 200)
      await h.settle()
      const sent = await getMessage(h, key, m.id)
      expect(sent).toMatchObject({ status: "sent", sentAt: iso(createdAtMs + 200), deliveredAt: null, readAt: null })
      expect(sendJobCount(h)).toBe(0)

      await h.advance(10)
      const [hook] = await receiver.waitFor(1)
      expect(hook!.json).toEqual({
        event: "message.sent",
        timestamp: iso(createdAtMs + 200),
        data: {
          messageId: m.id,
          from: phone.phoneNumber,
          to: TO,
          isGroup: false,
          groupId: null,
          status: "sent",
          sentAt: iso(createdAtMs + 200),
          deliveredAt: null,
          readAt: null,
          failedAt: null,
          errorCode: null,
          errorMessage: null,
        },
      })

      session.receipt(waId, "delivered", createdAtMs + 1_000)
      await h.settle()
      expect(await getMessage(h, key, m.id)).toMatchObject({ status: "delivered", deliveredAt: iso(createdAtMs + 1_000) })
      session.receipt(waId, "read", createdAtMs + 5_000)
      await h.settle()
      expect(await getMessage(h, key, m.id)).toMatchObject({
        status: "read",
        sentAt: iso(createdAtMs + 200),
        deliveredAt: iso(createdAtMs + 1_000),
        readAt: iso(createdAtMs + 5_000),
      })
      await h.advance(10)
      const hooks = await receiver.waitFor(3)
      expect(hooks.map((x) => x.json.event)).toEqual(["message.sent", "message.delivered", "message.read"])
      expect(hooks.map((x) => x.json.data.status)).toEqual(["sent", "delivered", "read"])
    } finally {
      await receiver.stop()
    }
  })

  test("a receipt before the server ack implies sent: message.sent then message.delivered, and the late ack changes nothing", async () => {
    const { account, key, phone } = await liveTenant(h)
    await recordEvents(h, account.id)
    const m = (await send(h, key, { fromPhoneId: phone.id, to: TO, content: "x" })).body.data
    await h.settle()
    const waId = waMessageIdFor(m.id, 0)
    const t = h.clock.nowMs()
    h.gateway.current(phone.id).receipt(waId, "delivered", t + 300)
    await h.settle()
    expect(await getMessage(h, key, m.id)).toMatchObject({ status: "delivered", sentAt: iso(t + 300), deliveredAt: iso(t + 300) })
    h.gateway.current(phone.id).ack(waId, t + 400)
    await h.settle()
    expect(await getMessage(h, key, m.id)).toMatchObject({ status: "delivered", sentAt: iso(t + 300) })
    expect(eventsOf(h).map((e) => e.event)).toEqual(["message.sent", "message.delivered"])
  })

  test("a read receipt without a delivery receipt goes sent → read; a late delivered after read only fills deliveredAt", async () => {
    const { account, key, phone } = await liveTenant(h)
    await recordEvents(h, account.id)
    const m = (await send(h, key, { fromPhoneId: phone.id, to: TO, content: "x" })).body.data
    await h.settle()
    const waId = waMessageIdFor(m.id, 0)
    const t = h.clock.nowMs()
    const session = h.gateway.current(phone.id)
    session.ack(waId, t + 100)
    session.receipt(waId, "read", t + 900)
    await h.settle()
    expect(await getMessage(h, key, m.id)).toMatchObject({ status: "read", deliveredAt: null, readAt: iso(t + 900) })
    session.receipt(waId, "delivered", t + 800)
    await h.settle()
    expect(await getMessage(h, key, m.id)).toMatchObject({ status: "read", sentAt: iso(t + 100), deliveredAt: iso(t + 800), readAt: iso(t + 900) })
    expect(eventsOf(h).map((e) => e.event)).toEqual(["message.sent", "message.read"])
  })

  test("error ack 463 → failed account_restricted (+ message.failed); later receipts never move it", async () => {
    const { account, key, phone } = await liveTenant(h)
    await recordEvents(h, account.id)
    const m = (await send(h, key, { fromPhoneId: phone.id, to: TO, content: "x" })).body.data
    await h.settle()
    const t = h.clock.nowMs()
    const session = h.gateway.current(phone.id)
    session.reject(waMessageIdFor(m.id, 0), { code: "account_restricted", detail: "463" }, t + 50)
    await h.settle()
    const failed = await getMessage(h, key, m.id)
    expect(failed).toMatchObject({ status: "failed", errorCode: "account_restricted", failedAt: iso(t + 50), sentAt: null })
    expect(failed.errorMessage).toContain("463")
    session.receipt(waMessageIdFor(m.id, 0), "read", t + 60)
    await h.settle()
    expect((await getMessage(h, key, m.id)).status).toBe("failed")
    expect(eventsOf(h, "message.failed").map((e) => e.data)).toEqual([
      expect.objectContaining({ messageId: m.id, status: "failed", errorCode: "account_restricted", failedAt: iso(t + 50) }),
    ])
    expect(sendJobCount(h)).toBe(0)
  })

  test("any other error ack (479) → failed whatsapp_rejected with the code in errorMessage", async () => {
    const { key, phone } = await liveTenant(h)
    const m = (await send(h, key, { fromPhoneId: phone.id, to: TO, content: "x" })).body.data
    await h.settle()
    h.gateway.current(phone.id).reject(waMessageIdFor(m.id, 0), { code: "whatsapp_rejected", detail: "479" }, h.clock.nowMs())
    await h.settle()
    const failed = await getMessage(h, key, m.id)
    expect(failed).toMatchObject({ status: "failed", errorCode: "whatsapp_rejected" })
    expect(failed.errorMessage).toContain("479")
  })

  test("a number not on WhatsApp fails recipient_not_on_whatsapp and nothing is sent", async () => {
    const { account, key, phone } = await liveTenant(h)
    await recordEvents(h, account.id)
    h.gateway.numbers.set(TO, null)
    const m = (await send(h, key, { fromPhoneId: phone.id, to: TO, content: "x" })).body.data
    await h.settle()
    expect(h.gateway.sent).toEqual([])
    expect(await getMessage(h, key, m.id)).toMatchObject({ status: "failed", errorCode: "recipient_not_on_whatsapp", failedAt: iso(h.clock.nowMs()) })
    expect(eventsOf(h).map((e) => e.event)).toEqual(["message.failed"])
    expect(sendJobCount(h)).toBe(0)
  })

  test("the onWhatsApp check is cached for 24 h per phone and number", async () => {
    const { key, phone } = await liveTenant(h, {})
    const session = h.gateway.current(phone.id)
    let checks = 0
    const check = session.checkNumbers.bind(session)
    session.checkNumbers = (n) => (checks++, check(n))
    await send(h, key, { fromPhoneId: phone.id, to: TO, content: "one" })
    await h.settle()
    await h.advance(1_000)
    await send(h, key, { fromPhoneId: phone.id, to: TO, content: "two" })
    await h.settle()
    expect(h.gateway.sent.length).toBe(2)
    expect(checks).toBe(1)
    await h.advance(24 * 3_600_000)
    await send(h, key, { fromPhoneId: phone.id, to: TO, content: "three" })
    await h.settle()
    expect(h.gateway.sent.length).toBe(3)
    expect(checks).toBe(2)
  })
})

describe("live sends to groups", () => {
  const NORMAL = "120363111111111111@g.us"
  const ANNOUNCE_ADMIN = "120363222222222222@g.us"
  const ANNOUNCE = "120363333333333333@g.us"
  const LEFT = "120363444444444444@g.us"

  async function groupTenant() {
    const tenant = await liveTenant(h)
    h.gateway.groups.set(tenant.phone.id, [
      { id: NORMAL, name: "Team", announcementOnly: false, selfIsMember: true, selfIsAdmin: false },
      { id: ANNOUNCE_ADMIN, name: "News", announcementOnly: true, selfIsMember: true, selfIsAdmin: true },
      { id: ANNOUNCE, name: "Their news", announcementOnly: true, selfIsMember: true, selfIsAdmin: false },
      { id: LEFT, name: "Old", announcementOnly: false, selfIsMember: false, selfIsAdmin: false },
    ])
    return tenant
  }

  test.each([
    ["a group the phone is not a member of", LEFT],
    ["an announcement group where the phone is not admin", ANNOUNCE],
    ["a group the phone does not know", "120363999999999999@g.us"],
  ])("%s fails group_not_allowed without sending", async (_name, group) => {
    const { key, phone } = await groupTenant()
    const m = (await send(h, key, { fromPhoneId: phone.id, to: group, content: "x" })).body.data
    expect(m).toMatchObject({ status: "pending", isGroup: true, groupId: group })
    await h.settle()
    expect(h.gateway.sent).toEqual([])
    const failed = await getMessage(h, key, m.id)
    expect(failed).toMatchObject({ status: "failed", errorCode: "group_not_allowed" })
    expect(failed.errorMessage).toContain(group)
  })

  test("a normal group and an announcement group where the phone is admin are sent to the group JID and reach sent", async () => {
    const { key, phone } = await groupTenant()
    const a = (await send(h, key, { fromPhoneId: phone.id, to: NORMAL, content: "to team" })).body.data
    const b = (await send(h, key, { fromPhoneId: phone.id, to: ANNOUNCE_ADMIN, content: "to news" })).body.data
    await h.settle()
    await h.advance(1_000)
    await h.settle()
    expect(h.gateway.sentBy(phone.id)).toEqual([
      { waMessageId: waMessageIdFor(a.id, 0), toJid: NORMAL, text: "to team" },
      { waMessageId: waMessageIdFor(b.id, 0), toJid: ANNOUNCE_ADMIN, text: "to news" },
    ])
    const session = h.gateway.current(phone.id)
    session.ack(waMessageIdFor(a.id, 0), h.clock.nowMs())
    session.ack(waMessageIdFor(b.id, 0), h.clock.nowMs())
    await h.settle()
    expect((await getMessage(h, key, a.id)).status).toBe("sent")
    expect((await getMessage(h, key, b.id)).status).toBe("sent")
  })

  test("group receipts: delivered at the first participant's delivery, read at the first read, each event once", async () => {
    const { account, key, phone } = await groupTenant()
    await recordEvents(h, account.id)
    const m = (await send(h, key, { fromPhoneId: phone.id, to: NORMAL, content: "hi all" })).body.data
    await h.settle()
    const waId = waMessageIdFor(m.id, 0)
    const t = h.clock.nowMs()
    const session = h.gateway.current(phone.id)
    session.ack(waId, t + 10)
    session.receipt(waId, "delivered", t + 100)
    session.receipt(waId, "delivered", t + 200)
    await h.settle()
    expect(await getMessage(h, key, m.id)).toMatchObject({ status: "delivered", deliveredAt: iso(t + 100) })
    session.receipt(waId, "read", t + 300)
    session.receipt(waId, "delivered", t + 350)
    session.receipt(waId, "read", t + 400)
    await h.settle()
    expect(await getMessage(h, key, m.id)).toMatchObject({ status: "read", deliveredAt: iso(t + 100), readAt: iso(t + 300) })
    expect(eventsOf(h).map((e) => e.event)).toEqual(["message.sent", "message.delivered", "message.read"])
    expect(eventsOf(h, "message.read")[0]!.data).toMatchObject({ isGroup: true, groupId: NORMAL, to: NORMAL })
  })

  test("without a group list (WhatsApp does not answer) the send goes ahead and WhatsApp decides", async () => {
    const { key, phone } = await liveTenant(h)
    h.gateway.groupFetchError = new Error("timed out")
    const m = (await send(h, key, { fromPhoneId: phone.id, to: NORMAL, content: "x" })).body.data
    await h.settle()
    expect(h.gateway.sentBy(phone.id).map((p) => p.waMessageId)).toEqual([waMessageIdFor(m.id, 0)])
  })
})

describe("acceptance rules of live sends", () => {
  test("a live send stores its part and job in the same transaction as the message", async () => {
    const { key, phone } = await liveTenant(h)
    h.gateway.current(phone.id).connected = false // the socket is gone but nobody told us yet: nothing is handed over
    const m = (await send(h, key, { fromPhoneId: phone.id, to: TO, content: "x" })).body.data
    expect(partsOf(h, m.id)).toEqual([{ partIndex: 0, waMessageId: waMessageIdFor(m.id, 0), mediaUrl: null, status: "pending" }])
    expect(sendJobCount(h)).toBe(1)
  })

  test("an idempotent replay of a live send creates no second message, part or WhatsApp send", async () => {
    const { key, phone } = await liveTenant(h)
    const body = { fromPhoneId: phone.id, to: TO, content: "once", idempotencyKey: "order-42" }
    const first = await send(h, key, body)
    await h.settle()
    const replay = await send(h, key, body)
    expect(replay.status).toBe(201)
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
    expect(replay.body.data.id).toBe(first.body.data.id)
    await h.advance(5_000)
    await h.settle()
    expect(h.gateway.sent.length).toBe(1)
    expect(partsOf(h, first.body.data.id).length).toBe(1)
  })

  test("a phone that is connecting (not yet connected) refuses live sends with 400", async () => {
    const { key, phone } = await liveTenant(h)
    h.gateway.current(phone.id).drop("connection_lost")
    await h.advance(750)
    await h.settle()
    const res = await send(h, key, { fromPhoneId: phone.id, to: TO, content: "x" })
    expect(res.status).toBe(400)
    expect(res.body.message).toEqual([`Phone ${phone.phoneNumber} is not connected (status: connecting)`])
  })

  test("a test key on the same connected phone never reaches WhatsApp", async () => {
    const { account, phone } = await liveTenant(h)
    const testKey = await h.seedKey(account.id, { env: "test" })
    const res = await send(h, testKey, { fromPhoneId: phone.id, to: TO, content: "x" })
    expect(res.body.data).toMatchObject({ environment: "test", status: "sent" })
    await h.settle()
    await h.advance(5_000)
    expect(h.gateway.sent).toEqual([])
    expect(sendJobCount(h)).toBe(0)
  })
})
