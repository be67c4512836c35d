import { afterAll, beforeAll, expect, test } from "bun:test"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Browser, BrowserContext, Page } from "playwright-core"
import { PNG, poll, WagateProcess } from "../e2e-live/live-world"
import { startWaSim, type WaSim } from "../wa-sim/sim"
import { describeInBrowser, launchBrowser } from "../helpers/browser"
import { WebhookReceiver } from "../helpers/webhook-receiver"
import type { Harness } from "../helpers/harness"

/*
 * The dashboard in a real browser (Debian's Chromium through playwright-core) against a real
 * wagate process on 127.0.0.1, its live side connected to the WhatsApp simulator. The tests run
 * in order on one browser context: sign in, add a phone, pair it by QR, create a key, and on.
 * browser.test.ts runs them against wagate from source, browser-binary.test.ts against the
 * compiled executable.
 */

const PHONE = "+15550101010"
/** A second phone, paired by code. */
const CODE_PHONE = "+15550104545"
const SETUP_TIMEOUT_MS = 60_000
const STEP_TIMEOUT_MS = 30_000
/** Names long enough to widen a page that lets them (issue 19: the account switcher did at 390 px). */
const LONG_ACCOUNT_NAME = "Northwind Traders International Customer Support Operations for Europe, the Middle East and Africa"
const LONG_PHONE_NAME = "Kundendienstzentrale-Nordrhein-Westfalen Wochenend- und Feiertagsbereitschaft"
const LONG_ENDPOINT_PATH = "/hooks/wagate/tenants/northwind-traders-international/environments/test/receivers/primary"
/** The two widths every page is designed for (issue 19). */
export const WIDTHS = [
  { width: 1280, height: 800 },
  { width: 390, height: 844 },
] as const

/**
 * Runs in the page: every word (a run without white space) of a table cell whose text lands on
 * more than one line, i.e. a word or an id the table split.
 */
export function splitWordsInTables(): string[] {
  const split: string[] = []
  for (const cell of document.querySelectorAll("td, th")) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT)
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      // Text nobody sees (inside a closed confirmation) is laid out but never shown.
      if (!node.parentElement?.checkVisibility()) continue
      for (const match of (node.textContent ?? "").matchAll(/\S+/g)) {
        const range = document.createRange()
        range.setStart(node, match.index!)
        range.setEnd(node, match.index! + match[0].length)
        // A glyph from a fallback font (the "…" of a key) sits a little higher or lower on the same
        // line: only a piece that starts below the first piece's bottom is on another line.
        const pieces = [...range.getClientRects()].filter((r) => r.width > 0)
        if (pieces.some((r) => r.top >= pieces[0]!.bottom - 2)) split.push(match[0])
      }
    }
  }
  return split
}

/** An in-process wagate served on 127.0.0.1 and a Chromium page signed in to its dashboard. */
export interface SignedInPage {
  browser: Browser
  page: Page
  /** `http://127.0.0.1:<port>`, the served app's origin. */
  base: string
  /** Closes the browser and stops the server; the harness stays the caller's to close. */
  close(): Promise<void>
}

/**
 * Serves the harness's app on a free port of 127.0.0.1, opens Chromium at 1280 px and signs in
 * with the admin token, waiting for the Overview heading. With `failOnDialog` a dialog (an alert
 * from injected script) throws, which fails the test that caused it.
 */
export async function signedInPage(h: Pick<Harness, "app" | "adminToken">, options: { failOnDialog: boolean }): Promise<SignedInPage> {
  const server = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (request) => h.app.handle(request) })
  const base = `http://127.0.0.1:${server.port}`
  let browser: Browser | undefined
  const close = async () => {
    await browser?.close()
    server.stop(true)
  }
  try {
    browser = await launchBrowser()
    const page = await browser.newPage({ viewport: WIDTHS[0] })
    if (options.failOnDialog) {
      page.on("dialog", () => {
        throw new Error("a dialog opened: injected script ran")
      })
    }
    await page.goto(`${base}/dashboard/sign-in`)
    await page.getByLabel("Admin token").fill(await h.adminToken())
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor()
    return { browser, page, base, close }
  } catch (error) {
    await close()
    throw error
  }
}

