import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { createHarness, expectErrorEnvelope, type Harness } from "../helpers/harness"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

/*
 * The same requests get the same answers and headers on SQLite (the in-memory buckets) and on
 * PostgreSQL (buckets shared through the database, src/domain/shared-rate-limits.ts): below 100
 * a minute a node draws one token a request, so the shared limiter is exact.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

let h: Harness
const others: Harness[] = []
afterEach(async () => {
  for (const other of others.splice(0)) await other.close()
  await h.close()
}, SLOW_HOOK_TIMEOUT_MS)

describe.each(["sqlite", "postgres"] as const)("rate limits on %s", (database) => {
  beforeEach(async () => {
    h = await createHarness({ database, env: { WAGATE_RATE_LIMIT_PER_MINUTE: "5" } })
  }, SLOW_HOOK_TIMEOUT_MS)

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

  test("at 100 a minute the headers count down alike, and the 429's Retry-After (at most 2 s) is when a request passes again", async () => {
    const account = await h.seedAccount({ rateLimitPerMinute: 100 })
    const key = await h.seedKey(account.id)
    const remaining: number[] = []
    for (let i = 0; i < 100; i++) {
      const res = await h.request("GET", "/v1/account", { key })
      expect(res.status).toBe(200)
      remaining.push(Number(res.headers.get("x-ratelimit-remaining")))
    }
    expect(remaining).toEqual(Array.from({ length: 100 }, (_, i) => 99 - i))
    const limited = await h.request("GET", "/v1/account", { key })
    expect(limited.status).toBe(429)
    const retryAfter = Number(limited.headers.get("retry-after"))
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(2)
    expect(limited.body.retryAfter).toBe(retryAfter)
    await h.advance(retryAfter * 1000)
    expect((await h.request("GET", "/v1/account", { key })).status).toBe(200)
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

describe("rate limits on several nodes", () => {
  beforeEach(async () => {
    h = await createHarness({ database: "postgres", env: { WAGATE_RATE_LIMIT_PER_MINUTE: "5" } })
  }, SLOW_HOOK_TIMEOUT_MS)

  /** Another node on the same database and the same clock. */
  async function secondNode(): Promise<Harness> {
    const node = await createHarness({ clock: h.clock, env: { WAGATE_RATE_LIMIT_PER_MINUTE: "5", WAGATE_NODE_ID: "second-node", WAGATE_DATABASE_URL: h.config.databaseUrl! } })
    others.push(node)
    return node
  }

  test("two nodes on one database share a key's bucket: 5 a minute is 5 across both, then 429 on either with the same headers", async () => {
    const { key } = await h.seedTenant()
    const b = await secondNode()
    const nodes = [h, b, h, b, b]
    const remaining: string[] = []
    for (const node of nodes) {
      const res = await node.request("GET", "/v1/account", { key })
      expect(res.status).toBe(200)
      remaining.push(res.headers.get("x-ratelimit-remaining")!)
    }
    expect(remaining).toEqual(["4", "3", "2", "1", "0"])
    for (const node of [h, b]) {
      const limited = await node.request("GET", "/v1/account", { key })
      expectErrorEnvelope(limited, 429, "Rate limit exceeded", "/v1/account")
      expect(limited.headers.get("retry-after")).toBe("12")
      expect(limited.headers.get("x-ratelimit-limit")).toBe("5")
      expect(limited.headers.get("ratelimit")).toBe('"default";r=0;t=60')
    }
    await h.advance(12_000)
    expect((await b.request("GET", "/v1/account", { key })).status).toBe(200)
    expect((await h.request("GET", "/v1/account", { key })).status).toBe(429)
  })
})
