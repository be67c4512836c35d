import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { createApiKey } from "../../src/domain/api-keys"
import { setCallPolicy } from "../../src/domain/call-actions"
import { addPhone } from "../../src/domain/phones"
import { describeInBrowser } from "../helpers/browser"
import { createHarness, type Harness } from "../helpers/harness"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { signedInPage, type SignedInPage, WIDTHS } from "./browser-suite"

/*
 * The Sandbox page's simulation forms in Chromium (docs/dashboard.md § "Sandbox: a customer's
 * message and call"): the operator makes a customer answer a sent message and lands on the
 * inbound message's page, which shows the text as text and names the quoted message; a call
 * under a rejecting policy says so. At 1280 and 390 px nothing scrolls sideways; screenshots go to
 * $TMPDIR/wagate-dashboard-sandbox (printed).
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const HOSTILE_TEXT = `Danke! Passt mir gut <img src=x onerror="window.pwned=1"><script>window.pwned=2</script>`
const LONG_PHONE_NAME = "Kundendienstzentrale-Nordrhein-Westfalen Wochenend- und Feiertagsbereitschaft"

describeInBrowser("dashboard: the sandbox's simulation forms in Chromium", () => {
  let h: Harness
  let ui: SignedInPage
  let page: Page
  let base: string
  let accountId: string
  let phoneId: string
  let sentId: string

  beforeAll(async () => {
    h = await createHarness()
    const account = await h.seedAccount({ name: "Acme Support" })
    accountId = account.id
    const phone = await addPhone(h.services.ctx, account.id, "+14155550123", LONG_PHONE_NAME)
    phoneId = phone.id
    await createApiKey(h.services.ctx, { accountId, env: "test", scopes: ["messages:send", "messages:read"], name: "Sandbox key" })
    const key = await h.seedKey(accountId)
    sentId = (await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "Your table for four is booked for 19:30." } })).body.data.id
    ui = await signedInPage(h, { failOnDialog: true })
    page = ui.page
    base = ui.base
  }, SLOW_HOOK_TIMEOUT_MS)

  afterAll(async () => {
    await ui?.close()
    await h?.close()
  }, SLOW_HOOK_TIMEOUT_MS)

  test("a customer's answer quoting a sent message opens its inbound page with the text shown as text", async () => {
    await page.goto(`${base}/dashboard/sandbox?account=${accountId}&env=test`)
    await page.getByRole("heading", { name: "Simulate a customer's message", level: 2 }).waitFor()
    await page.locator("#inbound-content").fill(HOSTILE_TEXT)
    await page.getByLabel("Reply to (optional)").fill(sentId)
    await page.getByRole("button", { name: "Receive message" }).click()
    await page.getByRole("heading", { name: "Content", level: 2 }).waitFor()
    expect(page.url()).toContain("/dashboard/messages/inmsg_")
    expect(await page.locator("p.content").textContent()).toBe(HOSTILE_TEXT)
    expect(await page.getByText(sentId).count()).toBeGreaterThan(0)
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined()
  })

  test("a call under a rejecting policy says it was rejected and the reply text sent", async () => {
    await setCallPolicy(h.services.ctx, phoneId, { rejectCalls: true, replyText: "Please write to us here." })
    await page.goto(`${base}/dashboard/sandbox?account=${accountId}&env=test`)
    await page.getByLabel("Video call").check()
    await page.getByRole("button", { name: "Ring the phone" }).click()
    await page.getByRole("status").getByText(/was rejected by the phone's call policy; the reply text was sent/).waitFor()
    expect(await page.getByLabel("Video call").isChecked()).toBe(true)
  })

  test("at 1280 and 390 px the Sandbox page with a refused form does not scroll sideways; screenshots saved", async () => {
    const folder = join(process.env.TMPDIR ?? tmpdir(), "wagate-dashboard-sandbox")
    mkdirSync(folder, { recursive: true })
    console.log(`dashboard screenshots: ${folder}`)
    const offenders: string[] = []
    for (const size of WIDTHS) {
      await page.setViewportSize(size)
      await page.goto(`${base}/dashboard/sandbox?account=${accountId}&env=test`)
      await page.locator("#inbound-from").fill("0170 1234567")
      await page.getByRole("button", { name: "Receive message" }).click()
      await page.getByRole("alert").getByText(/Customer's number must be/).waitFor()
      const w = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }))
      if (w.scroll > w.client) offenders.push(`sandbox at ${size.width}: scrolls sideways (${w.scroll} > ${w.client})`)
      await page.screenshot({ path: join(folder, `sandbox-simulate-${size.width}.png`), fullPage: true })
    }
    expect(offenders).toEqual([])
  })
})
