import { describe, expect, test } from "bun:test"
import type { AccountRow } from "../../src/store/accounts"
import type { Harness } from "../helpers/harness"
import { ORIGIN, signIn, type DashboardClient, signedInForEachTest } from "../helpers/dashboard"
import { waMessageIdFor } from "../../src/domain/wa-ids"
import { liveTenant } from "../live/live-helpers"

/*
 * The dashboard's design pass (issue 19) as seen over HTTP: the favicon, what forms and notices
 * say, and the words the pages use. What only a browser shows (widths, wrapping) is in
 * browser-suite.ts.
 */

let h: Harness
let client: DashboardClient
let account: AccountRow
signedInForEachTest((made) => void ({ h, client, account } = made))

const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

describe("dashboard: favicon", () => {
  test("every page, the sign-in page too, links an icon the server embeds, under the same CSP", async () => {
    const signInPage = await (await h.app.handle(new Request(`${ORIGIN}/dashboard/sign-in`))).text()
    for (const html of [signInPage, (await client.get("/dashboard")).html, (await client.get(`/dashboard/phones?account=${account.id}`)).html]) {
      const link = /<link rel="icon" type="image\/svg\+xml" href="([^"]+)"/.exec(html)
      expect(link).not.toBeNull()
      const res = await h.app.handle(new Request(`${ORIGIN}${link![1]!.replaceAll("&amp;", "&")}`))
      expect(res.status).toBe(200)
      expect(res.headers.get("content-type")).toBe("image/svg+xml")
      expect(res.headers.get("content-security-policy")).toBe(CSP)
      expect(await res.text()).toStartWith("<svg xmlns=")
    }
  })
})

/** The messages of a page's "That did not work" list, unescaped. */
function formErrors(html: string): string[] {
  const block = /<div class="errors" role="alert">([\s\S]*?)<\/div>/.exec(html)
  if (!block) return []
  return [...block[1]!.matchAll(/<li>([\s\S]*?)<\/li>/g)].map((m) => m[1]!.replaceAll("&quot;", '"').replaceAll("&lt;", "<").replaceAll("&gt;", ">").replaceAll("&amp;", "&"))
}

/** Words of the API a form never shows: field names (the one-word ones as a message's subject) and JSON syntax. */
const API_WORDS = /\b(phoneNumber|displayName|fromPhoneId|expiresAt|rateLimitPerMinute|subscriptionStatus|mediaUrls)\b|^(url|events|scopes|email|name|content|to)\b|\["\*"\]|ISO 8601/

describe("dashboard: form errors use the words on the form", () => {
  test("every form names its fields by their labels, never by the API's field names", async () => {
    const q = `?account=${account.id}&env=test`
    const phone = await h.seedPhone(account.id, "+14155550170")
    const cases: { path: string; fields: Record<string, string | string[]>; expected: string[] }[] = [
      { path: `/dashboard/phones${q}`, fields: { phoneNumber: "12345", displayName: "" }, expected: ["Phone number must be an E.164 number (+ and 8–15 digits)"] },
      {
        path: `/dashboard/keys${q}`,
        fields: { name: "x".repeat(201), environment: "test", expiresAt: "soon" },
        expected: ["Scopes: tick at least one scope", "Name must be 1–200 characters", "Expires must be a date and time (UTC), or empty for a key that never expires"],
      },
      { path: `/dashboard/keys${q}`, fields: { name: "k", environment: "test", scopes: ["messages:send"], expiresAt: "2020-01-01T00:00" }, expected: ["Expires must be in the future"] },
      { path: `/dashboard/webhooks${q}`, fields: { url: "ftp://example.com/x", events: ["nothing.real"] }, expected: ["URL must use http or https", "Events: tick All events, or at least one event"] },
      { path: `/dashboard/accounts${q}`, fields: { name: "", email: "nope" }, expected: ["Name must be 1–200 characters", "E-mail must be an e-mail address"] },
      {
        path: `/dashboard/accounts/${account.id}${q}`,
        fields: { name: "Acme", email: "ops@acme.example", subscriptionStatus: "active", rateLimitPerMinute: "0" },
        expected: ["Rate limit per key must be a whole number from 1 to 1000000, or empty for the server default"],
      },
    ]
    const { row: key } = await (await import("../../src/domain/api-keys")).createApiKey(h.services.ctx, { accountId: account.id, env: "test", scopes: ["messages:send"] })
    cases.push({
      path: `/dashboard/sandbox${q}`,
      fields: { keyId: key.id, fromPhoneId: phone.id, to: "nobody", content: " " },
      expected: ["To must be a phone number (+ and 8–15 digits), a group JID or a …@lid JID"],
    })
    cases.push({ path: `/dashboard/sandbox${q}`, fields: { keyId: key.id, fromPhoneId: phone.id, to: "+14155550199", content: " " }, expected: ["Content is required"] })
    for (const c of cases) {
      const res = await client.post(c.path, c.fields)
      expect({ path: c.path, status: res.status }).toEqual({ path: c.path, status: 400 })
      const shown = formErrors(res.html)
      expect(shown).toEqual(c.expected)
      for (const message of shown) expect(message).not.toMatch(API_WORDS)
    }
  })
})

