import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import type { Browser, Page } from "playwright-core"
import { describeInBrowser, launchBrowser } from "../helpers/browser"
import { createHarness, type Harness } from "../helpers/harness"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { WIDTHS } from "./browser-suite"

/*
 * The inbox with a busy phone's data in Chromium (docs/dashboard.md § "Chats" and § "Pages"):
 * 300 chats with names, pins, unread counts and long previews, and a thread of 200 messages.
 * "Unread first" reorders the list, the search finds a chat far down, "More chats" adds 50, and
 * the History on pairing form saves and refuses. At 1280 and 390 px nothing scrolls sideways;
 * screenshots go to $WAGATE_SHOTS or /tmp/shots-dash.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const FIRST = ["Giulia", "Marco", "Aisha", "Jonas", "Mei", "Santiago", "Olga", "Kwame", "Priya", "Lukas", "Fatima", "Tomás"]
const LAST = ["Bianchi", "Rossi", "Okafor", "Schmidt", "Chen", "García", "Ivanova", "Mensah", "Sharma", "Novak", "Haddad", "Silva"]
const LINES = [
  "Is the table for four still free tonight at 20:00?",
  "Thanks!",
  "Can you send me the menu as a PDF, please? We have two vegetarians and one guest who cannot eat nuts at all.",
  "On my way, 10 minutes late, sorry 🙏",
  "Perfect, see you then",
  "Do you deliver to Kreuzberg on Sundays or only on weekdays?",
]
const THREAD_WITH = "+14155559000"

describeInBrowser("dashboard: the inbox with a busy phone in Chromium", () => {
  let h: Harness
  let server: ReturnType<typeof Bun.serve>
  let browser: Browser
  let page: Page
  let base: string
  let inbox: string
  let phoneId: string
  let key: string
  const folder = process.env.WAGATE_SHOTS ?? "/tmp/shots-dash"

  const say = async (from: string, content: string) => {
    const res = await h.request("POST", "/v1/sandbox/inbound", { key, body: { fromPhoneId: phoneId, from, content } })
    expect(res.status).toBe(201)
  }
  const reply = async (to: string, content: string) => {
    const res = await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phoneId, to, content } })
    expect(res.status).toBeLessThan(300)
  }

  beforeAll(async () => {
    h = await createHarness()
    const account = await h.seedAccount({ name: "Trattoria Roma" })
    phoneId = (await h.seedPhone(account.id, "+14155550123")).id
    key = await h.seedKey(account.id, { env: "test", scopes: ["messages:send", "messages:read"] })
    for (let i = 0; i < 300; i++) {
      const from = `+1415555${String(1000 + i)}`
      await say(from, LINES[i % LINES.length]!)
      if (i % 3 === 0) await reply(from, "Yes, of course. See you soon!")
      h.clock.advance(7 * 60_000)
    }
    const names = Array.from({ length: 300 }, (_, i) => ({ phoneId, env: "test" as const, contactId: `+1415555${String(1000 + i)}`, name: i % 4 === 3 ? null : `${FIRST[i % 12]} ${LAST[(i * 7) % 12]}`, pushName: `${FIRST[(i + 5) % 12]}`, updatedAtMs: h.clock.nowMs() }))
    await h.services.ctx.store.write((q) => q.upsertContacts(names))
    // As on a real phone, most chats are read; one in nine still waits for an answer.
    for (let i = 0; i < 300; i++) if (i % 9 !== 0) await h.services.ctx.store.write((q) => q.applyChatChange(phoneId, "test", `+1415555${String(1000 + i)}`, { unread: false }, h.clock.nowMs()))
    for (const pinned of ["+14155551007", "+14155551299"]) await h.services.ctx.store.write((q) => q.applyChatChange(phoneId, "test", pinned, { pinned: true }, h.clock.nowMs()))
    for (let i = 0; i < 100; i++) {
      await say(THREAD_WITH, LINES[i % LINES.length]!)
      await reply(THREAD_WITH, i % 2 === 0 ? "Noted, thank you." : "We have a table by the window at 19:30 or on the terrace at 21:00; which one would you like?")
      h.clock.advance(3 * 60_000)
    }
    server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => h.app.handle(request) })
    base = `http://127.0.0.1:${server.port}`
    inbox = `${base}/dashboard/phones/${phoneId}/chats?account=${account.id}&env=test`
    browser = await launchBrowser()
    page = await browser.newPage({ viewport: WIDTHS[0] })
    page.on("dialog", () => {
      throw new Error("a dialog opened: injected script ran")
    })
    await page.goto(`${base}/dashboard/sign-in`)
    await page.getByLabel("Admin token").fill(await h.adminToken())
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor()
    mkdirSync(folder, { recursive: true })
  }, SLOW_HOOK_TIMEOUT_MS * 2)

  afterAll(async () => {
    await browser?.close()
    server?.stop(true)
    await h?.close()
  })

  const names = () => page.locator(".chat-item .chat-name").allTextContents()

  test("Unread first puts unread chats after the pinned ones; the search finds a chat far down; More chats adds 50", async () => {
    await page.setViewportSize(WIDTHS[0])
    await page.goto(inbox)
    expect(await page.locator(".chat-item").count()).toBe(50)
    const newestFirst = await names()
    await page.getByRole("switch", { name: "Unread first" }).click()
    await page.locator('.chat-order[aria-checked="true"]').waitFor()
    const unreadFirst = await page.locator(".chat-item").evaluateAll((items) => items.map((li) => [li.querySelector(".mark.tag")?.textContent === "Pinned", li.classList.contains("unread")]))
    // Pinned chats on top, then every unread chat before any read one.
    const firstRead = unreadFirst.findIndex(([pinned, unread]) => !pinned && !unread)
    expect(firstRead === -1 || unreadFirst.slice(firstRead).every(([pinned, unread]) => !pinned && !unread)).toBe(true)
    expect(await names()).not.toEqual(newestFirst)
    await page.getByRole("switch", { name: "Unread first" }).click()
    await page.locator('.chat-order[aria-checked="false"]').waitFor()
    await page.getByRole("link", { name: "More chats" }).click()
    await page.locator(".chat-item").nth(99).waitFor()
    expect(await page.locator(".chat-item").count()).toBe(100)
    // The oldest chat (+14155551000, "Giulia Bianchi"), searched by its number written with spaces.
    await page.getByLabel("Search chats").fill("+1 415 555 1000")
    await page.getByLabel("Search chats").press("Enter")
    await page.waitForFunction(() => document.querySelectorAll(".chat-item").length === 1)
    expect(await names()).toEqual(["Giulia Bianchi"])
  })

  test("History on pairing: saving full history for a year says so; a value out of range is refused with why", async () => {
    await page.setViewportSize(WIDTHS[0])
    await page.goto(`${base}/dashboard/phones/${phoneId}`)
    await page.getByRole("heading", { name: "History on pairing", level: 2 }).waitFor()
    expect(await page.getByText("It takes effect when you pair the phone.").count()).toBe(1)
    await page.getByLabel("History to fetch").selectOption("full")
    await page.getByLabel(/Keep messages of the last/).fill("365")
    await page.getByRole("button", { name: "Save history settings" }).click()
    await page.getByText("The next linking asks WhatsApp for all the history the phone holds and keeps messages of the last 365 days.").waitFor()
    expect(await h.services.ctx.store.findHistorySettings(phoneId)).toMatchObject({ historySync: "full", historyDays: 365 })
    // The browser keeps to min/max; another client past them is refused by the server.
    await page.getByLabel(/Keep messages of the last/).evaluate((el) => (el.removeAttribute("max"), el.removeAttribute("min")))
    await page.getByLabel(/Keep messages of the last/).fill("5000")
    await page.getByRole("button", { name: "Save history settings" }).click()
    await page.getByRole("alert").getByText("historyDays must be a whole number from 1 to 3650").waitFor()
    expect(await page.getByLabel(/Keep messages of the last/).inputValue()).toBe("5000")
    expect(await h.services.ctx.store.findHistorySettings(phoneId)).toMatchObject({ historyDays: 365 })
  })

  test("at 1280 and 390 px the list, the long thread and the phone's page do not scroll sideways; screenshots saved", async () => {
    console.log(`inbox screenshots: ${folder}`)
    const offenders: string[] = []
    const check = async (what: string, width: number) => {
      const w = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }))
      if (w.scroll > w.client) offenders.push(`${what} at ${width}: scrolls sideways (${w.scroll} > ${w.client})`)
    }
    for (const size of WIDTHS) {
      await page.setViewportSize(size)
      await page.goto(inbox)
      await page.locator(".chat-item").first().waitFor()
      await check("list", size.width)
      await page.screenshot({ path: join(folder, `list-${size.width}.png`) })
      await page.goto(`${inbox}&order=unread`)
      await page.screenshot({ path: join(folder, `list-unread-first-${size.width}.png`) })
      await page.goto(`${inbox}&chat=${encodeURIComponent(THREAD_WITH)}`)
      await page.locator(".bubble").first().waitFor()
      await check("thread", size.width)
      await page.screenshot({ path: join(folder, `thread-${size.width}.png`) })
      await page.goto(`${base}/dashboard/phones/${phoneId}`)
      await page.getByRole("heading", { name: "History on pairing", level: 2 }).waitFor()
      await check("phone", size.width)
      await page.screenshot({ path: join(folder, `phone-${size.width}.png`), fullPage: true })
    }
    expect(offenders).toEqual([])
  })
})
