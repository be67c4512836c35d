import { afterEach, describe, expect, test } from "bun:test"
import { FAILED_AUTH_PER_MINUTE } from "../../src/domain/rate-limits"
import { createLogger } from "../../src/lib/logger"
import { createHarness, expectErrorEnvelope, type Harness } from "../helpers/harness"
import { postSignIn } from "../helpers/dashboard"

/*
 * Failed authentications are throttled per client address and per kind of credential (docs/api.md
 * § "Rate limits"): wrong `/v1` API keys spend one budget, wrong admin tokens (admin API,
 * `/metrics`, dashboard sign-in) another. Requests through app.handle all come from one address
 * ("unknown"), as every client behind an untrusted proxy does.
 */

let h: Harness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

const WRONG_ADMIN = "adm_not_the_token_00000000000000000000000000"

async function spendApiKeyBudget(harness: Harness): Promise<void> {
  for (let i = 0; i < FAILED_AUTH_PER_MINUTE; i++) expect((await harness.request("GET", "/v1/account", { key: "sk_live_stale" })).status).toBe(401)
  expect((await harness.request("GET", "/v1/account", { key: "sk_live_stale" })).status).toBe(429)
}

describe("failed-authentication budgets: success", () => {
  test("an application retrying a stale API key from the operator's address leaves the admin token usable everywhere", async () => {
    h = await createHarness()
    const admin = await h.adminToken()
    await spendApiKeyBudget(h)
    expect((await postSignIn(h, admin)).status).toBe(303)
    expect((await h.request("GET", "/admin/v1/accounts", { key: admin })).status).toBe(200)
    expect((await h.request("GET", "/metrics", { key: admin })).status).toBe(200)
  })

  test("wrong admin tokens from an address leave that address's API keys their own budget: a wrong key is still 401, a valid one served", async () => {
    h = await createHarness()
    const { key } = await h.seedTenant()
    for (let i = 0; i < FAILED_AUTH_PER_MINUTE; i++) expect((await h.request("GET", "/admin/v1/accounts", { key: WRONG_ADMIN })).status).toBe(401)
    expect((await h.request("GET", "/admin/v1/accounts", { key: WRONG_ADMIN })).status).toBe(429)
    expectErrorEnvelope(await h.request("GET", "/v1/account", { key: "sk_live_stale" }), 401, "Unauthorized")
    expect((await h.request("GET", "/v1/account", { key })).status).toBe(200)
  })
})

describe("failed-authentication budgets: errors", () => {
  test("the admin token's budget is one for the admin API, /metrics and the dashboard's sign-in", async () => {
    h = await createHarness()
    const admin = await h.adminToken()
    for (let i = 0; i < FAILED_AUTH_PER_MINUTE; i++) {
      const status = i % 3 === 0 ? (await postSignIn(h, WRONG_ADMIN)).status : (await h.request("GET", i % 3 === 1 ? "/metrics" : "/admin/v1/accounts", { key: WRONG_ADMIN })).status
      expect(status).toBe(401)
    }
    expect((await postSignIn(h, admin)).status).toBe(429)
    expect((await h.request("GET", "/metrics", { key: admin })).status).toBe(429)
  })

  test("an API key's budget, once spent, answers wrong keys 429 with Retry-After until it refills", async () => {
    h = await createHarness()
    await spendApiKeyBudget(h)
    const limited = await h.request("GET", "/v1/account", { key: "sk_live_stale" })
    expectErrorEnvelope(limited, 429, "Rate limit exceeded")
    await h.advance(Number(limited.headers.get("retry-after")) * 1000)
    expect((await h.request("GET", "/v1/account", { key: "sk_live_stale" })).status).toBe(401)
  })
})

describe("failed-authentication budgets: security", () => {
  test("a spent API-key budget does not lift the admin token's rule: a throttled admin address still gets 429 for the right token", async () => {
    h = await createHarness()
    const admin = await h.adminToken()
    await spendApiKeyBudget(h)
    for (let i = 0; i < FAILED_AUTH_PER_MINUTE; i++) expect((await h.request("GET", "/admin/v1/accounts", { key: WRONG_ADMIN })).status).toBe(401)
    expect((await h.request("GET", "/admin/v1/accounts", { key: admin })).status).toBe(429)
  })

  test("the warning logged when a budget runs out names the kind of credential", async () => {
    const lines: string[] = []
    h = await createHarness({ logger: createLogger({ level: "warn", format: "json", nowIso: () => "t", write: (line) => lines.push(line) }) })
    await spendApiKeyBudget(h)
    for (let i = 0; i < FAILED_AUTH_PER_MINUTE; i++) await h.request("GET", "/metrics", { key: WRONG_ADMIN })
    const warned = lines.map((l) => JSON.parse(l)).filter((l) => l.msg?.includes("too many failed authentication attempts"))
    expect(warned.map((l) => l.credential)).toEqual(["api_key", "admin_token"])
  })
})
