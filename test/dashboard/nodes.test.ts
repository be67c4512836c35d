import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { LEASE_DEFAULTS } from "../../src/domain/lease-timings"
import type { NodeIdentity } from "../../src/store/leases"
import { expectEscaped, HOSTILE, ORIGIN, signIn } from "../helpers/dashboard"
import { createHarness, type Harness } from "../helpers/harness"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { markPaired } from "../helpers/paired-phones"

/* The dashboard's Nodes page (docs/dashboard.md § "Pages"): read-only, SQLite's one node or PostgreSQL's list. */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const LEASE_MS = LEASE_DEFAULTS.leaseMs
let h: Harness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

/** Registers `node` `agoMs` before now, optionally holding the first unowned phones. */
async function node(harness: Harness, identity: NodeIdentity, options: { agoMs: number; maxPhones?: number; claim?: number; url?: string }) {
  const store = harness.services.ctx.store
  const nowMs = harness.clock.nowMs()
  await store.registerNode({ ...identity, maxPhones: options.maxPhones ?? 10, nowMs: nowMs - options.agoMs, leaseMs: LEASE_MS, url: options.url ?? null })
  if (options.claim) {
    await markPaired(store, await store.listAllPhones())
    await store.claimPhones(identity, options.claim, nowMs - 5_000, LEASE_MS)
    await store.renewLeases(identity, nowMs - 1_000, LEASE_MS)
  }
}

/** The text of the table row whose first cell holds `nodeId`, tags stripped. */
function rowText(html: string, nodeId: string): string {
  const row = html.split("<tr>").find((r) => r.startsWith("<td") && r.includes(`title="${nodeId}"`))
  if (!row) throw new Error(`no row for ${nodeId}`)
  return row.split("</tr>")[0]!.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").trim()
}

describe("dashboard: nodes, success", () => {
  test("on SQLite the page says there is one node, names it, and that nodes share phones only on PostgreSQL", async () => {
    h = await createHarness({ env: { WAGATE_NODE_ID: "box-1" } })
    const client = await signIn(h)
    const { status, html } = await client.get("/dashboard/nodes")
    expect(status).toBe(200)
    expect(html).toContain("<h1>Nodes</h1>")
    expect(html).toContain('<h2 id="one-node">One node</h2>')
    expect(html).toContain("<code>box-1</code>")
    expect(html).toContain("only when they share a PostgreSQL database")
    expect(html).toContain("Running several nodes")
    expect(html).not.toContain("<table")
    // The navigation has the section, marked current here.
    expect(html).toMatch(/<a href="\/dashboard\/nodes\?env=test" aria-current="page">Nodes<\/a>/)
  })

  test("on PostgreSQL it lists each node with its state, phones and ages, and with ?phones=1 the phones each holds", async () => {
    h = await createHarness({ database: "postgres", env: { WAGATE_NODE_ID: "test-served" } })
    const account = await h.seedAccount()
    const phone = await h.seedPhone(account.id, "+14155550111")
    await node(h, { nodeId: "test-node-a", instanceId: "a" }, { agoMs: 3_600_000, maxPhones: 50, claim: 1, url: "http://10.0.0.1:3000" })
    await node(h, { nodeId: "test-node-b", instanceId: "b" }, { agoMs: 40_000, maxPhones: 7 })
    const client = await signIn(h)
    const { status, html } = await client.get("/dashboard/nodes")
    expect(status).toBe(200)
    expect(rowText(html, "test-node-a")).toBe("test-node-a Live 1 of 50 1.0 s ago 1 h 00 min 5.0 s 5.0 s http://10.0.0.1:3000")
    expect(rowText(html, "test-node-b")).toBe("test-node-b Silent 0 of 7 40.0 s ago 40.0 s none none none: requests get 409")
    expect(html).toContain("Show the phones each node holds")
    expect(html).not.toContain(phone.phoneNumber)

    const withPhones = await client.get("/dashboard/nodes?phones=1")
    const leaseRow = withPhones.html.split("<tr>").find((r) => r.includes(phone.phoneNumber))!
    expect(leaseRow.split("</tr>")[0]!.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").trim()).toBe(`test-node-a ${phone.phoneNumber} Disconnected 1 5.0 s`)
    expect(leaseRow).toContain(`href="/dashboard/phones/${phone.id}?`)
  })
})

describe("dashboard: nodes, the serving node", () => {
  test("the node that served the page is named above the table and marked in its row, and no other row is", async () => {
    h = await createHarness({ database: "postgres", env: { WAGATE_NODE_ID: "test-node-self" } })
    // A server that runs the lease keeper registered itself already; otherwise register it here.
    if (!(await h.services.ctx.store.listNodes(h.clock.nowMs())).some((n) => n.nodeId === "test-node-self")) {
      await node(h, { nodeId: "test-node-self", instanceId: "self" }, { agoMs: 1_000 })
    }
    await node(h, { nodeId: "test-node-other", instanceId: "other" }, { agoMs: 1_000 })
    const { html } = await (await signIn(h)).get("/dashboard/nodes")
    expect(html).toContain('<dt>This page was served by</dt><dd><code class="clip" title="test-node-self">test-node-self</code></dd>')
    expect(rowText(html, "test-node-self")).toStartWith("test-node-self (this page) Live")
    expect(rowText(html, "test-node-other")).not.toContain("(this page)")
  })
})

describe("dashboard: nodes, security", () => {
  test("a hostile node id is shown as text everywhere it appears (nodes and phones tables), never as markup", async () => {
    const hostile = ["<img src=x onerror=alert(1)>", HOSTILE.script, HOSTILE.attribute]
    h = await createHarness({ database: "postgres" })
    const account = await h.seedAccount()
    await h.seedPhone(account.id)
    await node(h, { nodeId: hostile[0]!, instanceId: "x" }, { agoMs: 10_000, claim: 1 })
    await node(h, { nodeId: hostile[1]!, instanceId: "y" }, { agoMs: 10_000 })
    await node(h, { nodeId: hostile[2]!, instanceId: "z" }, { agoMs: 10_000 })
    const client = await signIn(h)
    for (const path of ["/dashboard/nodes", "/dashboard/nodes?phones=1"]) {
      const { status, html } = await client.get(path)
      expect(status).toBe(200)
      expectEscaped(html, hostile)
    }
  })

  test("needs a session: without one it leads to the sign-in page and shows nothing", async () => {
    h = await createHarness()
    const res = await h.app.handle(new Request(`${ORIGIN}/dashboard/nodes`))
    expect(res.status).toBe(303)
    expect(res.headers.get("location")).toBe(`/dashboard/sign-in?next=${encodeURIComponent("/dashboard/nodes")}`)
    expect(await res.text()).toBe("")
  })

  test("is read-only: a POST is refused and changes nothing", async () => {
    h = await createHarness()
    const client = await signIn(h)
    const res = await client.post("/dashboard/nodes", {})
    expect(res.status).toBe(405)
  })
})