describe("dashboard: removing a phone", () => {
  test("the list it returns to says which phone was removed; a crafted notice shows nothing", async () => {
    const phone = await h.seedPhone(account.id, "+14155550171")
    const res = await client.post(`/dashboard/phones/${phone.id}/remove?account=${account.id}&env=test`)
    expect(res.status).toBe(303)
    const list = await client.get(res.headers.get("location")!)
    expect(list.html).toContain('<p class="notice" role="status">Removed +14155550171: it is unlinked and any queued sends failed; its messages are kept.</p>')
    const crafted = await client.get(`/dashboard/phones?account=${account.id}&removed=${encodeURIComponent("your bank account")}`)
    expect(crafted.html).not.toContain('class="notice"')
  })
})

describe("dashboard: a message's timeline", () => {
  test("a live message read without a delivery receipt says Delivered was skipped, not 'not yet'", async () => {
    const tenant = await liveTenant(h, { connect: false })
    await h.connectPhone(tenant.phone)
    const sent = await h.request("POST", "/v1/messages/send", { key: tenant.key, body: { fromPhoneId: tenant.phone.phoneNumber, to: "+14155550199", content: "hi" } })
    expect(sent.status).toBe(201)
    await h.settle()
    h.gateway.current(tenant.phone.id).receipt(waMessageIdFor(sent.body.data.id, 0), "read", h.clock.nowMs() + 10)
    await h.settle()
    client = await signIn(h)
    const { html } = await client.get(`/dashboard/messages/${sent.body.data.id}/timeline?account=${tenant.account.id}&env=live`)
    expect(html).toContain(">read</span>")
    expect(html).toContain("<strong>Delivered</strong> <span class=\"muted\">skipped: WhatsApp reported it read without a delivery receipt</span>")
    expect(html).not.toContain("not yet")
  })
})

describe("dashboard: usage words", () => {
  test("the test-data usage page never says a message reached WhatsApp; the live one does", async () => {
    const test = await client.get(`/dashboard/usage?account=${account.id}&env=test`)
    expect(test.html).toContain("<dt>Sent (by the sandbox)</dt>")
    expect(test.html).not.toContain("reached WhatsApp")
    const live = await client.get(`/dashboard/usage?account=${account.id}&env=live`)
    expect(live.html).toContain("<dt>Sent (reached WhatsApp)</dt>")
  })
})

describe("dashboard: sandbox", () => {
  test("sending from the Sandbox page moves the key's last use, and counts no API request", async () => {
    const phone = await h.seedPhone(account.id, "+14155550172")
    const { createApiKey } = await import("../../src/domain/api-keys")
    const { row } = await createApiKey(h.services.ctx, { accountId: account.id, env: "test", scopes: ["messages:send"], name: "sandbox" })
    const sentAtMs = h.clock.nowMs()
    const res = await client.post(`/dashboard/sandbox?account=${account.id}`, { keyId: row.id, fromPhoneId: phone.id, to: "+14155550199", content: "hi" })
    expect(res.status).toBe(303)
    await h.services.usage.flush()
    const stored = h.services.sqlite!.query("SELECT last_used_at_ms AS lastUsedAtMs FROM api_keys WHERE id = ?").get(row.id)
    expect(stored).toEqual({ lastUsedAtMs: sentAtMs })
    const keys = await client.get(`/dashboard/keys?account=${account.id}&env=test`)
    const iso = new Date(sentAtMs).toISOString()
    expect(keys.html).toContain(`<td data-label="Last used"><time datetime="${iso}">`)
    expect((await h.services.usage.reportFor(account.id, "test", "day")).apiRequests.total).toBe(0)
  })
})

describe("dashboard: endpoints that share a URL", () => {
  test("are told apart by id on the list and on a message's deliveries, and adding the second names the first", async () => {
    const { createEndpoint } = await import("../../src/domain/webhook-endpoints")
    const url = "http://127.0.0.1:9/shared"
    const first = await createEndpoint(h.services.ctx, { accountId: account.id, env: "test", url, events: ["*"] })
    const added = await client.post(`/dashboard/webhooks?account=${account.id}&env=test`, { url, events: ["*"] })
    expect(added.status).toBe(201)
    const second = /<dt>Id<\/dt><dd><code>(wh_[0-9a-z]+)<\/code>/.exec(added.html)![1]!
    expect(second).not.toBe(first.id)
    expect(added.html).toContain(`<p class="notice" role="status">This URL is also the URL of ${first.id}: each endpoint signs with its own secret`)
    const list = await client.get(`/dashboard/webhooks?account=${account.id}&env=test`)
    for (const id of [first.id, second]) expect(list.html).toContain(`<code class="muted">${id}</code>`)

    const key = await h.seedKey(account.id)
    const phone = await h.seedPhone(account.id, "+14155550173")
    const sent = await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.id, to: "+14155550199", content: "x" } })
    await h.settle()
    const message = await client.get(`/dashboard/messages/${sent.body.data.id}/timeline?account=${account.id}&env=test`)
    for (const id of [first.id, second]) expect(message.html).toContain(`<code class="muted">${id}</code>`)
  })

  test("a URL no other endpoint uses gets no such notice", async () => {
    const added = await client.post(`/dashboard/webhooks?account=${account.id}&env=test`, { url: "http://127.0.0.1:9/alone", events: ["*"] })
    expect(added.status).toBe(201)
    expect(added.html).not.toContain("This URL is also the URL of")
  })
})
