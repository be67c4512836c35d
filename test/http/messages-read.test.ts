import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { Envelope, PageEnvelope } from "../../src/http/models/common"
import { Message } from "../../src/http/models/messages"
import { createHarness, expectErrorEnvelope, expectSchema, type Harness } from "../helpers/harness"

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

async function sendMany(key: string, from: string, count: number, to = "+14155550199"): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < count; i++) {
    const res = await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: from, to, content: `m${i}` } })
    ids.push(res.body.data.id)
    await h.advance(1)
  }
  return ids
}

describe("GET /v1/messages", () => {
  test("lists newest first with page, limit, total and totalPages", async () => {
    const { key, phone } = await h.seedTenant()
    const ids = await sendMany(key, phone.phoneNumber, 5)
    const page1 = await h.request("GET", "/v1/messages?limit=2", { key })
    expect(page1.status).toBe(200)
    expectSchema(PageEnvelope(Message), page1.body)
    expect(page1.body.data.data.map((m: { id: string }) => m.id)).toEqual([ids[4], ids[3]])
    expect(page1.body.data.pagination).toEqual({ page: 1, limit: 2, total: 5, totalPages: 3 })
    const page3 = await h.request("GET", "/v1/messages?limit=2&page=3", { key })
    expect(page3.body.data.data.map((m: { id: string }) => m.id)).toEqual([ids[0]])
  })

  test("past the last page is 200 with an empty list", async () => {
    const { key, phone } = await h.seedTenant()
    await sendMany(key, phone.phoneNumber, 3)
    const res = await h.request("GET", "/v1/messages?page=9", { key })
    expect(res.status).toBe(200)
    expect(res.body.data).toEqual({ data: [], pagination: { page: 9, limit: 20, total: 3, totalPages: 1 } })
  })

  test("filters by status and by phone id", async () => {
    const { account, key, phone } = await h.seedTenant()
    const other = await h.seedPhone(account.id)
    await sendMany(key, phone.phoneNumber, 2)
    const failed = await sendMany(key, other.phoneNumber, 1, "+12025550101")
    const byStatus = await h.request("GET", "/v1/messages?status=failed", { key })
    expect(byStatus.body.data.data.map((m: { id: string }) => m.id)).toEqual(failed)
    expect(byStatus.body.data.pagination.total).toBe(1)
    const byPhone = await h.request("GET", `/v1/messages?phoneNumberId=${phone.id}`, { key })
    expect(byPhone.body.data.pagination.total).toBe(2)
    expect(byPhone.body.data.data.every((m: { from: string }) => m.from === phone.phoneNumber)).toBe(true)
    const both = await h.request("GET", `/v1/messages?phoneNumberId=${other.id}&status=sent`, { key })
    expect(both.body.data.pagination.total).toBe(0)
  })

  test("another account's phone id as a filter yields an empty page, not its messages", async () => {
    const a = await h.seedTenant()
    const b = await h.seedTenant()
    await sendMany(b.key, b.phone.phoneNumber, 2)
    const res = await h.request("GET", `/v1/messages?phoneNumberId=${b.phone.id}`, { key: a.key })
    expect(res.status).toBe(200)
    expect(res.body.data.pagination.total).toBe(0)
  })

  test("lists are scoped to the key's account and environment", async () => {
    const a = await h.seedTenant()
    const b = await h.seedTenant()
    await sendMany(a.key, a.phone.phoneNumber, 2)
    await sendMany(b.key, b.phone.phoneNumber, 1)
    const live = await h.seedKey(a.account.id, { env: "live" })
    expect((await h.request("GET", "/v1/messages", { key: a.key })).body.data.pagination.total).toBe(2)
    expect((await h.request("GET", "/v1/messages", { key: b.key })).body.data.pagination.total).toBe(1)
    expect((await h.request("GET", "/v1/messages", { key: live })).body.data.data).toEqual([])
  })

  test.each([
    ["page=0", "page must be an integer >= 1"],
    ["page=1.5", "page must be an integer >= 1"],
    ["page=abc", "page must be an integer >= 1"],
    ["limit=0", "limit must be an integer between 1 and 100"],
    ["limit=101", "limit must be an integer between 1 and 100"],
    ["status=queued", "status must be one of pending, sent, delivered, read, failed"],
    ["environment=live", "environment must not be sent: it is inferred from the API key"],
    ["sort=asc", "sort is not a recognised field"],
  ])("?%s is 400, never clamped", async (query, message) => {
    const { key } = await h.seedTenant()
    const res = await h.request("GET", `/v1/messages?${query}`, { key })
    expect(expectErrorEnvelope(res, 400, "Bad Request", "/v1/messages")).toEqual([message])
  })
})