/** Markup written by a stranger on WhatsApp: it must show as text and run nothing. */
const HOSTILE_TEXT = `<img src=x onerror="window.pwned=1"><script>window.pwned=2</script> hi`

/**
 * Registers the browser suite. `command` names the wagate to run (undefined: `bun src/main.ts`);
 * `setupTimeoutMs` allows for building the executable.
 */
export function dashboardBrowserSuite(name: string, command: () => Promise<string[] | undefined>, setupTimeoutMs = SETUP_TIMEOUT_MS): void {
  let sim: WaSim
  let wagate: WagateProcess
  let browser: Browser
  let context: BrowserContext
  let page: Page
  let receiver: WebhookReceiver
  /** The test key the browser created (test 5), used to send. */
  let apiKey = ""
  /** The inbound photo's page, once a contact sent one (shown in the screenshots too). */
  let photoPage = "/dashboard/messages?direction=inbound&env=live"
  /** Every URL the browser asked for, to prove nothing left 127.0.0.1. */
  const requested: string[] = []
  let dialogs = 0

  /** Follows a main-menu link (opening the menu first where a narrow screen folds it) and waits for that page's heading. */
  async function goTo(section: string): Promise<void> {
    const link = page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: section, exact: true })
    // Opened by setting it, not by a click on its summary: a click would close a menu already open.
    if (!(await link.isVisible())) await page.locator("details.menu").evaluate((menu) => void ((menu as HTMLDetailsElement).open = true))
    await link.click()
    await page.getByRole("heading", { name: section, level: 1 }).waitFor()
  }

  describeInBrowser(name, () => {
    beforeAll(async () => {
      const wagateCommand = await command()
      sim = await startWaSim()
      receiver = new WebhookReceiver()
      wagate = await WagateProcess.start({
        WAGATE_WA_WS_URL: sim.wsUrl,
        WAGATE_LOG_LEVEL: "error",
        // Webhooks may reach the receiver on 127.0.0.1; the sandbox reaches read within a second.
        WAGATE_OUTBOUND_ALLOW_CIDRS: "127.0.0.1/32",
        WAGATE_SANDBOX_DELIVERED_MS: "300",
        WAGATE_SANDBOX_READ_MS: "900",
        // Inbound media is downloaded from the simulator's HTTPS media host.
        NODE_EXTRA_CA_CERTS: sim.mediaCaPath,
      }, { command: wagateCommand })
      browser = await launchBrowser()
      context = await browser.newContext({ viewport: { width: 1280, height: 800 } })
      context.on("request", (request) => void requested.push(request.url()))
      // Anything not for our server is refused (and still recorded above, so the check sees it).
      await context.route(
        (url) => url.hostname !== "127.0.0.1",
        (route) => route.abort(),
      )
      page = await context.newPage()
      // An alert would mean injected script ran.
      page.on("dialog", (dialog) => void dialog.dismiss().then(() => (dialogs += 1)))
    }, setupTimeoutMs)

    afterAll(async () => {
      await context?.close()
      await browser?.close()
      await wagate?.dispose()
      await sim?.stop()
      await receiver?.stop()
    }, SETUP_TIMEOUT_MS)

    test(
      "sign in with the admin token",
      async () => {
        await page.goto(`${wagate.base}/`)
        await page.waitForURL(/\/dashboard\/sign-in/)
        await page.getByLabel("Admin token").fill(wagate.adminToken)
        await page.getByRole("button", { name: "Sign in" }).click()
        await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor()
        // On a wide screen the menu's links are shown by the stylesheet (views/layout.tsx); wait
        // for them to be laid out, as a user would see them, before counting (a count never waits).
        const nav = page.getByRole("navigation", { name: "Main" })
        await nav.getByRole("link", { name: "Overview", exact: true }).waitFor()
        for (const name of ["Overview", "Phones", "Keys", "Webhooks", "Messages", "Chats", "Sandbox", "Usage", "Accounts", "Nodes"]) {
          expect(await nav.getByRole("link", { name, exact: true }).count()).toBe(1)
        }
        expect(await page.getByRole("button", { name: "Sign out" }).count()).toBe(1)
      },
      STEP_TIMEOUT_MS,
    )

    test(
      "add a phone",
      async () => {
        await goTo("Phones")
        await page.getByLabel("Phone number").fill(PHONE)
        await page.getByLabel("Display name").fill("Support <b>desk</b>")
        await page.getByRole("button", { name: "Add phone" }).click()
        await page.getByRole("heading", { name: "Support <b>desk</b>", level: 1 }).waitFor()
        expect(await page.getByText("Not paired").count()).toBe(1)
        expect(await page.locator("h1 b").count()).toBe(0)
      },
      STEP_TIMEOUT_MS,
    )

    test(
      "pair by QR: the simulated phone scans the QR the page shows, and the page turns to Connected by itself",
      async () => {
        await page.getByRole("button", { name: "Pair by QR" }).click()
        const qrBox = page.locator("[data-qr]")
        await qrBox.waitFor({ timeout: 20_000 })
        expect(await qrBox.locator("svg").count()).toBe(1)
        const qr = (await qrBox.getAttribute("data-qr"))!
        expect(qr).toStartWith("https://wa.me/settings/linked_devices#")
        // A marker on the window proves the page is never reloaded while it turns to Connected.
        await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true))
        // The simulator retires the first QR's secret (WhatsApp since July 2026): the page must
        // show the new QR by itself, and scanning that one links.
        const readQr = async () => ((await page.locator("[data-qr]").count()) === 1 ? ((await page.locator("[data-qr]").getAttribute("data-qr")) ?? undefined) : undefined)
        const linked = await sim.primary(PHONE).scanShownQr(readQr)
        expect(linked.refusedQrs).toEqual([qr])
        await page.locator(".badge", { hasText: "Connected" }).waitFor({ timeout: 20_000 })
        expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true)
        expect(await page.locator("[data-qr]").count()).toBe(0)
        await poll(async () => ((await wagate.admin("GET", `/accounts/${wagate.accountId}/phones`)).body.data[0]?.connectionStatus === "connected" ? true : undefined), "connected")
      },
      STEP_TIMEOUT_MS,
    )

    test(
      "the phone's block list: a block made on the phone is listed, the form blocks a number, its button unblocks it; no horizontal scroll at 390 px",
      async () => {
        const phoneId = ((await wagate.adminOk("GET", `/accounts/${wagate.accountId}/phones`)) as { id: string; phoneNumber: string }[]).find((p) => p.phoneNumber === PHONE)!.id
        const spam = sim.contact({ phoneNumber: "+15550109901", name: "Spam" })
        sim.contact({ phoneNumber: "+15550109902", name: "Pushy seller" })
        sim.changeBlockOnPhone(PHONE, spam, true)
        await page.goto(`${wagate.base}/dashboard/phones/${phoneId}`)
        await page.getByRole("heading", { name: "Blocked contacts" }).waitFor()
        await page.locator("code", { hasText: spam.lidJid }).waitFor()
        await page.getByLabel("Block a contact (E.164 or …@lid)").fill("+15550109902")
        await page.getByRole("button", { name: "Block", exact: true }).click()
        await page.getByRole("button", { name: "Unblock +15550109902" }).waitFor()
        const shots = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "wagate-dashboard-blocks-"))
        console.log(`block list screenshots: ${shots}`)
        await page.screenshot({ path: join(shots, "phone-blocks-1280.png"), fullPage: true })
        await page.setViewportSize({ width: 390, height: 844 })
        await page.screenshot({ path: join(shots, "phone-blocks-390.png"), fullPage: true })
        const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }))
        expect(widths.scroll).toBeLessThanOrEqual(widths.client)
        await page.setViewportSize({ width: 1280, height: 800 })
        await page.getByRole("button", { name: "Unblock +15550109902" }).click()
        await page.getByRole("button", { name: "Unblock +15550109902" }).waitFor({ state: "detached" })
        expect(await page.locator("code", { hasText: spam.lidJid }).count()).toBe(1)
        expect(sim.profiles.blockRequests.map((r) => [r.action, r.pnJid ?? null])).toEqual([
          ["block", "15550109902@s.whatsapp.net"],
          ["unblock", null],
        ])
      },
      STEP_TIMEOUT_MS,
    )

    test(
      "pair by code: the page shows the code, the simulated phone confirms it while WhatsApp rotates the pairing secret, and the page turns to Connected",
      async () => {
        const phone = await wagate.adminOk("POST", `/accounts/${wagate.accountId}/phones`, { phoneNumber: CODE_PHONE, displayName: "Paired by code" })
        await page.goto(`${wagate.base}/dashboard/phones/${phone.id}`)
        await page.getByRole("button", { name: "Pair by code" }).click()
        const codeBox = page.locator("[data-pairing-code]")
        await codeBox.waitFor({ timeout: 20_000 })
        const code = (await codeBox.getAttribute("data-pairing-code"))!
        expect(code).toMatch(/^[A-Z0-9]{8}$/)
        // The simulator rotates the secret after the code exchange; the derived one must be kept.
        await sim.primary(CODE_PHONE).confirmPairingCode(code)
        await page.locator(".badge", { hasText: "Connected" }).waitFor({ timeout: 20_000 })
        await wagate.adminOk("POST", `/phones/${phone.id}/disconnect`)
      },
      STEP_TIMEOUT_MS,
    )

    test(
      "the phones page at 390 px wide has no horizontal scroll",
      async () => {
        await page.setViewportSize({ width: 390, height: 844 })
        await goTo("Phones")
        await page.getByText(PHONE).first().waitFor()
        const widths = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }))
        expect(widths.scroll).toBeLessThanOrEqual(widths.client)
        await page.setViewportSize({ width: 1280, height: 800 })
      },
      STEP_TIMEOUT_MS,
    )

    test(
      "create a key: it is shown once, with a copy button, and never again",
      async () => {
        await goTo("Keys")
        await page.getByLabel("Name", { exact: true }).fill("browser key")
        await page.getByRole("button", { name: "Create key" }).click()
        const shown = page.locator("#new-key")
        await shown.waitFor()
        const key = (await shown.textContent())!
        expect(key).toMatch(/^sk_test_[0-9A-Za-z]{43}$/)
        await page.getByRole("button", { name: "Copy key" }).click()
        await page.getByRole("button", { name: "Copied" }).waitFor()
        apiKey = key
        await page.reload()
        await page.getByRole("heading", { name: "Keys", level: 1 }).waitFor()
        expect(await page.locator("#new-key").count()).toBe(0)
        expect(await page.content()).not.toContain(key)
        expect(await page.locator("td code", { hasText: `…${key.slice(-4)}` }).count()).toBe(1)
      },
      STEP_TIMEOUT_MS,
    )

    test(
      "add an endpoint pointing at a real receiver, send with the new key, watch the message reach read on its page, see the attempts in the log",
      async () => {
        await goTo("Webhooks")
        await page.getByLabel("URL", { exact: true }).fill(receiver.url("/wagate"))
        await page.getByRole("button", { name: "Add endpoint" }).click()
        const secret = (await page.locator("#new-secret").textContent())!
        expect(secret).toStartWith("whsec_")

        const sent = await wagate.request(apiKey, "POST", "/v1/messages/send", { fromPhoneId: PHONE, to: "+14155550199", content: "watch me" })
        expect(sent.status).toBe(201)
        await page.goto(`${wagate.base}/dashboard/messages/${sent.body.data.id}`)
        await page.evaluate(() => ((window as unknown as { stayed: boolean }).stayed = true))
        await page.locator("#timeline-title .badge", { hasText: "read" }).waitFor({ timeout: 15_000 })
        expect(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed)).toBe(true)
        await receiver.waitFor(3, 10_000)

        await goTo("Webhooks")
        await page.getByRole("link", { name: receiver.url("/wagate") }).click()
        await page.getByRole("heading", { name: "Delivery log" }).waitFor()
        expect(await page.locator(".delivery-log td", { hasText: "HTTP 200" }).count()).toBeGreaterThanOrEqual(3)
        expect(await page.content()).not.toContain(secret)
      },
      STEP_TIMEOUT_MS,
    )

    test(
      "an inbound message whose text is markup renders as text and runs nothing",
      async () => {
        const stranger = sim.contact({ phoneNumber: "+15550109999", name: "Stranger" })
        await sim.sendInbound(stranger, { text: HOSTILE_TEXT }, { to: PHONE })
        await page.goto(`${wagate.base}/dashboard/messages?direction=inbound&env=live`)
        const link = page.locator("td[data-label='Received'] a").first()
        await poll(async () => {
          if ((await link.count()) > 0) return true
          await page.reload()
          return undefined
        }, "the inbound message on the list", 15_000)
        expect(await page.locator("td[data-label='Content']").first().textContent()).toBe(HOSTILE_TEXT)
        await link.click()
        await page.locator("p.content").waitFor()
        expect(await page.locator("p.content").textContent()).toBe(HOSTILE_TEXT)
        expect(await page.locator("main img").count()).toBe(0)
        expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined()
        expect(dialogs).toBe(0)
      },
      STEP_TIMEOUT_MS,
    )

    test(
      "at 390 px wide no page scrolls sideways",
      async () => {
        await page.setViewportSize({ width: 390, height: 844 })
        const offenders: string[] = []
        for (const name of ["Overview", "Phones", "Keys", "Webhooks", "Messages", "Chats", "Sandbox", "Usage", "Accounts", "Nodes"]) {
          await goTo(name)
          const w = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }))
          if (w.scroll > w.client) offenders.push(`${name}: ${w.scroll} > ${w.client}`)
        }
        await page.setViewportSize({ width: 1280, height: 800 })
        expect(offenders).toEqual([])
      },
      STEP_TIMEOUT_MS,
    )

    test(
      "at 390 px the menu folds into one line of header that names the current page and opens from the keyboard; at 1280 px its links show at once",
      async () => {
        await page.setViewportSize({ width: 390, height: 844 })
        await page.goto(`${wagate.base}/dashboard/phones`)
        const menu = page.locator("details.menu > summary")
        const keys = page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Keys", exact: true })
        const header = await page.locator("header.top").evaluate((el) => el.getBoundingClientRect().height)
        const folded = { header: header <= 64, linksHidden: !(await keys.isVisible()), names: (await menu.innerText()).includes("Phones") }
        await menu.focus()
        await page.keyboard.press("Enter")
        await keys.waitFor({ state: "visible" })
        const current = await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Phones", exact: true }).getAttribute("aria-current")
        await keys.click()
        await page.getByRole("heading", { name: "Keys", exact: true, level: 1 }).waitFor()
        const foldedAgain = !(await keys.isVisible()) && (await menu.innerText()).includes("Keys")
        await page.setViewportSize({ width: 1280, height: 800 })
        const wide = { linksShown: await keys.isVisible(), toggleShown: await menu.isVisible() }
        expect({ folded, current, foldedAgain, wide }).toEqual({
          folded: { header: true, linksHidden: true, names: true },
          current: "page",
          foldedAgain: true,
          wide: { linksShown: true, toggleShown: false },
        })
      },
      STEP_TIMEOUT_MS,
    )

    test(
      "in the phones table a row's text and its Remove button's label sit on one line at 1280 px",
      async () => {
        await page.goto(`${wagate.base}/dashboard/phones`)
        await page.locator("table.stack summary").first().waitFor()
        // The bottom of each cell's first line of text, per row: equal within a pixel or two.
        const rows = await page.locator("table.stack tbody tr").evaluateAll((trs) =>
          trs.map((tr) =>
            [...tr.querySelectorAll("td")].map((td) => {
              const walker = document.createTreeWalker(td, NodeFilter.SHOW_TEXT, { acceptNode: (n) => ((n.textContent ?? "").trim() ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_REJECT) })
              const range = document.createRange()
              range.selectNodeContents(walker.nextNode()!)
              return Math.round(range.getClientRects()[0]!.bottom)
            }),
          ),
        )
        expect(rows.length).toBeGreaterThan(1)
        for (const bottoms of rows) expect(Math.max(...bottoms) - Math.min(...bottoms)).toBeLessThanOrEqual(2)
      },
      STEP_TIMEOUT_MS,
    )

    test(
      "an inbound photo shows on its page, and a reply sent from the page reaches the contact quoting it",
      async () => {
        const customer = sim.contact({ phoneNumber: "+15550107777", name: "Customer" })
        await wagate.adminOk("POST", `/accounts/${wagate.accountId}/keys`, { environment: "live", name: "replies", scopes: ["messages:send"] })
        const photoId = await sim.sendInbound(customer, { image: PNG, caption: "is this one in stock?" }, { to: PHONE })
        await page.goto(`${wagate.base}/dashboard/messages?direction=inbound&env=live`)
        const link = page.locator("td[data-label='Content']", { hasText: "is this one in stock?" })
        await poll(async () => {
          if ((await link.count()) > 0) return true
          await page.reload()
          return undefined
        }, "the photo on the inbound list", 15_000)
        await page.locator("tr", { has: link }).locator("td[data-label='Received'] a").click()
        const photo = page.locator("img.inbound-media")
        await photo.waitFor()
        // The image was fetched from WhatsApp's media host, decrypted and served by wagate.
        await poll(async () => ((await photo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)) === 1 ? true : undefined), "the photo loaded", 15_000)
        photoPage = new URL(page.url()).pathname + new URL(page.url()).search
        await page.getByLabel("Your reply").fill("Yes, two left")
        await page.getByRole("button", { name: "Send reply" }).click()
        // The inbound message's own page is still shown until the reply's page replaces it (its
        // heading "Inbound message" would match a loose "Message"): wait for the new message's URL.
        await page.waitForURL(/\/dashboard\/messages\/msg_/, { timeout: 15_000 })
        await page.getByRole("heading", { name: "Message", exact: true, level: 1 }).waitFor()
        const received = await sim.nextMessage(customer, { timeoutMs: 15_000 })
        expect(received.text).toBe("Yes, two left")
        expect(received.kinds.quote?.stanzaId).toBe(photoId)
        expect(await page.locator("dt", { hasText: "Reply to" }).count()).toBe(1)
      },
      STEP_TIMEOUT_MS,
    )

    test(
      "every page at 1280 and 390 px, with long names: no sideways scroll, no word or id split in a table; screenshots saved",
      async () => {
        // Long names everywhere a name shows, and a failed message for the overview's latest errors.
        expect((await wagate.admin("PATCH", `/accounts/${wagate.accountId}`, { name: LONG_ACCOUNT_NAME })).status).toBe(200)
        const phone = await wagate.admin("POST", `/accounts/${wagate.accountId}/phones`, { phoneNumber: "+15550103030", displayName: LONG_PHONE_NAME })
        expect(phone.status).toBe(201)
        const endpoint = await wagate.admin("POST", `/accounts/${wagate.accountId}/webhooks`, { url: receiver.url(LONG_ENDPOINT_PATH), environment: "test", events: ["message.failed"] })
        expect(endpoint.status).toBe(201)
        const failed = await wagate.request(apiKey, "POST", "/v1/messages/send", { fromPhoneId: PHONE, to: "+12025550101", content: "to nobody" })
        expect(failed.status).toBe(201)
        const message = await wagate.request(apiKey, "POST", "/v1/messages/send", { fromPhoneId: PHONE, to: "+14155550198", content: "a longer message, to see how its excerpt fits the list on a phone's screen" })
        // An edited and a deleted message, so the list shows its marks.
        const edited = await wagate.request(apiKey, "POST", "/v1/messages/send", { fromPhoneId: PHONE, to: "+14155550197", content: "see you at five" })
        expect((await wagate.request(apiKey, "PATCH", `/v1/messages/${edited.body.data.id}`, { content: "see you at six" })).status).toBe(200)
        const deleted = await wagate.request(apiKey, "POST", "/v1/messages/send", { fromPhoneId: PHONE, to: "+14155550196", content: "sent by mistake" })
        expect((await wagate.request(apiKey, "DELETE", `/v1/messages/${deleted.body.data.id}`)).status).toBe(200)
        const pages: [string, string][] = [
          ["overview", "/dashboard"],
          ["phones", "/dashboard/phones"],
          ["phone", `/dashboard/phones/${phone.body.data.id}`],
          ["keys", "/dashboard/keys"],
          ["webhooks", "/dashboard/webhooks"],
          ["endpoint", `/dashboard/webhooks/${endpoint.body.data.id}`],
          ["messages", "/dashboard/messages"],
          ["inbound", "/dashboard/messages?direction=inbound&env=live"],
          ["inbound-message", photoPage],
          ["message", `/dashboard/messages/${message.body.data.id}`],
          ["failed-message", `/dashboard/messages/${failed.body.data.id}`],
          ["sandbox", "/dashboard/sandbox"],
          ["usage", "/dashboard/usage"],
          ["accounts", "/dashboard/accounts"],
          ["account", `/dashboard/accounts/${wagate.accountId}`],
          ["nodes", "/dashboard/nodes"],
        ]
        const folder = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), `wagate-dashboard-${name.replace(/[^a-z]+/gi, "-")}-`))
        console.log(`dashboard screenshots: ${folder}`)
        const offenders: string[] = []
        for (const size of WIDTHS) {
          await page.setViewportSize(size)
          for (const [shot, path] of pages) {
            await page.goto(`${wagate.base}${path}`)
            await page.locator("h1").waitFor()
            const w = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }))
            if (w.scroll > w.client) offenders.push(`${shot} at ${size.width}: scrolls sideways (${w.scroll} > ${w.client})`)
            const split = await page.evaluate(splitWordsInTables)
            if (split.length > 0) offenders.push(`${shot} at ${size.width}: a table splits ${JSON.stringify(split)}`)
            await page.screenshot({ path: join(folder, `${shot}-${size.width}.png`), fullPage: true })
          }
        }
        // The sign-in page, in a context without a session.
        const anonymous = await browser.newContext()
        const signInPage = await anonymous.newPage()
        for (const size of WIDTHS) {
          await signInPage.setViewportSize(size)
          await signInPage.goto(`${wagate.base}/dashboard/sign-in`)
          await signInPage.screenshot({ path: join(folder, `sign-in-${size.width}.png`), fullPage: true })
        }
        await anonymous.close()
        await page.setViewportSize({ width: 1280, height: 800 })
        expect(offenders).toEqual([])
      },
      // Sixteen pages at two widths, each with a full-page screenshot.
      90_000,
    )

    test(
      "the overview's latest errors take the whole width of the overview at 1280 px, and their table needs no scrolling",
      async () => {
        await page.goto(`${wagate.base}/dashboard`)
        const errors = page.locator("section[aria-labelledby='errors']")
        await errors.locator("table").waitFor()
        const widths = await errors.evaluate((section) => ({
          section: section.getBoundingClientRect().width,
          cards: section.parentElement!.getBoundingClientRect().width,
          tableScroll: section.querySelector(".table-wrap")!.scrollWidth,
          tableClient: section.querySelector(".table-wrap")!.clientWidth,
        }))
        expect(widths.section).toBeGreaterThan(widths.cards - 2)
        expect(widths.tableScroll).toBeLessThanOrEqual(widths.tableClient)
      },
      STEP_TIMEOUT_MS,
    )

    test(
      "at 390 px the account switcher with a long account name stays inside the screen",
      async () => {
        await page.setViewportSize({ width: 390, height: 844 })
        await page.goto(`${wagate.base}/dashboard/phones`)
        const box = await page.locator("form:has(#account-switch)").evaluate((form) => {
          const r = form.getBoundingClientRect()
          return { right: r.right, viewport: document.documentElement.clientWidth }
        })
        await page.setViewportSize({ width: 1280, height: 800 })
        expect(box.right).toBeLessThanOrEqual(box.viewport)
      },
      STEP_TIMEOUT_MS,
    )

    test(
      "the usage chart's day labels are at least 12 px high at 390 px",
      async () => {
        await page.setViewportSize({ width: 390, height: 844 })
        await page.goto(`${wagate.base}/dashboard/usage`)
        await page.locator("main figure").waitFor()
        const heights = await page.locator("main figure").evaluate((figure) =>
          [...figure.querySelectorAll("*")]
            .filter((el) => el.children.length === 0 && /^\d{4}-\d{2}-\d{2}$/.test(el.textContent ?? ""))
            .map((el) => el.getBoundingClientRect().height),
        )
        await page.setViewportSize({ width: 1280, height: 800 })
        expect(heights.length).toBe(2)
        for (const height of heights) expect(height).toBeGreaterThanOrEqual(12)
      },
      STEP_TIMEOUT_MS,
    )

    test(
      "the page's icon is served by this wagate",
      async () => {
        await page.goto(`${wagate.base}/dashboard`)
        expect(await page.locator("link[rel='icon']").count()).toBe(1)
        const icon = await page.locator("link[rel='icon']").getAttribute("href")
        const res = await page.request.get(`${wagate.base}${icon}`)
        expect(res.status()).toBe(200)
        expect(res.headers()["content-type"]).toBe("image/svg+xml")
        expect(await res.text()).toContain("<svg")
      },
      STEP_TIMEOUT_MS,
    )

    test(
      "sign out and in again without a reload: the forms carry the new session's CSRF token",
      async () => {
        await page.getByRole("button", { name: "Sign out" }).click()
        await page.getByLabel("Admin token").waitFor()
        await page.getByLabel("Admin token").fill(wagate.adminToken)
        await page.getByRole("button", { name: "Sign in" }).click()
        await page.getByRole("heading", { name: "Overview", level: 1 }).waitFor()
        await goTo("Phones")
        await page.getByLabel("Phone number").fill("+15550102020")
        await page.getByRole("button", { name: "Add phone" }).click()
        await page.getByRole("heading", { name: "+15550102020", level: 1 }).waitFor()
      },
      STEP_TIMEOUT_MS,
    )

    test(
      "a removal is confirmed with the keyboard alone",
      async () => {
        await goTo("Phones")
        const row = page.locator("tr", { hasText: "+15550102020" })
        await row.locator("summary").focus()
        await page.keyboard.press("Enter")
        await row.getByRole("button", { name: "Remove +15550102020" }).focus()
        await page.keyboard.press("Enter")
        await page.getByRole("heading", { name: "Phones", level: 1 }).waitFor()
        await page.getByRole("status").filter({ hasText: "Removed +15550102020" }).waitFor()
        await poll(async () => ((await page.locator("tr", { hasText: "+15550102020" }).count()) === 0 ? true : undefined), "the phone gone from the list")
      },
      STEP_TIMEOUT_MS,
    )

    test(
      "the API reference at /swagger renders from our own origin alone: every other host is refused",
      async () => {
        await page.goto(`${wagate.base}/swagger`)
        // Scalar renders each operation's summary from the document; the page only gets there
        // when its script, served from /swagger/assets, ran and fetched /swagger/json.
        await page.getByText("Send a text, media, location or contact message").first().waitFor({ timeout: 45_000 })
        expect(requested.some((url) => new URL(url).pathname === "/swagger/json")).toBe(true)
      },
      // The reference's bundle is a few megabytes of script: on a busy machine it takes a while.
      60_000,
    )

    test("no request left 127.0.0.1", () => {
      expect(requested.length).toBeGreaterThan(10)
      expect(requested.filter((url) => new URL(url).hostname !== "127.0.0.1")).toEqual([])
    })
  })
}
