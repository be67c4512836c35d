import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { createApiKey } from "../../src/domain/api-keys"
import { DAY_MS } from "../../src/lib/time"
import type { AccountRow } from "../../src/store/accounts"
import type { PhoneRow } from "../../src/store/phones"
import { createHarness, type Harness } from "../helpers/harness"
import { signIn, type DashboardClient } from "../helpers/dashboard"

let h: Harness
let client: DashboardClient
let account: AccountRow
let phone: PhoneRow
beforeEach(async () => {
  h = await createHarness()
  account = await h.seedAccount({ name: "Acme" })
  phone = await h.seedPhone(account.id, "+14155550170")
  client = await signIn(h)
})
afterEach(() => h.close())

describe("dashboard: sandbox", () => {
  test("lists the magic recipients with what they do", async () => {
    await h.seedKey(account.id)
    const { html } = await client.get(`/dashboard/sandbox?account=${account.id}`)
    expect(html).toContain("<code>+12025550101</code></td><td data-label=\"What happens\">fails at once with recipient_not_on_whatsapp")
    expect(html).toContain("stays sent (never delivered)")
    expect(html).toContain(">Send test message</button>")
  })

  test("a test message is sent as the chosen test key and its page follows it to read", async () => {
    const { row } = await createApiKey(h.services.ctx, { accountId: account.id, env: "test", scopes: ["messages:send"], name: "sandbox" })
    const res = await client.post(`/dashboard/sandbox?account=${account.id}`, { keyId: row.id, fromPhoneId: phone.id, to: "+14155550199", content: "from the dashboard" })
    expect(res.status).toBe(303)
    const location = res.headers.get("location")!
    const id = /\/dashboard\/messages\/(msg_[0-9a-z]+)/.exec(location)![1]!
    const stored = h.services.sqlite!.query("SELECT api_key_id AS keyId, env, status FROM messages WHERE id = ?").get(id)
    expect(stored).toEqual({ keyId: row.id, env: "test", status: "sent" })
    expect((await client.get(location)).html).toContain('hx-trigger="every 1s"')
    await h.advance(h.config.sandboxDeliveredMs)
    await h.advance(h.config.sandboxReadMs)
    await h.settle()
    expect((await client.get(`/dashboard/messages/${id}/timeline`)).html).toContain(">read</span>")
  })

  test("a live key, a key of another account or a bad recipient is refused with the reason", async () => {
    const { row: live } = await createApiKey(h.services.ctx, { accountId: account.id, env: "live", scopes: ["messages:send"] })
    const other = await h.seedAccount({ name: "Other" })
    const { row: foreign } = await createApiKey(h.services.ctx, { accountId: other.id, env: "test", scopes: ["messages:send"] })
    const { row: mine } = await createApiKey(h.services.ctx, { accountId: account.id, env: "test", scopes: ["messages:send"] })
    for (const keyId of [live.id, foreign.id]) {
      const res = await client.post(`/dashboard/sandbox?account=${account.id}`, { keyId, fromPhoneId: phone.id, to: "+14155550199", content: "x" })
      expect(res.status).toBe(400)
      expect(res.html).toContain("Pick a test key of this account")
    }
    const badTo = await client.post(`/dashboard/sandbox?account=${account.id}`, { keyId: mine.id, fromPhoneId: phone.id, to: "not a number", content: "x" })
    expect(badTo.status).toBe(400)
    expect(h.services.sqlite!.query("SELECT id FROM messages").all()).toEqual([])
  })
})

describe("dashboard: usage", () => {
  // The test clock starts on Monday 2026-01-05, so the next day is in the same week and month.
  test("shows the period's totals and a 30-day chart from the daily counters", async () => {
    const key = await h.seedKey(account.id)
    for (let i = 0; i < 3; i++) await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.id, to: "+14155550199", content: "a" } })
    await h.advance(DAY_MS)
    await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.id, to: "+12025550101", content: "b" } })
    await h.services.usage.flush()
    // A day later the session has idled out (12 h): sign in again.
    client = await signIn(h)
    const month = await client.get(`/dashboard/usage?account=${account.id}&env=test&period=month`)
    expect(month.status).toBe(200)
    expect(month.html).toMatch(/<dt>Total<\/dt><dd>4<\/dd>/)
    expect(month.html).toMatch(/<dt>Failed<\/dt><dd>1<\/dd>/)
    expect(month.html).toContain('<svg class="chart"')
    expect((month.html.match(/<rect class="bar-/g) ?? []).length).toBeGreaterThanOrEqual(2)
    expect(month.html).toMatch(/<dt>OK<\/dt><dd>4<\/dd>/)
    const day = await client.get(`/dashboard/usage?account=${account.id}&env=test&period=day`)
    expect(day.html).toMatch(/<dt>Total<\/dt><dd>1<\/dd>/)
    const live = await client.get(`/dashboard/usage?account=${account.id}&env=live`)
    expect(live.html).toMatch(/<dt>Total<\/dt><dd>0<\/dd>/)
  })
})
