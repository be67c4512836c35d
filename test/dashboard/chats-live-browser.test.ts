import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import type { Browser, Page } from "playwright-core"
import { pairedPhone, startTlsWorld, type TlsWorld } from "../e2e-live/tls-world"
import { describeInBrowser, launchBrowser } from "../helpers/browser"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import type { SimContact } from "../wa-sim"

/*
 * The inbox of a live phone in Chromium (docs/dashboard.md § "Chats"): wagate as a real process
 * with real Baileys, linked through the TLS front to the WhatsApp simulator. A contact writes on
 * WhatsApp: the chat appears in the open Chats page and the message in the open chat, without a
 * reload; a reply typed in the page reaches the contact's phone in the simulator, quoting the
 * message it answers.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const ME = "+15550096666"
/** The panes poll every 3 s, and a message crosses Baileys and the store first: a loaded machine may take a few polls. */
const ARRIVAL_MS = 30_000
/** Three arrivals and a send on a loaded machine. */
const STEP_TIMEOUT_MS = 120_000

describeInBrowser("dashboard: a live phone's inbox against the WhatsApp simulator", () => {
  let world: TlsWorld
  let browser: Browser
  let page: Page
  let ana: SimContact
  let inbox: string

  beforeAll(async () => {
    world = await startTlsWorld({ command: undefined, keyName: "inbox", scopes: ["messages:read", "messages:send"] })
    ana = world.sim.contact({ phoneNumber: "+15550097777", name: "Ana" })
    const phoneId = await pairedPhone(world, ME, "Front desk")
    const { wagate } = world
    inbox = `${wagate.base}/dashboard/phones/${phoneId}/chats?account=${wagate.accountId}&env=live`
    browser = await launchBrowser()
    page = await browser.newPage({ viewport: { width: 1280, height: 800 } })
    page.on("dialog", () => {
      throw new Error("a dialog opened: injected script ran")
    })
    await page.goto(`${wagate.base}/dashboard/sign-in`)
    await page.getByLabel("Admin token").fill(wagate.adminToken)
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor()
  }, SLOW_HOOK_TIMEOUT_MS * 2)

  afterAll(async () => {
    await browser?.close()
    await world?.stop()
  }, SLOW_HOOK_TIMEOUT_MS)

  const notReloaded = () => page.evaluate(() => (window as unknown as { notReloaded?: boolean }).notReloaded)
  const markWindow = () => page.evaluate(() => void ((window as unknown as { notReloaded?: boolean }).notReloaded = true))

  test("a contact's message appears in the open list and the open chat without a reload, and a reply from the page reaches the contact", async () => {
    await page.goto(inbox)
    await page.locator(".chat-items-scroll").getByText("No chats yet.").waitFor()
    await markWindow()
    await world.sim.sendInbound(ana, { text: "Is the terrace open tonight?" })
    const item = page.locator(".chat-item", { hasText: "Is the terrace open tonight?" })
    await item.waitFor({ timeout: ARRIVAL_MS })
    expect(await item.locator(".badge-unread").textContent()).toBe("1")
    expect(await notReloaded()).toBe(true)

    await item.click()
    await page.locator(".bubble.in", { hasText: "Is the terrace open tonight?" }).waitFor()
    await markWindow()
    const asked = await world.sim.sendInbound(ana, { text: "We would be four <b>people</b>." })
    await page.locator(".bubble.in .text", { hasText: "We would be four" }).waitFor({ timeout: ARRIVAL_MS })
    expect(await page.locator(".bubble.in .text", { hasText: "We would be four" }).textContent()).toBe("We would be four <b>people</b>.")
    await page.locator(".chat-item.open .chat-preview", { hasText: "We would be four" }).waitFor({ timeout: ARRIVAL_MS })
    expect(await notReloaded()).toBe(true)

    const bubble = page.locator(".bubble.in", { hasText: "We would be four" })
    await bubble.hover()
    await bubble.getByRole("link", { name: "Reply" }).click()
    await page.locator(".reply-quote", { hasText: "We would be four" }).waitFor()
    await page.getByLabel("Type a message").fill("Yes, a table for four on the terrace at 20:00.")
    await page.getByRole("button", { name: "Send", exact: true }).click()
    const reply = await world.sim.nextMessage(ana, { timeoutMs: ARRIVAL_MS })
    expect(reply.text).toBe("Yes, a table for four on the terrace at 20:00.")
    const quoted = reply.copies[0]!.message.extendedTextMessage?.contextInfo
    expect(quoted?.stanzaId).toBe(asked)
    await page.locator(".bubble.out", { hasText: "Yes, a table for four on the terrace at 20:00." }).waitFor({ timeout: ARRIVAL_MS })
  }, STEP_TIMEOUT_MS)
})
