import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { createEndpoint } from "../../src/domain/webhook-endpoints"
import type { AccountRow } from "../../src/store/accounts"
import type { PhoneRow } from "../../src/store/phones"
import { createHarness, type Harness } from "../helpers/harness"
import { expectEscaped, HOSTILE, signIn, type DashboardClient } from "../helpers/dashboard"
import { waitUntil, WebhookReceiver } from "../helpers/webhook-receiver"

let h: Harness
let client: DashboardClient
let account: AccountRow
let phone: PhoneRow
let receiver: WebhookReceiver
beforeEach(async () => {
  h = await createHarness()
  receiver = new WebhookReceiver()
  account = await h.seedAccount({ name: "Acme" })
  phone = await h.seedPhone(account.id, "+14155550160")
  client = await signIn(h)
})
afterEach(async () => {
  await receiver.stop()
  await h.close()
})

const secretOf = (html: string) => /<code id="new-secret">([^<]+)<\/code>/.exec(html)?.[1] ?? null
/** The one delivery of these tests, straight from the store. */
const delivery = () => h.services.sqlite!.query("SELECT attempt_count AS attempts, status FROM webhook_deliveries").get() as { attempts: number; status: string } | null
const endpointIds = () => (h.services.sqlite!.query("SELECT id FROM webhook_endpoints").all() as { id: string }[]).map((r) => r.id)

async function addThroughPage(url: string, events: string[] = ["*"]) {
  return client.post(`/dashboard/webhooks?account=${account.id}&env=test`, { url, events })
}