describe("GET /v1/messages/{messageId}", () => {
  test("returns the message with its lifecycle timestamps", async () => {
    const { key, phone } = await h.seedTenant()
    const [id] = await sendMany(key, phone.phoneNumber, 1)
    const res = await h.request("GET", `/v1/messages/${id}`, { key })
    expect(res.status).toBe(200)
    expectSchema(Envelope(Message), res.body)
    expect(res.body.data.id).toBe(id!)
  })

  test("is 404, not 403, for a message of another account", async () => {
    const a = await h.seedTenant()
    const b = await h.seedTenant()
    const [id] = await sendMany(b.key, b.phone.phoneNumber, 1)
    const res = await h.request("GET", `/v1/messages/${id}`, { key: a.key })
    expect(expectErrorEnvelope(res, 404, "Not Found")).toEqual([`Message ${id} not found`])
  })

  test("is 404 across environments of the same account", async () => {
    const { account, key, phone } = await h.seedTenant()
    const [id] = await sendMany(key, phone.phoneNumber, 1)
    const live = await h.seedKey(account.id, { env: "live" })
    expectErrorEnvelope(await h.request("GET", `/v1/messages/${id}`, { key: live }), 404, "Not Found")
  })
})

describe("inbound messages", () => {
  test("a test key always gets an empty inbound list, even when live inbound exists", async () => {
    const { account, key, phone } = await h.seedTenant()
    insertInbound(account.id, phone.id)
    const res = await h.request("GET", "/v1/messages/inbound", { key })
    expect(res.body).toEqual({ success: true, data: { data: [], pagination: { page: 1, limit: 20, total: 0, totalPages: 0 } } })
  })

  test("a live key lists its inbound messages and gets one by id; another account gets 404", async () => {
    const { account, phone } = await h.seedTenant()
    const live = await h.seedKey(account.id, { env: "live" })
    const id = insertInbound(account.id, phone.id)
    const list = await h.request("GET", `/v1/messages/inbound?phoneNumberId=${encodeURIComponent(phone.phoneNumber)}`, { key: live })
    expect(list.body.data.pagination.total).toBe(1)
    expect(list.body.data.data[0]).toMatchObject({ id, from: "+14155550111", to: phone.phoneNumber, type: "text", isGroup: false, groupId: null })
    const one = await h.request("GET", `/v1/messages/inbound/${id}`, { key: live })
    expect(one.body.data.id).toBe(id)
    const test_ = await h.request("GET", `/v1/messages/inbound/${id}`, { key: await h.seedKey(account.id) })
    expectErrorEnvelope(test_, 404, "Not Found")
    const other = await h.seedTenant()
    const otherLive = await h.seedKey(other.account.id, { env: "live" })
    expectErrorEnvelope(await h.request("GET", `/v1/messages/inbound/${id}`, { key: otherLive }), 404, "Not Found")
  })

  /** Records an inbound message the way the live receiver will (issue: live WhatsApp), directly in the store. */
  function insertInbound(accountId: string, phoneId: string): string {
    const id = h.services.ctx.ids.newId("inmsg")
    const now = h.clock.nowMs()
    const phone = h.services.sqlite!.query("SELECT phone_number AS n FROM phones WHERE id = ?").get(phoneId) as { n: string }
    h.services.sqlite!.run(
      `INSERT INTO inbound_messages (id, account_id, env, seq, phone_id, wa_message_id, from_address, to_number, content, type, is_group, group_id, received_at_ms, created_at_ms)
       VALUES (?, ?, 'live', 1, ?, 'WAID1', '+14155550111', ?, 'hello', 'text', 0, NULL, ?, ?)`,
      [id, accountId, phoneId, phone.n, now, now],
    )
    h.services.sqlite!.run("INSERT INTO inbound_counts (account_id, env, phone_id, n) VALUES (?, 'live', ?, 1)", [accountId, phoneId])
    return id
  }
})
