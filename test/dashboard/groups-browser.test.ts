import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { mkdirSync } from "node:fs"
import { join } from "node:path"
import { tmpdir } from "node:os"
import type { Page } from "playwright-core"
import type { Principal } from "../../src/domain/api-keys"
import { createGroupService } from "../../src/domain/group-service"
import { describeInBrowser } from "../helpers/browser"
import { createHarness, type Harness } from "../helpers/harness"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { signedInPage, type SignedInPage, splitWordsInTables, WIDTHS } from "./browser-suite"

/*
 * A group's page in Chromium (docs/dashboard.md § "Groups"), with a realistic sandbox group: 24
 * members, three admins, a long subject and a description written by a stranger. Reached from the
 * phone's page by clicking; at 1280 and 390 px nothing scrolls sideways and no number is split;
 * the invite link is shown, revoked and replaced, a setting saved, and the group left, with the
 * buttons a person presses. Screenshots go to $TMPDIR/wagate-dashboard-groups (printed).
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const SUBJECT = "Nachbarschaftshilfe Kreuzberg – Einkäufe, Arzttermine und Begleitung am Wochenende"
const HOSTILE = `<img src=x onerror="window.pwned=1"><script>window.pwned=2</script> Welcome!\nRules: be kind.`

describeInBrowser("dashboard: a group's page in Chromium", () => {
  let h: Harness
  let ui: SignedInPage
  let page: Page
  let base: string
  let phoneId: string

  beforeAll(async () => {
    h = await createHarness()
    const { account, phone } = await h.seedTenant()
    phoneId = phone.id
    const service = createGroupService({ ctx: h.services.ctx, ...h.services.presence })
    const operator: Principal = { keyId: "k", accountId: account.id, env: "test", scopes: [], account }
    // One member WhatsApp names only by LID (its number hidden).
    const members = [...Array.from({ length: 22 }, (_, i) => `+4915155${String(10000 + i * 37).padStart(5, "0")}`), "271828182845904@lid"]
    const { group } = await service.create(operator, phone.id, { subject: SUBJECT, participants: members, description: HOSTILE })
    await service.participants(operator, phone.id, group.id, "promote", members.slice(3, 5))
    ui = await signedInPage(h, { failOnDialog: false })
    page = ui.page
    base = ui.base
  }, SLOW_HOOK_TIMEOUT_MS)

  afterAll(async () => {
    await ui?.close()
    await h?.close()
  }, SLOW_HOOK_TIMEOUT_MS)

  async function openGroup(): Promise<void> {
    await page.goto(`${base}/dashboard/phones/${phoneId}?env=test`)
    await page.getByRole("link", { name: "Sandbox groups" }).click()
    await page.getByRole("heading", { name: "Sandbox groups" }).waitFor()
    await page.getByRole("link", { name: SUBJECT }).click()
    await page.getByRole("heading", { name: "Members (24)" }).waitFor()
  }

  test("at 1280 and 390 px: no sideways scroll, no number split, the stranger's text is inert; screenshots saved", async () => {
    const folder = join(process.env.TMPDIR ?? tmpdir(), "wagate-dashboard-groups")
    mkdirSync(folder, { recursive: true })
    console.log(`dashboard screenshots: ${folder}`)
    const offenders: string[] = []
    for (const size of WIDTHS) {
      await page.setViewportSize(size)
      await openGroup()
      const w = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }))
      if (w.scroll > w.client) offenders.push(`group at ${size.width}: scrolls sideways (${w.scroll} > ${w.client})`)
      const split = await page.evaluate(splitWordsInTables)
      if (split.length > 0) offenders.push(`group at ${size.width}: split ${split.join(", ")}`)
      await page.screenshot({ path: join(folder, `group-${size.width}.png`), fullPage: true })
      // The page in screen-high pieces, each readable at its own size.
      const height = await page.evaluate(() => document.documentElement.scrollHeight)
      for (let y = 0, i = 1; y < height; y += size.height, i++) {
        await page.screenshot({ path: join(folder, `group-${size.width}-${i}.png`), fullPage: true, clip: { x: 0, y, width: size.width, height: Math.min(size.height, height - y) } })
      }
      await page.goto(`${base}/dashboard/phones/${phoneId}/groups?env=test`)
      await page.screenshot({ path: join(folder, `groups-${size.width}.png`), fullPage: true })
    }
    expect(offenders).toEqual([])
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined()
  })

  test("show the invite link, revoke it for a new one, save a setting, and leave, by pressing the buttons", async () => {
    await page.setViewportSize(WIDTHS[0])
    await openGroup()
    await page.getByRole("button", { name: "Show invite link" }).click()
    const first = await page.locator("#invite-url").textContent()
    expect(first).toMatch(/^https:\/\/chat\.whatsapp\.com\/[A-Za-z0-9]+$/)
    await page.getByText("Revoke link").click()
    await page.getByRole("button", { name: "Revoke and make a new link" }).click()
    await page.getByText("The old link no longer works").waitFor()
    const second = await page.locator("#invite-url").textContent()
    expect(second).toMatch(/^https:\/\/chat\.whatsapp\.com\//)
    expect(second).not.toBe(first)

    await page.getByLabel("Only admins send messages").check()
    await page.getByLabel("Disappearing messages").selectOption("604800")
    await page.getByRole("button", { name: "Save settings" }).click()
    await page.getByText("Settings saved.").waitFor()
    expect(await page.getByLabel("Only admins send messages").isChecked()).toBe(true)
    expect(await page.getByLabel("Disappearing messages").inputValue()).toBe("604800")

    await page.getByText("Leave group").click()
    await page.getByRole("button", { name: "Leave this group" }).click()
    await page.getByText(" left ").waitFor()
    expect(await page.getByRole("link", { name: SUBJECT }).count()).toBe(0)
  })
})
