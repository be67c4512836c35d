import { describe, expect, test } from "bun:test"
import { authenticateApiKey } from "../../src/domain/api-keys"
import { createApiKey } from "../../src/domain/api-keys"
import { CANONICAL_SCOPES } from "../../src/domain/scopes"
import type { AccountRow } from "../../src/store/accounts"
import type { Harness } from "../helpers/harness"
import { expectEscaped, HOSTILE, type DashboardClient, signedInForEachTest } from "../helpers/dashboard"

let h: Harness
let client: DashboardClient
let account: AccountRow
signedInForEachTest((made) => void ({ h, client, account } = made))

const newKeyOf = (html: string) => /<code id="new-key">(sk_(?:test|live)_[0-9A-Za-z]{43})<\/code>/.exec(html)?.[1] ?? null

describe("dashboard: keys", () => {
  test("'Create key' makes a working key, shows it once with a copy button, then lists only its prefix and last 4", async () => {
    const res = await client.post(`/dashboard/keys?account=${account.id}`, {
      name: "Backend",
      environment: "test",
      scopes: ["messages:send", "messages:read"],
      expiresAt: "2099-01-01T00:00",
    })
    expect(res.status).toBe(201)
    const key = newKeyOf(res.html)!
    expect(key).toStartWith("sk_test_")
    expect(res.html).toContain('data-copy-target="new-key"')
    const principal = (await authenticateApiKey(h.services.ctx, key))!
    expect(principal.scopes).toEqual(["messages:send", "messages:read"])
    const list = await client.get(`/dashboard/keys?account=${account.id}&env=test`)
    expect(list.html).not.toContain(key)
    expect(list.html).toContain(`${key.slice(0, 12)}…${key.slice(-4)}`)
    expect(list.html).toContain("messages:send, messages:read")
    expect(list.html).toContain("2099-01-01 00:00:00 UTC")
  })

  test("test and live keys are never on one list", async () => {
    const { row: live } = await createApiKey(h.services.ctx, { accountId: account.id, env: "live", scopes: [...CANONICAL_SCOPES], name: "live-one" })
    const { row: test_ } = await createApiKey(h.services.ctx, { accountId: account.id, env: "test", scopes: [...CANONICAL_SCOPES], name: "test-one" })
    const testList = await client.get(`/dashboard/keys?account=${account.id}&env=test`)
    expect(testList.html).toContain(test_.last4)
    expect(testList.html).not.toContain(">live-one<")
    const liveList = await client.get(`/dashboard/keys?account=${account.id}&env=live`)
    expect(liveList.html).toContain(">live-one<")
    expect(liveList.html).not.toContain(">test-one<")
    expect(liveList.html).toContain(live.prefix)
  })

  test("the admin API's rules apply: no scope, or an expiry in the past, is a 400 with the reason", async () => {
    const none = await client.post(`/dashboard/keys?account=${account.id}`, { environment: "test" })
    expect(none.status).toBe(400)
    expect(none.html).toContain("Scopes: tick at least one scope")
    const past = await client.post(`/dashboard/keys?account=${account.id}`, { environment: "test", scopes: "messages:send", expiresAt: "2001-01-01T00:00" })
    expect(past.status).toBe(400)
    expect(past.html).toContain("Expires must be in the future")
    expect(h.services.sqlite!.query("SELECT id FROM api_keys").all()).toEqual([])
  })

  test("revoking (after confirmation) makes the key stop working", async () => {
    const { row, key } = await createApiKey(h.services.ctx, { accountId: account.id, env: "test", scopes: [...CANONICAL_SCOPES] })
    const list = await client.get(`/dashboard/keys?account=${account.id}`)
    expect(list.html).toContain('<summary>Revoke</summary>')
    const res = await client.post(`/dashboard/keys/${row.id}/revoke`)
    expect(res.status).toBe(303)
    expect(await authenticateApiKey(h.services.ctx, key)).toBeNull()
    expect((await client.get(`/dashboard/keys?account=${account.id}`)).html).toContain("Revoked")
  })

  test("key names are escaped", async () => {
    await createApiKey(h.services.ctx, { accountId: account.id, env: "test", scopes: ["messages:send"], name: `${HOSTILE.script} ${HOSTILE.attribute}` })
    expectEscaped((await client.get(`/dashboard/keys?account=${account.id}`)).html, [HOSTILE.script, HOSTILE.attribute])
  })
})

