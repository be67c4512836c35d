import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { describeInBrowser } from "../helpers/browser"
import { createHarness, type Harness } from "../helpers/harness"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { signedInPage, type SignedInPage, WIDTHS } from "./browser-suite"

/*
 * The Chats page in Chromium (docs/dashboard.md § "Chats"): the operator opens a customer's chat,
 * sends a reply and sees its bubble; a customer's message simulated through the app
 * (POST /v1/sandbox/inbound) appears in the open chat and the list without a reload. At 1280 px
 * both panes show; at 390 px one at a time, with a back link. Screenshots go to
 * $WAGATE_SHOTS or /tmp/shots-h-inbox.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const CUSTOMER = "+14155550199"
const HOSTILE_TEXT = `Geht klar <img src=x onerror="window.pwned=1"><script>window.pwned=2</script>`
/** The panes poll every 3 s; a loaded machine may take a few polls. */
const ARRIVAL_MS = 20_000

describeInBrowser("dashboard: the Chats page in Chromium", () => {
  let h: Harness
  let ui: SignedInPage
  let page: Page
  let base: string
  let inbox: string
  let key: string
  let phoneId: string

  const customerSays = async (content: string, from = CUSTOMER) => {
    const res = await h.request("POST", "/v1/sandbox/inbound", { key, body: { fromPhoneId: phoneId, from, content } })
    expect(res.status).toBe(201)
  }

  beforeAll(async () => {
    h = await createHarness()
    const account = await h.seedAccount({ name: "Trattoria Roma" })
    const phone = await h.seedPhone(account.id, "+14155550123")
    phoneId = phone.id
    key = await h.seedKey(account.id, { env: "test", scopes: ["messages:send", "messages:read"] })
    for (let i = 0; i < 30; i++) await customerSays(`Reservation question number ${i}`, `+1415555${String(1000 + i)}`)
    await customerSays("Do you have a table for four tonight?")
    ui = await signedInPage(h, { failOnDialog: true })
    page = ui.page
    base = ui.base
    inbox = `${base}/dashboard/phones/${phoneId}/chats?account=${account.id}&env=test`
  }, SLOW_HOOK_TIMEOUT_MS)

  afterAll(async () => {
    await ui?.close()
    await h?.close()
  }, SLOW_HOOK_TIMEOUT_MS)

  test("opening a chat, sending a reply shows its bubble, and a customer's message appears without a reload", async () => {
    await page.goto(inbox)
    await page.locator(".chat-item", { hasText: "Do you have a table for four tonight?" }).click()
    await page.locator(".bubble.in", { hasText: "Do you have a table for four tonight?" }).waitFor()
    await page.getByLabel("Type a message").fill("Yes, at 19:30 by the window.")
    await page.getByRole("button", { name: "Send", exact: true }).click()
    await page.locator(".bubble.out", { hasText: "Yes, at 19:30 by the window." }).waitFor()
    // A marker on the window survives only if the page is not reloaded.
    await page.evaluate(() => ((window as unknown as { notReloaded?: boolean }).notReloaded = true))
    await customerSays(HOSTILE_TEXT)
    await page.locator(".bubble.in .text", { hasText: "Geht klar" }).waitFor({ timeout: ARRIVAL_MS })
    expect(await page.locator(".bubble.in .text", { hasText: "Geht klar" }).textContent()).toBe(HOSTILE_TEXT)
    await page.locator(".chat-item.open .chat-preview", { hasText: "Geht klar" }).waitFor({ timeout: ARRIVAL_MS })
    expect(await page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)).toBe(true)
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined()
  })

  test("Reply quotes a message in the next send, React adds an emoji, and Mark read clears the chat's unread count", async () => {
    await customerSays("Can we bring a birthday cake?")
    await page.goto(`${inbox}&chat=${encodeURIComponent(CUSTOMER)}`)
    const asked = page.locator(".bubble.in", { hasText: "Can we bring a birthday cake?" })
    await asked.hover()
    await asked.getByRole("link", { name: "Reply" }).click()
    await page.locator(".reply-quote", { hasText: "Can we bring a birthday cake?" }).waitFor()
    await page.getByLabel("Type a message").fill("Of course, we'll keep it cold.")
    await page.getByRole("button", { name: "Send", exact: true }).click()
    await page.locator(".bubble.out", { hasText: "Of course, we'll keep it cold." }).locator(".quote", { hasText: "Can we bring a birthday cake?" }).waitFor()
    const again = page.locator(".bubble.in", { hasText: "Can we bring a birthday cake?" })
    await again.hover()
    await again.getByText("React").click()
    await again.getByRole("button", { name: "React 🙏" }).click()
    await page.locator(".bubble.in", { hasText: "Can we bring a birthday cake?" }).locator(".reactions", { hasText: "🙏" }).waitFor()
    expect(await page.locator(".chat-item.open .badge-unread").count()).toBe(1)
    await page.getByRole("button", { name: "Mark read" }).click()
    await page.locator(".chat-item.open:not(.unread)").waitFor()
    expect(await page.locator(".chat-item.open .badge-unread").count()).toBe(0)
  })

  test("at 1280 px both panes show, at 390 px one at a time with a back link; nothing scrolls sideways; screenshots saved", async () => {
    const folder = process.env.WAGATE_SHOTS ?? "/tmp/shots-h-inbox"
    mkdirSync(folder, { recursive: true })
    const offenders: string[] = []
    const chat = `${inbox}&chat=${encodeURIComponent(CUSTOMER)}`
    for (const size of WIDTHS) {
      await page.setViewportSize(size)
      await page.goto(chat)
      await page.locator(".bubble").first().waitFor()
      const listShown = await page.locator(".chat-list").isVisible()
      expect(listShown).toBe(size.width > 640)
      await page.screenshot({ path: join(folder, `chat-${size.width}.png`) })
      if (size.width <= 640) {
        await page.getByRole("link", { name: "← Chats" }).click()
        await page.locator(".chat-list").waitFor()
        expect(await page.locator(".chat-pane").isVisible()).toBe(false)
      } else await page.goto(inbox)
      await page.screenshot({ path: join(folder, `list-${size.width}.png`) })
      const w = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }))
      if (w.scroll > w.client) offenders.push(`chats at ${size.width}: scrolls sideways (${w.scroll} > ${w.client})`)
    }
    expect(offenders).toEqual([])
  })
})
