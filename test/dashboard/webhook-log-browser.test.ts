import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import type { Page } from "playwright-core"
import { describeInBrowser } from "../helpers/browser"
import { openStream, type StreamClient } from "../helpers/event-stream-client"
import { createHarness, type Harness } from "../helpers/harness"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { signedInPage, type SignedInPage, WIDTHS } from "./browser-suite"
import { seedDeliveries } from "./webhook-log-seed"

/*
 * The webhooks area in Chromium: an endpoint's delivery log as a compact table, filtered and
 * paged, resend through the CSRF-checked form, and the open event streams beside the endpoints.
 * Screenshots at 1280 and 390 px go to $WAGATE_SHOTS (when set).
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

describeInBrowser("dashboard: the webhooks area in Chromium", () => {
  let h: Harness
  let ui: SignedInPage
  let page: Page
  let endpointId: string
  let accountId: string
  const streams: StreamClient[] = []

  beforeAll(async () => {
    h = await createHarness()
    const account = await h.seedAccount({ name: "Acme Support" })
    accountId = account.id
    endpointId = await seedDeliveries(h, account.id, 60)
    ui = await signedInPage(h, { failOnDialog: false })
    page = ui.page
  }, SLOW_HOOK_TIMEOUT_MS)

  afterAll(async () => {
    for (const s of streams) await s.close()
    await ui?.close()
    await h?.close()
  }, SLOW_HOOK_TIMEOUT_MS)

  const logUrl = (extra = "") => `${ui.base}/dashboard/webhooks/${endpointId}?account=${accountId}&env=test${extra}`

  async function shoot(name: string): Promise<void> {
    const dir = process.env.WAGATE_SHOTS
    for (const size of WIDTHS) {
      await page.setViewportSize(size)
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(size.width)
      if (dir) await page.screenshot({ path: `${dir}/${name}-${size.width}.png`, fullPage: true })
    }
    await page.setViewportSize(WIDTHS[0])
  }

  test("the delivery log is a table of 25 rows per page whose hostile answers stay text, with a link to each message", async () => {
    await page.setViewportSize(WIDTHS[0])
    await page.goto(logUrl())
    expect(await page.locator(".delivery-log tbody tr").count()).toBe(25)
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined()
    expect(await page.locator(".delivery-log a", { hasText: "message" }).first().getAttribute("href")).toContain("/dashboard/messages/msg_seed0057")
    expect(await page.locator("form.fields input[name=url]").count()).toBe(0)
    await shoot("log")
  })

  test("a page of the log (25 deliveries) fits in two 800 px screens at 1280 px", async () => {
    await page.goto(logUrl("&event=message.*"))
    const rows = await page.locator(".delivery-log tbody tr").count()
    expect(rows).toBe(25)
    await page.goto(logUrl())
    const height = await page.evaluate(() => document.body.scrollHeight)
    console.log(`webhook log at 1280 px with 25 rows: ${height} px`)
    expect(height).toBeLessThan(1_600)
  })

  test("filters by status and event, and pages within the filter", async () => {
    await page.goto(logUrl())
    await page.selectOption("select[name=status]", "failed")
    await page.selectOption("select[name=event]", "message.*")
    await page.click("form.filters button")
    await page.waitForURL(/status=failed/)
    const statuses = await page.locator(".delivery-log tbody tr td:nth-child(2)").allInnerTexts()
    expect(statuses.length).toBeGreaterThan(0)
    expect(new Set(statuses.map((s) => s.replace(/^Status: /, "").trim()))).toEqual(new Set(["failed"]))
    const events = await page.locator(".delivery-log tbody tr td:nth-child(1) strong").allInnerTexts()
    expect(events.every((e) => e.startsWith("message."))).toBe(true)
    await shoot("log-filtered")
  })

  test("resend makes a new delivery through the CSRF-checked form", async () => {
    await page.goto(logUrl("&status=failed"))
    const before = await page.locator(".delivery-log tbody tr").count()
    await page.locator(".delivery-log button", { hasText: "Resend" }).first().click()
    await page.waitForLoadState("load")
    await page.goto(logUrl("&status=pending"))
    expect(await page.locator(".delivery-log tbody tr td:nth-child(1)", { hasText: "resend of" }).count()).toBe(1)
    expect(before).toBeGreaterThan(0)
  })

  test("the webhooks page lists this node's open event streams per key, and the endpoint form is on its own page", async () => {
    const keyA = await h.seedKey(accountId, { env: "test", scopes: ["events:read"] })
    const keyB = await h.seedKey(accountId, { env: "test", scopes: ["events:read"] })
    for (const key of [keyA, keyA, keyB]) {
      const s = await openStream(ui.base, "/v1/events", { authorization: `Bearer ${key}` })
      expect(s.status).toBe(200)
      streams.push(s)
    }
    await page.goto(`${ui.base}/dashboard/webhooks?account=${accountId}&env=test`)
    const rows = page.locator("section[aria-labelledby=streams] tbody tr")
    expect(await rows.count()).toBe(2)
    expect(await rows.allInnerTexts()).toEqual(expect.arrayContaining([expect.stringMatching(/\b2\b/), expect.stringMatching(/\b1\b/)]))
    expect(await page.locator("section[aria-labelledby=streams]").innerText()).toContain("this node")
    await shoot("webhooks")
    await page.goto(`${ui.base}/dashboard/webhooks/${endpointId}/edit?account=${accountId}&env=test`)
    expect(await page.locator("form.fields input[name=url]").count()).toBe(1)
    await shoot("edit")
  })
})
