import { afterEach, describe, expect, test } from "bun:test"
import { FAILED_AUTH_PER_MINUTE } from "../../src/domain/rate-limits"
import { createHarness, expectErrorEnvelope, type Harness } from "../helpers/harness"

/*
 * The admin token cannot be guessed (issue 19, "Secrets cannot be guessed"): wrong admin tokens
 * on /metrics and /admin/v1 spend the client's failed-authentication budget for the admin token
 * (API keys have their own: test/http/failed-auth-budgets.test.ts), and once it is spent
 * the right token is refused too, so a guesser never learns which guess hit.
 */

let h: Harness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

const WRONG = "adm_not_the_token_00000000000000000000000000"

describe("the failed-authentication throttle guards the admin token", () => {
  test("wrong admin tokens on /metrics count toward the throttle: the next attempt is 429, while /v1 keys keep their own budget", async () => {
    h = await createHarness()
    for (let i = 0; i < FAILED_AUTH_PER_MINUTE; i++) expect((await h.request("GET", "/metrics", { key: WRONG })).status).toBe(401)
    const limited = await h.request("GET", "/metrics", { key: WRONG })
    expectErrorEnvelope(limited, 429, "Rate limit exceeded", "/metrics")
    expect(Number(limited.headers.get("retry-after"))).toBeGreaterThan(0)
    expect((await h.request("GET", "/v1/account", { key: "sk_test_wrong" })).status).toBe(401)
  })

  test("once throttled, /metrics refuses the right admin token with 429, and serves it again after the wait", async () => {
    h = await createHarness()
    const admin = await h.adminToken()
    for (let i = 0; i < FAILED_AUTH_PER_MINUTE; i++) await h.request("GET", "/metrics", { key: WRONG })
    const limited = await h.request("GET", "/metrics", { key: admin })
    expectErrorEnvelope(limited, 429, "Rate limit exceeded", "/metrics")
    await h.advance(Number(limited.headers.get("retry-after")) * 1000)
    expect((await h.request("GET", "/metrics", { key: admin })).status).toBe(200)
  })

  test("once throttled, /admin/v1 answers the right admin token with the same 429 as a wrong one", async () => {
    h = await createHarness()
    const admin = await h.adminToken()
    expect((await h.request("GET", "/admin/v1/accounts", { key: admin })).status).toBe(200)
    for (let i = 0; i < FAILED_AUTH_PER_MINUTE; i++) expect((await h.request("GET", "/admin/v1/accounts", { key: WRONG })).status).toBe(401)
    const wrong = await h.request("GET", "/admin/v1/accounts", { key: WRONG })
    const right = await h.request("GET", "/admin/v1/accounts", { key: admin })
    expectErrorEnvelope(wrong, 429, "Rate limit exceeded", "/admin/v1/accounts")
    expectErrorEnvelope(right, 429, "Rate limit exceeded", "/admin/v1/accounts")
    expect(right.body.message).toEqual(wrong.body.message)
    expect(right.headers.get("retry-after")).toBe(wrong.headers.get("retry-after"))
    await h.advance(Number(right.headers.get("retry-after")) * 1000)
    expect((await h.request("GET", "/admin/v1/accounts", { key: admin })).status).toBe(200)
  })
})
