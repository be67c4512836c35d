import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { Type } from "@sinclair/typebox"
import { Envelope, PageEnvelope } from "../../src/http/models/common"
import { Group } from "../../src/http/models/groups"
import { InboundMessage as InboundModel } from "../../src/http/models/inbound"
import type { GroupInfo, InboundMessage } from "../../src/whatsapp/gateway"
import { createHarness, expectErrorEnvelope, expectSchema, type Harness } from "../helpers/harness"
import { WebhookReceiver } from "../helpers/webhook-receiver"
import { addEndpoint } from "../helpers/webhooks"
import { eventsOf, iso, liveTenant, recordEvents } from "./live-helpers"

/*
 * API-DECISIONS §8 (inbound: recorded once per phone and WhatsApp id, `from` as E.164 or the raw
 * …@lid, message.received once, live keys only) and §9 (GET /v1/groups: postable groups only,
 * cached 5 min, a stale list on a failed refresh, 502 on a cold failure).
 */

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

function inbound(overrides: Partial<InboundMessage> = {}): InboundMessage {
  return {
    waMessageId: "3A0123456789ABCDEF",
    from: "+14155550177",
    isGroup: false,
    groupId: null,
    type: "text",
    content: "Hi there",
    receivedAtMs: h.clock.nowMs() - 2_000,
    ...overrides,
  }
}

const listInbound = async (key: string, query = "") => h.request("GET", `/v1/messages/inbound${query}`, { key })

