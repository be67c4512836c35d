import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { Type } from "@sinclair/typebox"
import { Account, Usage } from "../../src/http/models/account"
import { Envelope } from "../../src/http/models/common"
import { PhoneNumber, PhoneStatus } from "../../src/http/models/phones"
import { createHarness, expectErrorEnvelope, expectSchema, type Harness } from "../helpers/harness"
import { TestClock } from "../helpers/test-clock"

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

describe("phone numbers", () => {
  test("lists the account's phones with every field, unpaired until paired", async () => {
    const { account, key, phone } = await h.seedTenant()
    const res = await h.request("GET", "/v1/phone-numbers", { key })
    expectSchema(Envelope(Type.Array(PhoneNumber)), res.body)
    expect(res.body.data).toEqual([
      {
        id: phone.id,
        phoneNumber: phone.phoneNumber,
        displayName: phone.phoneNumber,
        connectionStatus: "unpaired",
        lastConnectedAt: null,
        lastDisconnectedAt: null,
        createdAt: new Date(phone.createdAtMs).toISOString(),
        updatedAt: new Date(phone.updatedAtMs).toISOString(),
      },
    ])
    const other = await h.seedTenant()
    expect((await h.request("GET", "/v1/phone-numbers", { key: other.key })).body.data.map((p: { id: string }) => p.id)).toEqual([other.phone.id])
    expect(account.id).not.toBe(other.account.id)
  })

  test.each([
    ["its id", (p: { id: string }) => p.id],
    ["its URL-encoded E.164", (p: { phoneNumber: string }) => encodeURIComponent(p.phoneNumber)],
    ["its E.164 with a literal plus", (p: { phoneNumber: string }) => p.phoneNumber],
  ])("GET /v1/phone-numbers/{id} finds a phone by %s", async (_name, ref) => {
    const { key, phone } = await h.seedTenant()
    const res = await h.request("GET", `/v1/phone-numbers/${ref(phone)}`, { key })
    expect(res.status).toBe(200)
    expect(res.body.data.id).toBe(phone.id)
  })

  test("the status subset has exactly the spec's six fields", async () => {
    const { key, phone } = await h.seedTenant()
    const res = await h.request("GET", `/v1/phone-numbers/${encodeURIComponent(phone.phoneNumber)}/status`, { key })
    expectSchema(Envelope(PhoneStatus), res.body)
    expect(Object.keys(res.body.data).sort()).toEqual(
      ["connectionStatus", "id", "lastConnectedAt", "lastDisconnectedAt", "phoneNumber", "updatedAt"].sort(),
    )
  })

  test("another account's phone is 404 by id, by number and for its status", async () => {
    const a = await h.seedTenant()
    const b = await h.seedTenant()
    for (const path of [
      `/v1/phone-numbers/${b.phone.id}`,
      `/v1/phone-numbers/${encodeURIComponent(b.phone.phoneNumber)}`,
      `/v1/phone-numbers/${b.phone.id}/status`,
    ]) {
      expectErrorEnvelope(await h.request("GET", path, { key: a.key }), 404, "Not Found")
    }
  })
})

describe("groups with live keys", () => {
  test("an unpaired phone is 400 not connected; an unknown phone is 404; fromPhoneId is required", async () => {
    const { account, phone } = await h.seedTenant()
    const live = await h.seedKey(account.id, { env: "live" })
    const res = await h.request("GET", `/v1/groups?fromPhoneId=${phone.id}`, { key: live })
    expect(expectErrorEnvelope(res, 400, "Bad Request")).toEqual([`Phone ${phone.phoneNumber} is not connected (status: unpaired)`])
    expectErrorEnvelope(await h.request("GET", "/v1/groups?fromPhoneId=%2B19995550000", { key: live }), 404, "Not Found")
    expect(expectErrorEnvelope(await h.request("GET", "/v1/groups", { key: live }), 400, "Bad Request")).toEqual(["fromPhoneId is required"])
  })

  test("a connected phone whose group fetch fails is 502 Bad Gateway", async () => {
    const { account, phone } = await h.seedTenant()
    await h.connectPhone(phone)
    h.gateway.groupFetchError = new Error("WhatsApp did not answer")
    const live = await h.seedKey(account.id, { env: "live" })
    const res = await h.request("GET", `/v1/groups?fromPhoneId=${phone.id}`, { key: live })
    expect(expectErrorEnvelope(res, 502, "Bad Gateway")).toEqual(["Fetching the group list from WhatsApp failed; retry after a moment"])
  })
})

