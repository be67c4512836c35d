import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { createHarness, expectErrorEnvelope, type Harness } from "../helpers/harness"

let h: Harness
afterEach(() => h.close())

describe("rate limits", () => {
  beforeEach(async () => {
    h = await createHarness({ env: { WAGATE_RATE_LIMIT_PER_MINUTE: "5" } })
  })

  test("every authenticated response carries the limit headers, counting down", async () => {
    const { key } = await h.seedTenant()
    const res = await h.request("GET", "/v1/account", { key })
    expect(res.headers.get("x-ratelimit-limit")).toBe("5")
    expect(res.headers.get("x-ratelimit-remaining")).toBe("4")
    expect(res.headers.get("ratelimit-policy")).toBe('"default";q=5;w=60')
    // One token is back after 12 s (5 per minute), so the bucket is full again in 12 s.
    expect(res.headers.get("ratelimit")).toBe('"default";r=4;t=12')
    expect(res.headers.get("x-ratelimit-reset")).toBe(String(Math.ceil((h.clock.nowMs() + 12_000) / 1000)))
    const second = await h.request("GET", "/v1/account", { key })
    expect(second.headers.get("x-ratelimit-remaining")).toBe("3")
  })

  test("the request after the limit is 429 with Retry-After equal to retryAfter, and a 429 takes no token", async () => {
    const { key } = await h.seedTenant()
    for (let i = 0; i < 5; i++) expect((await h.request("GET", "/v1/account", { key })).status).toBe(200)
    const limited = await h.request("GET", "/v1/account", { key })
    expectErrorEnvelope(limited, 429, "Rate limit exceeded", "/v1/account")
    expect(limited.body.retryAfter).toBe(12)
    expect(limited.headers.get("retry-after")).toBe("12")
    expect(limited.headers.get("x-ratelimit-remaining")).toBe("0")

    await h.advance(6_000)
    const stillLimited = await h.request("GET", "/v1/account", { key })
    expect(stillLimited.body.retryAfter).toBe(6)
    await h.advance(6_000)
    expect((await h.request("GET", "/v1/account", { key })).status).toBe(200)
  })

  test("errors after authentication are charged too (400, 403, 404)", async () => {
    const { account, key } = await h.seedTenant()
    const readOnly = await h.seedKey(account.id, { scopes: ["messages:read"] })
    expect((await h.request("GET", "/v1/messages?page=0", { key })).status).toBe(400)
    expect((await h.request("GET", "/v1/messages/msg_nope", { key })).status).toBe(404)
    const forbidden = await h.request("GET", "/v1/account", { key: readOnly })
    expect(forbidden.status).toBe(200)
    const denied = await h.request("POST", "/v1/messages/send", { key: readOnly, body: {} })
    expect(denied.status).toBe(403)
    expect(denied.headers.get("x-ratelimit-remaining")).toBe("3")
    expect((await h.request("GET", "/v1/account", { key })).headers.get("x-ratelimit-remaining")).toBe("2")
  })

  test("buckets are per key: one key's exhaustion does not limit another", async () => {
    const { account, key } = await h.seedTenant()
    const other = await h.seedKey(account.id)
    for (let i = 0; i < 5; i++) await h.request("GET", "/v1/account", { key })
    expect((await h.request("GET", "/v1/account", { key })).status).toBe(429)
    expect((await h.request("GET", "/v1/account", { key: other })).status).toBe(200)
  })

  test("an account-specific limit replaces the default for its keys", async () => {
    const account = await h.seedAccount({ rateLimitPerMinute: 2 })
    const key = await h.seedKey(account.id)
    const first = await h.request("GET", "/v1/account", { key })
    expect(first.headers.get("x-ratelimit-limit")).toBe("2")
    await h.request("GET", "/v1/account", { key })
    const limited = await h.request("GET", "/v1/account", { key })
    expect(limited.status).toBe(429)
    expect(limited.body.retryAfter).toBe(30)
  })
})