describe("dashboard: webhooks", () => {
  test("'Add endpoint' with its 'URL' field shows the signing secret once", async () => {
    const form = await client.get(`/dashboard/webhooks?account=${account.id}`)
    expect(form.html).toContain('<label for="endpoint-url">URL</label>')
    expect(form.html).toContain(">Add endpoint</button>")
    const res = await addThroughPage(receiver.url())
    expect(res.status).toBe(201)
    const secret = secretOf(res.html)!
    expect(secret).toStartWith("whsec_")
    expect(res.html).toContain('data-copy-target="new-secret"')
    const [id] = endpointIds()
    const again = await client.get(`/dashboard/webhooks/${id}`)
    expect(again.html).not.toContain(secret)
    const list = await client.get(`/dashboard/webhooks?account=${account.id}&env=test`)
    expect(list.html).toContain(receiver.url())
    expect((await client.get(`/dashboard/webhooks?account=${account.id}&env=live`)).html).not.toContain(receiver.url())
  })

  test("the delivery log shows a row per delivery with its last status code and answer, and resends", async () => {
    await addThroughPage(receiver.url(), ["message.sent"])
    const [id] = endpointIds()
    receiver.respondWith({ status: 500, body: "receiver broke" })
    const key = await h.seedKey(account.id)
    expect((await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.id, to: "+14155550199", content: "hi" } })).status).toBe(201)
    await h.advance(10)
    await receiver.waitFor(1)
    await waitUntil(() => delivery()?.attempts === 1)
    await h.settle()
    const failing = await client.get(`/dashboard/webhooks/${id}`)
    expect(failing.html).toMatch(/<strong title="whd_[0-9a-z]+">message.sent<\/strong>/)
    expect(failing.html).toContain(">HTTP 500 <code")
    expect(failing.html).toContain("receiver broke")
    const overview = await client.get(`/dashboard?account=${account.id}&env=test`)
    expect(overview.html).toContain("HTTP 500 after 1 attempt (retrying)")
    // The retry succeeds; then the operator resends the delivered event.
    await h.advance(60_000)
    await receiver.waitFor(2)
    await waitUntil(() => delivery()?.status === "succeeded")
    await h.settle()
    const delivered = await client.get(`/dashboard/webhooks/${id}`)
    expect(delivered.html).toContain(">HTTP 200")
    const deliveryId = /deliveries\/(whd_[0-9a-z]+)\/resend/.exec(delivered.html)![1]!
    const resend = await client.post(`/dashboard/webhooks/${id}/deliveries/${deliveryId}/resend`)
    expect(resend.status).toBe(303)
    await h.advance(10)
    await receiver.waitFor(3)
    expect((await client.get(`/dashboard/webhooks/${id}`)).html).toContain(`resend of <code class="clip" title="${deliveryId}">${deliveryId}</code>`)
  })

  test("edit events and enabled, rotate the secret (shown once), delete", async () => {
    const endpoint = await createEndpoint(h.services.ctx, { accountId: account.id, env: "test", url: receiver.url(), events: ["*"] })
    const saved = await client.post(`/dashboard/webhooks/${endpoint.id}`, { url: receiver.url("/other"), events: ["message.failed", "message.read"] })
    expect(saved.status).toBe(303)
    const row = h.services.sqlite!.query("SELECT url, events, enabled FROM webhook_endpoints").get()
    expect(row).toEqual({ url: receiver.url("/other"), events: "message.failed message.read", enabled: 0 })
    const rotated = await client.post(`/dashboard/webhooks/${endpoint.id}/rotate`)
    expect(rotated.status).toBe(200)
    const secret = secretOf(rotated.html)!
    expect(secret).not.toBe(endpoint.secret)
    expect(rotated.html).toContain("still signs until")
    expect((await client.get(`/dashboard/webhooks/${endpoint.id}`)).html).not.toContain(secret)
    const deleted = await client.post(`/dashboard/webhooks/${endpoint.id}/delete`)
    expect(deleted.status).toBe(303)
    expect(endpointIds()).toEqual([])
  })

  test("the domain's rules apply: a bad URL or no event is a 400 with the reason, and nothing is added", async () => {
    const badUrl = await addThroughPage("ftp://example.com/x")
    expect(badUrl.status).toBe(400)
    expect(badUrl.html).toContain("URL must use http or https")
    const noEvents = await addThroughPage(receiver.url(), [])
    expect(noEvents.status).toBe(400)
    expect(noEvents.html).toContain("Events: tick All events, or at least one event")
    expect(endpointIds()).toEqual([])
  })

  test("a URL with a control character is a 400 naming the URL by its origin only, and nothing is added", async () => {
    const res = await addThroughPage("https://hooks.example.com/t0ken\u0007?key=s3cret")
    expect(res.status).toBe(400)
    expect(res.html).toContain("URL must not contain control characters: found \\x07 at character 32 (the URL for https://hooks.example.com)")
    expect(endpointIds()).toEqual([])
  })

  test("endpoint URLs are escaped on the list, the endpoint page and the overview", async () => {
    // Stored normalised, the markup arrives percent-encoded; the `&` it keeps must still be escaped.
    const url = `https://example.com/a&b/${HOSTILE.script}${HOSTILE.attribute}`
    const endpoint = await createEndpoint(h.services.ctx, { accountId: account.id, env: "test", url, events: ["*"] })
    expect(endpoint.url).toBe(new URL(url).href)
    expectEscaped((await client.get(`/dashboard/webhooks?account=${account.id}`)).html, [endpoint.url])
    expectEscaped((await client.get(`/dashboard/webhooks/${endpoint.id}`)).html, [endpoint.url])
  })

  test("the log filters by status and by event group in the store, pages within the filter, and keeps a hostile answer as text", async () => {
    const { seedDeliveries, HOSTILE_ANSWER } = await import("./webhook-log-seed")
    const id = await seedDeliveries(h, account.id, 60)
    const base = `/dashboard/webhooks/${id}?account=${account.id}&env=test`
    const all = await client.get(base)
    expect(all.html.match(/<tr>/g)!.length - 1).toBe(25)
    expectEscaped(all.html, [HOSTILE_ANSWER.slice(0, 30)])
    expect(all.html).not.toContain("<script>window.pwned")
    const failed = await client.get(`${base}&status=failed&event=message.*`)
    const events = [...failed.html.matchAll(/">([a-z_]+\.[a-z_]+)<\/strong>/g)].map((m) => m[1])
    expect(events.length).toBe(9)
    expect(events.every((e) => e!.startsWith("message."))).toBe(true)
    expect(failed.html).not.toContain('badge ok">succeeded')
    // 36 deliveries are message events; the second page holds the 11 after the first 25.
    const first = await client.get(`${base}&event=message.*`)
    const older = /href="([^"]+before=[^"]+)">Older/.exec(first.html)![1]!.replaceAll("&amp;", "&")
    expect(older).toContain("event=message.*")
    const second = await client.get(older)
    expect([...second.html.matchAll(/">(message\.[a-z_]+)<\/strong>/g)].length).toBe(11)
    expect((await client.get(`${base}&event=nothing.real`)).html).toContain("No delivery matches these filters.")
  })

  test("resend without the CSRF token is refused and makes no delivery", async () => {
    const { seedDeliveries } = await import("./webhook-log-seed")
    const id = await seedDeliveries(h, account.id, 5)
    const count = () => (h.services.sqlite!.query("SELECT count(*) AS n FROM webhook_deliveries").get() as { n: number }).n
    const before = count()
    const res = await client.post(`/dashboard/webhooks/${id}/deliveries/whd_seed0000/resend`, {}, { csrf: null })
    expect(res.status).toBe(403)
    expect(count()).toBe(before)
    expect((await client.post(`/dashboard/webhooks/${id}/deliveries/whd_seed0000/resend`)).status).toBe(303)
    expect(count()).toBe(before + 1)
  })
})
