import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Page } from "playwright-core"
import { LEASE_DEFAULTS } from "../../src/domain/lease-timings"
import { describeInBrowser } from "../helpers/browser"
import { createHarness, type Harness } from "../helpers/harness"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { signedInPage, type SignedInPage, splitWordsInTables, WIDTHS } from "./browser-suite"
import { markPaired } from "../helpers/paired-phones"

/*
 * The Nodes page in Chromium on PostgreSQL (the SQLite page is in the browser suite): a cluster
 * of nodes with long and hostile ids at 1280 and 390 px. Nothing widens the page, no id is split,
 * the hostile id runs nothing; the screenshots go to a new folder under $TMPDIR (printed).
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const LEASE_MS = LEASE_DEFAULTS.leaseMs
const HOSTILE_NODE = `<img src=x onerror="window.pwned=1"><script>window.pwned=2</script>`
const LONG_NODE = "wagate-eu-central-1a-production-worker-node-0042.internal.example"

describeInBrowser("dashboard: the Nodes page in Chromium", () => {
  let h: Harness
  let ui: SignedInPage
  let page: Page
  let base: string

  beforeAll(async () => {
    // Not one of the nodes below: a server that runs the lease keeper registers itself too.
    h = await createHarness({ database: "postgres", env: { WAGATE_NODE_ID: "node-web" } })
    const store = h.services.ctx.store
    const account = await h.seedAccount({ name: "Acme Support" })
    for (let i = 0; i < 5; i++) await h.seedPhone(account.id, `+1415555012${i}`)
    await markPaired(store, await store.listAllPhones())
    const nowMs = h.clock.nowMs()
    const nodes: [string, number, number][] = [
      ["node-a", 3, 7_200_000],
      [LONG_NODE, 2, 90_000_000],
      [HOSTILE_NODE, 0, 600_000],
      ["node-c", 0, 120_000],
    ]
    for (const [nodeId, claim, agoMs] of nodes) {
      const identity = { nodeId, instanceId: `i-${nodeId.length}` }
      await store.registerNode({ ...identity, maxPhones: 1000, nowMs: nowMs - agoMs, leaseMs: LEASE_MS })
      if (claim > 0) await store.claimPhones(identity, claim, nowMs - 9_000, LEASE_MS)
      if (nodeId !== "node-c") await store.renewLeases(identity, nowMs - 1_500, LEASE_MS)
    }
    await store.releaseNode({ nodeId: HOSTILE_NODE, instanceId: `i-${HOSTILE_NODE.length}` }, nowMs - 1_000)
    ui = await signedInPage(h, { failOnDialog: false })
    page = ui.page
    base = ui.base
  }, SLOW_HOOK_TIMEOUT_MS)

  afterAll(async () => {
    await ui?.close()
    await h?.close()
  }, SLOW_HOOK_TIMEOUT_MS)

  test("at 1280 and 390 px, with and without the phones: no sideways scroll, no id split, the hostile id is text; screenshots saved", async () => {
    const folder = mkdtempSync(join(process.env.TMPDIR ?? tmpdir(), "wagate-dashboard-nodes-"))
    console.log(`dashboard screenshots: ${folder}`)
    const offenders: string[] = []
    for (const size of WIDTHS) {
      await page.setViewportSize(size)
      for (const [shot, path] of [["nodes", "/dashboard/nodes"], ["nodes-phones", "/dashboard/nodes?phones=1"]] as const) {
        await page.goto(`${base}${path}`)
        await page.getByRole("heading", { name: "Nodes", level: 1 }).waitFor()
        const w = await page.evaluate(() => ({ scroll: document.documentElement.scrollWidth, client: document.documentElement.clientWidth }))
        if (w.scroll > w.client) offenders.push(`${shot} at ${size.width}: scrolls sideways (${w.scroll} > ${w.client})`)
        const split = await page.evaluate(splitWordsInTables)
        if (split.length > 0) offenders.push(`${shot} at ${size.width}: a table splits ${JSON.stringify(split)}`)
        await page.screenshot({ path: join(folder, `${shot}-${size.width}.png`), fullPage: true })
      }
    }
    expect(offenders).toEqual([])
    expect(await page.evaluate(() => (window as unknown as { pwned?: number }).pwned)).toBeUndefined()
    expect(await page.locator("img").count()).toBe(0)
    // The hostile id is in the page's text, as typed, and the states read as words.
    expect(await page.getByText(HOSTILE_NODE, { exact: true }).count()).toBeGreaterThan(0)
    await page.goto(`${base}/dashboard/nodes`)
    const nodes = page.locator("table").first()
    const stateOf = (nodeId: string) => nodes.locator("tr", { has: page.getByTitle(nodeId, { exact: true }) }).locator("td[data-label='State']").innerText()
    expect([await stateOf("node-a"), await stateOf(LONG_NODE), await stateOf(HOSTILE_NODE), await stateOf("node-c")]).toEqual(["Live", "Live", "Stopping", "Silent"])
  })
})
