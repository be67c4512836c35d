import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { Page } from "playwright-core"
import type { BrokerView } from "../../src/http/dashboard/views/broker"
import { describeInBrowser } from "../helpers/browser"
import { createHarness, type Harness } from "../helpers/harness"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { signedInPage, type SignedInPage, WIDTHS } from "./browser-suite"

/*
 * The overview's RabbitMQ card in Chromium: absent without a broker, then connected, connecting
 * and down as the publisher reports them, with a hostile and overlong error from the broker's
 * side. The screenshots (1280 and 390 px) go to $WAGATE_SHOTS_DIR or a folder under $TMPDIR.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const HOSTILE_ERROR = `connect ECONNREFUSED 127.0.0.1:5672 <img src=x onerror="window.pwned=1"><script>window.pwned=2</script>\u001b[31m${"x".repeat(2000)}`

describeInBrowser("dashboard: the broker's state and backlog on the overview", () => {
  let h: Harness
  let ui: SignedInPage
  let page: Page
  const shots = process.env.WAGATE_SHOTS_DIR ?? join(process.env.TMPDIR ?? "/tmp", "shots-broker")

  beforeAll(async () => {
    h = await createHarness()
    const account = await h.seedAccount({ name: "Acme Support" })
    await h.seedPhone(account.id, "+14155550100")
    ui = await signedInPage(h, { failOnDialog: false })
    page = ui.page
    mkdirSync(shots, { recursive: true })
  }, SLOW_HOOK_TIMEOUT_MS)

  afterAll(async () => {
    await ui?.close()
    await h?.close()
  }, SLOW_HOOK_TIMEOUT_MS)

  async function overview(): Promise<void> {
    await page.goto(`${ui.base}/dashboard`)
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor()
  }

  const card = () => page.getByRole("region", { name: "RabbitMQ" })

  test("without WAGATE_AMQP_URL the overview shows no broker card", async () => {
    await overview()
    expect(await card().count()).toBe(0)
  })

  test("a connected broker shows its state, since when, and an empty backlog", async () => {
    h.services.brokerStatus = async () => ({ state: "connected", sinceMs: Date.UTC(2026, 10, 28, 9, 15, 0), lastError: null, backlog: 0 })
    await overview()
    expect(await card().locator("[data-broker-state]").textContent()).toBe("Connected")
    expect(await card().textContent()).toContain("2026-11-28 09:15:00 UTC")
    expect(await card().textContent()).toContain("none: every event is confirmed")
    expect(await card().getByText("Last error").count()).toBe(0)
  })

  test("a broker that is down shows the backlog waiting and its error as bounded text that runs nothing", async () => {
    const view: BrokerView = { state: "down", sinceMs: Date.UTC(2026, 10, 28, 10, 2, 7), lastError: HOSTILE_ERROR, backlog: 10_000, backlogAtLeast: true }
    h.services.brokerStatus = async () => view
    await overview()
    expect(await card().locator("[data-broker-state]").textContent()).toBe("Down")
    // The count stops at its limit (cheap on every view): the card says "or more".
    expect(await card().textContent()).toContain("10,000 or more events waiting")
    const shown = (await card().locator(".broker-error").textContent()) ?? ""
    expect(shown).toStartWith("connect ECONNREFUSED 127.0.0.1:5672 <img src=x")
    expect(shown).toContain("\\x1b[31m")
    expect(shown.length).toBeLessThanOrEqual(256)
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined()
    expect(await card().locator("img, script").count()).toBe(0)
  })

  test("at 1280 and 390 px the card fits the page in every state (no sideways scroll); screenshots saved", async () => {
    const states: BrokerView[] = [
      { state: "connected", sinceMs: Date.UTC(2026, 10, 28, 9, 15, 0), lastError: null, backlog: 3 },
      { state: "connecting", sinceMs: Date.UTC(2026, 10, 28, 10, 1, 55), lastError: "Socket closed abruptly during opening handshake", backlog: 1 },
      { state: "down", sinceMs: Date.UTC(2026, 10, 28, 10, 2, 7), lastError: HOSTILE_ERROR, backlog: 10_000, backlogAtLeast: true },
    ]
    const offenders: string[] = []
    for (const size of WIDTHS) {
      await page.setViewportSize(size)
      for (const state of states) {
        h.services.brokerStatus = async () => state
        await overview()
        await card().waitFor()
        const w = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }))
        if (w.scroll > w.client) offenders.push(`${state.state} at ${size.width}: scrolls sideways (${w.scroll} > ${w.client})`)
        await page.screenshot({ path: join(shots, `overview-${state.state}-${size.width}.png`), fullPage: true })
      }
    }
    console.log(`broker overview screenshots: ${shots}`)
    expect(offenders).toEqual([])
  })
})