describe("inbound messages", () => {
  test("a received message is listed for live keys with the sender's E.164, its type and content; readable by id", async () => {
    const { key, phone } = await liveTenant(h)
    const receivedAtMs = h.clock.nowMs() - 2_000
    h.gateway.current(phone.id).receive(inbound({ receivedAtMs }))
    await h.settle()
    const res = await listInbound(key)
    expect(res.status).toBe(200)
    expectSchema(PageEnvelope(InboundModel), res.body)
    expect(res.body.data.pagination).toEqual({ page: 1, limit: 20, total: 1, totalPages: 1 })
    const [m] = res.body.data.data
    expect(m).toEqual({
      id: m.id,
      from: "+14155550177",
      fromUsername: null,
      to: phone.phoneNumber,
      content: "Hi there",
      type: "text",
      isGroup: false,
      groupId: null,
      receivedAt: iso(receivedAtMs),
      createdAt: iso(h.clock.nowMs()),
      media: null,
      replyTo: null,
      location: null,
      contact: null,
    })
    expect(m.id).toMatch(/^inmsg_[0-9a-z]{26}$/)
    const one = await h.request("GET", `/v1/messages/inbound/${m.id}`, { key })
    expect(one.status).toBe(200)
    expect(one.body.data).toEqual(m)
  })

  test("a group message carries isGroup and the group JID; a caption is its content", async () => {
    const { key, phone } = await liveTenant(h)
    h.gateway.current(phone.id).receive(
      inbound({ waMessageId: "GROUPMSG1", isGroup: true, groupId: "120363111111111111@g.us", type: "image", content: "Look at this" }),
    )
    await h.settle()
    expect((await listInbound(key)).body.data.data[0]).toMatchObject({
      from: "+14155550177",
      isGroup: true,
      groupId: "120363111111111111@g.us",
      type: "image",
      content: "Look at this",
    })
  })

  test("a WhatsApp id the phone already recorded is recorded once and message.received fires once, with exactly the spec's fields", async () => {
    const receiver = new WebhookReceiver()
    try {
      const { account, key, phone } = await liveTenant(h)
      await addEndpoint(h, account.id, receiver.url(), { environment: "live", events: ["message.received"] })
      const session = h.gateway.current(phone.id)
      const message = inbound()
      session.receive(message)
      session.receive(message)
      await h.settle()
      // Redelivered after a reconnect, on a new socket.
      session.drop("connection_lost")
      await h.advance(750)
      h.gateway.current(phone.id).open(phone.phoneNumber)
      h.gateway.current(phone.id).receive(message)
      await h.settle()

      const list = (await listInbound(key)).body.data
      expect(list.pagination.total).toBe(1)
      expect(list.data.length).toBe(1)
      await h.advance(10)
      const [hook] = await receiver.waitFor(1)
      expect(hook!.json).toEqual({
        event: "message.received",
        timestamp: list.data[0].createdAt,
        data: {
          messageId: list.data[0].id,
          from: "+14155550177",
          fromUsername: null,
          to: phone.phoneNumber,
          content: "Hi there",
          type: "text",
          isGroup: false,
          groupId: null,
          receivedAt: list.data[0].receivedAt,
        },
      })
      await h.advance(60_000)
      expect(receiver.received.length).toBe(1)
    } finally {
      await receiver.stop()
    }
  })

  test("the same WhatsApp id on two different phones is two inbound messages", async () => {
    const a = await liveTenant(h)
    const b = await liveTenant(h)
    h.gateway.current(a.phone.id).receive(inbound({ waMessageId: "SAMEID" }))
    h.gateway.current(b.phone.id).receive(inbound({ waMessageId: "SAMEID" }))
    await h.settle()
    expect((await listInbound(a.key)).body.data.data.map((m: any) => m.to)).toEqual([a.phone.phoneNumber])
    expect((await listInbound(b.key)).body.data.data.map((m: any) => m.to)).toEqual([b.phone.phoneNumber])
  })

  test("a sender WhatsApp hides behind a LID keeps the raw …@lid in from (message and event)", async () => {
    const { account, key, phone } = await liveTenant(h)
    await recordEvents(h, account.id)
    h.gateway.current(phone.id).receive(inbound({ waMessageId: "LIDMSG", from: "204519374921837@lid" }))
    await h.settle()
    expect((await listInbound(key)).body.data.data[0].from).toBe("204519374921837@lid")
    expect(eventsOf(h, "message.received")[0]!.data.from).toBe("204519374921837@lid")
  })

  test("test keys still see an empty list and 404 by id, even with live inbound messages on the phone", async () => {
    const { account, key, phone } = await liveTenant(h)
    h.gateway.current(phone.id).receive(inbound())
    await h.settle()
    const id = (await listInbound(key)).body.data.data[0].id
    const testKey = await h.seedKey(account.id, { env: "test" })
    expect((await listInbound(testKey)).body.data).toEqual({ data: [], pagination: { page: 1, limit: 20, total: 0, totalPages: 0 } })
    expectErrorEnvelope(await h.request("GET", `/v1/messages/inbound/${id}`, { key: testKey }), 404, "Not Found")
  })

  test("newest first, filtered by phone, paginated", async () => {
    const { account, key, phone } = await liveTenant(h)
    const other = await h.seedPhone(account.id)
    await h.connectPhone(other)
    for (let i = 1; i <= 3; i++) {
      h.gateway.current(phone.id).receive(inbound({ waMessageId: `M${i}`, content: `m${i}` }))
      await h.settle()
    }
    h.gateway.current(other.id).receive(inbound({ waMessageId: "O1", content: "other" }))
    await h.settle()
    expect((await listInbound(key)).body.data.data.map((m: any) => m.content)).toEqual(["other", "m3", "m2", "m1"])
    const page = (await listInbound(key, `?phoneNumberId=${encodeURIComponent(phone.phoneNumber)}&limit=2&page=2`)).body.data
    expect(page.data.map((m: any) => m.content)).toEqual(["m1"])
    expect(page.pagination).toEqual({ page: 2, limit: 2, total: 3, totalPages: 2 })
  })
})

