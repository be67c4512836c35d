import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { addPhone } from "../../src/domain/phones"
import { describeInBrowser } from "../helpers/browser"
import { createHarness, type Harness } from "../helpers/harness"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { signedInPage, type SignedInPage, WIDTHS } from "./browser-suite"

/*
 * The call policy on a phone's page in Chromium (docs/dashboard.md § "Pages"): the operator
 * ticks "Reject incoming calls", types a reply with markup in it, saves; the page says calls are
 * rejected and shows the text as text; a text over the limit is refused with why. At 1280 and
 * 390 px nothing scrolls sideways; screenshots go to $TMPDIR/wagate-dashboard-calls (printed).
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const HOSTILE_REPLY = `Wir nehmen hier keine Anrufe an – bitte schreiben Sie uns. <img src=x onerror="window.pwned=1"><script>window.pwned=2</script>`
const LONG_PHONE_NAME = "Kundendienstzentrale-Nordrhein-Westfalen Wochenend- und Feiertagsbereitschaft"

describeInBrowser("dashboard: the call policy in Chromium", () => {
  let h: Harness
  let ui: SignedInPage
  let page: Page
  let base: string
  let phoneId: string

  beforeAll(async () => {
    h = await createHarness()
    const account = await h.seedAccount({ name: "Acme Support" })
    const phone = await addPhone(h.services.ctx, account.id, "+14155550123", LONG_PHONE_NAME)
    phoneId = phone.id
    ui = await signedInPage(h, { failOnDialog: true })
    page = ui.page
    base = ui.base
  }, SLOW_HOOK_TIMEOUT_MS)

  afterAll(async () => {
    await ui?.close()
    await h?.close()
  }, SLOW_HOOK_TIMEOUT_MS)

  test("ticking reject and saving a reply: the page says calls are rejected and shows the reply as text; too long a reply is refused with why", async () => {
    await page.goto(`${base}/dashboard/phones/${phoneId}`)
    await page.getByRole("heading", { name: "Calls", level: 2 }).waitFor()
    await page.getByLabel("Reject incoming calls").check()
    await page.getByLabel(/Reply to the caller/).fill(HOSTILE_REPLY)
    await page.getByRole("button", { name: "Save call policy" }).click()
    await page.getByText("Incoming calls are rejected, and each caller gets the reply at most once an hour").waitFor()
    expect(await page.getByLabel(/Reply to the caller/).inputValue()).toBe(HOSTILE_REPLY)
    expect(await page.getByLabel("Reject incoming calls").isChecked()).toBe(true)
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined()
    expect(await h.services.ctx.store.findCallPolicy(phoneId)).toMatchObject({ rejectCalls: true, replyText: HOSTILE_REPLY })

    // The browser keeps to maxlength; a request past it (another client) is refused by the server.
    await page.getByLabel(/Reply to the caller/).evaluate((el) => el.removeAttribute("maxlength"))
    await page.getByLabel(/Reply to the caller/).fill("x".repeat(1025))
    await page.getByRole("button", { name: "Save call policy" }).click()
    await page.getByRole("alert").getByText("replyText must be at most 1024 characters").waitFor()
    expect(await h.services.ctx.store.findCallPolicy(phoneId)).toMatchObject({ replyText: HOSTILE_REPLY })
  })

  test("at 1280 and 390 px the phone's page with its call policy does not scroll sideways; screenshots saved", async () => {
    await h.services.ctx.store.write((q) => q.saveCallPolicy({ phoneId, rejectCalls: true, replyText: "We cannot take calls on this number. Please write to us here and we answer within the hour.", updatedAtMs: h.clock.nowMs() }))
    const folder = join(process.env.TMPDIR ?? tmpdir(), "wagate-dashboard-calls")
    mkdirSync(folder, { recursive: true })
    console.log(`dashboard screenshots: ${folder}`)
    const offenders: string[] = []
    for (const size of WIDTHS) {
      await page.setViewportSize(size)
      await page.goto(`${base}/dashboard/phones/${phoneId}`)
      await page.getByRole("heading", { name: "Calls", level: 2 }).waitFor()
      const w = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }))
      if (w.scroll > w.client) offenders.push(`phone at ${size.width}: scrolls sideways (${w.scroll} > ${w.client})`)
      await page.screenshot({ path: join(folder, `phone-calls-${size.width}.png`), fullPage: true })
    }
    expect(offenders).toEqual([])
  })
})