describe("GET /v1/account", () => {
  test("returns the profile with stats counted in the key's environment", async () => {
    const { account, key, phone } = await h.seedTenant()
    await h.seedKey(account.id, { env: "live" })
    const revoked = await h.seedKey(account.id)
    await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "x" } })
    const keyRow = h.services.sqlite!.query("SELECT id FROM api_keys WHERE key_hash = ?").get(new Bun.CryptoHasher("sha256").update(revoked).digest("hex")) as { id: string }
    await h.request("DELETE", `/admin/v1/keys/${keyRow.id}`, { key: await h.adminToken() })
    const res = await h.request("GET", "/v1/account", { key })
    expectSchema(Envelope(Account), res.body)
    expect(res.body.data).toEqual({
      accountId: account.id,
      name: account.name,
      email: account.email,
      subscriptionStatus: "active",
      stats: { apiKeys: 2, phoneNumbers: 1, messages: 1 },
    })
    const live = await h.seedKey(account.id, { env: "live" })
    expect((await h.request("GET", "/v1/account", { key: live })).body.data.stats.messages).toBe(0)
  })
})

describe("GET /v1/account/usage", () => {
  test("counts messages by current status and every authenticated request of the period", async () => {
    const { key, phone } = await h.seedTenant()
    const send = (to: string) => h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to, content: "x" } })
    await send("+14155550199")
    await send("+12025550101")
    await send("+12025550104")
    await h.request("GET", "/v1/messages?page=0", { key })
    await h.advance(5_000)
    const res = await h.request("GET", "/v1/account/usage?period=day", { key })
    expectSchema(Envelope(Usage), res.body)
    expect(res.body.data).toEqual({
      period: "day",
      startDate: "2026-01-05T00:00:00.000Z",
      endDate: new Date(h.clock.nowMs()).toISOString(),
      messages: { total: 3, pending: 0, sent: 2, failed: 1 },
      apiRequests: { total: 4, successful: 3, failed: 1 },
    })
  })

  test("periods are calendar periods in UTC: day, Monday-based week, month (the default)", async () => {
    // Wednesday 2026-03-11 15:00 UTC.
    h = await createHarness({ clock: new TestClock(Date.UTC(2026, 2, 11, 15)) })
    const { key } = await h.seedTenant()
    const start = async (q: string) => (await h.request("GET", `/v1/account/usage${q}`, { key })).body.data.startDate
    expect(await start("?period=day")).toBe("2026-03-11T00:00:00.000Z")
    expect(await start("?period=week")).toBe("2026-03-09T00:00:00.000Z")
    expect(await start("?period=month")).toBe("2026-03-01T00:00:00.000Z")
    expect(await start("")).toBe("2026-03-01T00:00:00.000Z")
  })

  test("counts are per environment and survive the buffered flush", async () => {
    const { account, key } = await h.seedTenant()
    const live = await h.seedKey(account.id, { env: "live" })
    await h.request("GET", "/v1/account", { key })
    await h.request("GET", "/v1/account", { key })
    // Elysia runs onAfterResponse, where requests are counted, just after the response is handed back.
    await new Promise((r) => setImmediate(r))
    await h.advance(1_000)
    const stored = h.services.sqlite!.query("SELECT SUM(successful) AS n FROM api_request_daily_counts WHERE env = 'test'").get() as { n: number }
    expect(stored.n).toBe(2)
    const liveUsage = await h.request("GET", "/v1/account/usage", { key: live })
    expect(liveUsage.body.data.apiRequests).toEqual({ total: 0, successful: 0, failed: 0 })
    const testUsage = await h.request("GET", "/v1/account/usage", { key })
    // The two requests, flushed to the database, counted once; the usage request itself is still in flight.
    expect(testUsage.body.data.apiRequests.total).toBe(2)
  })

  test("an unknown period is 400", async () => {
    const { key } = await h.seedTenant()
    const res = await h.request("GET", "/v1/account/usage?period=year", { key })
    expect(expectErrorEnvelope(res, 400, "Bad Request")).toEqual(["period must be one of day, week, month"])
  })
})