describe("GET /v1/groups with a live key", () => {
  const GROUPS: GroupInfo[] = [
    { id: "120363000000000101@g.us", name: "Team", announcementOnly: false, selfIsMember: true, selfIsAdmin: false },
    { id: "120363000000000102@g.us", name: "Announcements (admin)", announcementOnly: true, selfIsMember: true, selfIsAdmin: true },
    { id: "120363000000000103@g.us", name: "Announcements (reader)", announcementOnly: true, selfIsMember: true, selfIsAdmin: false },
    { id: "120363000000000104@g.us", name: "Left", announcementOnly: false, selfIsMember: false, selfIsAdmin: false },
  ]

  async function groupsTenant() {
    const tenant = await liveTenant(h)
    h.gateway.groups.set(tenant.phone.id, GROUPS)
    const session = h.gateway.current(tenant.phone.id)
    const counter = { fetches: 0 }
    const fetch = session.fetchGroups.bind(session)
    session.fetchGroups = () => (counter.fetches++, fetch())
    return { ...tenant, counter }
  }
  const groups = (key: string, phoneRef: string) => h.request("GET", `/v1/groups?fromPhoneId=${encodeURIComponent(phoneRef)}`, { key })

  test("lists only the groups the phone can post to; isCommunityAnnounce = announcement-only", async () => {
    const { key, phone } = await groupsTenant()
    const res = await groups(key, phone.phoneNumber)
    expect(res.status).toBe(200)
    expectSchema(Envelope(Type.Array(Group)), res.body)
    expect(res.body.data).toEqual([
      { id: "120363000000000101@g.us", name: "Team", isCommunityAnnounce: false },
      { id: "120363000000000102@g.us", name: "Announcements (admin)", isCommunityAnnounce: true },
    ])
  })

  test("the list is cached for 5 minutes: a second call within the TTL does not ask WhatsApp, one after it does", async () => {
    const { key, phone, counter } = await groupsTenant()
    await groups(key, phone.id)
    await h.advance(4 * 60_000 + 59_999)
    await groups(key, phone.id)
    expect(counter.fetches).toBe(1)
    h.gateway.groups.set(phone.id, [GROUPS[0]!])
    await h.advance(1)
    const fresh = await groups(key, phone.id)
    expect(counter.fetches).toBe(2)
    expect(fresh.body.data.map((g: any) => g.name)).toEqual(["Team"])
  })

  test("the send pre-check and the list share the cache", async () => {
    const { key, phone, counter } = await groupsTenant()
    await groups(key, phone.id)
    await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.id, to: "120363000000000101@g.us", content: "x" } })
    await h.settle()
    expect(h.gateway.sent.length).toBe(1)
    expect(counter.fetches).toBe(1)
  })

  test("a failed refresh serves the stale list", async () => {
    const { key, phone, counter } = await groupsTenant()
    const first = await groups(key, phone.id)
    await h.advance(6 * 60_000)
    h.gateway.groupFetchError = new Error("WhatsApp did not answer")
    const stale = await groups(key, phone.id)
    expect(counter.fetches).toBe(2)
    expect(stale.status).toBe(200)
    expect(stale.body.data).toEqual(first.body.data)
  })

  test("a failure with a cold cache is 502; once WhatsApp answers the list comes back", async () => {
    const { key, phone } = await groupsTenant()
    h.gateway.groupFetchError = new Error("WhatsApp did not answer")
    expectErrorEnvelope(await groups(key, phone.id), 502, "Bad Gateway", "/v1/groups")
    h.gateway.groupFetchError = null
    expect((await groups(key, phone.id)).body.data.length).toBe(2)
  })

  test("a phone that is not connected is 400, whatever the cache holds", async () => {
    const { key, phone } = await groupsTenant()
    expect((await groups(key, phone.id)).status).toBe(200)
    h.gateway.current(phone.id).drop("connection_lost")
    await h.settle()
    expect(expectErrorEnvelope(await groups(key, phone.id), 400, "Bad Request")).toEqual([`Phone ${phone.phoneNumber} is not connected (status: disconnected)`])
  })

  test("test keys still get the sandbox groups without asking WhatsApp", async () => {
    const { account, phone, counter } = await groupsTenant()
    const testKey = await h.seedKey(account.id, { env: "test" })
    const res = await groups(testKey, phone.id)
    expect(res.body.data.map((g: any) => g.id)).toEqual(["120363000000000001@g.us", "120363000000000002@g.us"])
    expect(counter.fetches).toBe(0)
  })
})