describe("dashboard: accounts", () => {
  test("create an account, then edit its name, e-mail, subscription status and rate limit", async () => {
    const created = await client.post("/dashboard/accounts", { name: "Beta", email: "ops@beta.example" })
    expect(created.status).toBe(303)
    const id = /\/dashboard\/accounts\/(acc_[0-9a-z]+)/.exec(created.headers.get("location")!)![1]!
    const saved = await client.post(`/dashboard/accounts/${id}`, {
      name: "Beta Ltd",
      email: "billing@beta.example",
      subscriptionStatus: "inactive",
      rateLimitPerMinute: "120",
    })
    expect(saved.status).toBe(303)
    const row = h.services.sqlite!.query("SELECT name, email, subscription_status AS s, rate_limit_per_minute AS r FROM accounts WHERE id = ?").get(id)
    expect(row).toEqual({ name: "Beta Ltd", email: "billing@beta.example", s: "inactive", r: 120 })
    const cleared = await client.post(`/dashboard/accounts/${id}`, { name: "Beta Ltd", email: "billing@beta.example", subscriptionStatus: "active", rateLimitPerMinute: "" })
    expect(cleared.status).toBe(303)
    const list = await client.get("/dashboard/accounts")
    expect(list.html).toContain("Beta Ltd")
    expect(list.html).toContain("(default)")
  })

  test("the admin API's rules and messages apply to the forms", async () => {
    const bad = await client.post("/dashboard/accounts", { name: "", email: "not-an-email" })
    expect(bad.status).toBe(400)
    expect(bad.html).toContain("Name must be 1–200 characters")
    expect(bad.html).toContain("E-mail must be an e-mail address")
    const rate = await client.post(`/dashboard/accounts/${account.id}`, { name: "Acme", email: "a@b.c", subscriptionStatus: "active", rateLimitPerMinute: "0" })
    expect(rate.status).toBe(400)
    expect(rate.html).toContain("Rate limit per key must be a whole number from 1 to 1000000")
  })

  test("account names and e-mails are escaped on the list and the edit page", async () => {
    const hostile = await h.seedAccount({ name: `${HOSTILE.script} ${HOSTILE.attribute}`, email: HOSTILE.email })
    const values = [HOSTILE.script, HOSTILE.attribute, HOSTILE.email]
    expectEscaped((await client.get("/dashboard/accounts")).html, values)
    expectEscaped((await client.get(`/dashboard/accounts/${hostile.id}`)).html, values)
  })
})

describe("dashboard: overview", () => {
  test("shows phones with their status, today's messages by status and the latest failed messages", async () => {
    const phone = await h.seedPhone(account.id, "+14155550140")
    const key = await h.seedKey(account.id)
    await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.id, to: "+14155550199", content: "hi" } })
    await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.id, to: "+15005550001", content: "fails" } })
    await h.settle()
    const { status, html } = await client.get(`/dashboard?account=${account.id}&env=test`)
    expect(status).toBe(200)
    expect(html).toContain("Not paired")
    expect(html).toMatch(/>pending<\/a><\/dt><dd>\d+<\/dd>/)
    const total = [...html.matchAll(/>(?:pending|sent|delivered|read|failed)<\/a><\/dt><dd>(\d+)<\/dd>/g)].reduce((n, m) => n + Number(m[1]), 0)
    expect(total).toBe(2)
  })
})
