import { afterEach, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { FAILED_AUTH_PER_MINUTE } from "../../src/domain/rate-limits"
import { NODE_REQUEST_VALIDITY_MS } from "../../src/domain/node-trust"
import { nodeRequestHeaders } from "../../src/http/node-requests"
import { createLogger } from "../../src/lib/logger"
import { csrfTokenOf, signIn } from "../helpers/dashboard"
import { cluster, forwardingCluster, pairedOnN1 } from "../helpers/forwarding-cluster"
import { createHarness, expectErrorEnvelope, type Harness } from "../helpers/harness"
import { testPostgres } from "../helpers/postgres"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { waitUntil } from "../helpers/webhook-receiver"
import { freshMigratedDatabase } from "../store/contract/stores"

/*
 * Requests between nodes are signed with the cluster's node secret (docs/operations.md § "Running
 * several nodes"): the dashboard's buttons work on a node that does not hold the phone (the
 * browser's session and CSRF token are checked where it signed in, the holder believes the
 * signed node request), a forwarded `/v1` request costs its key one token, and a request that
 * claims to come from a node and cannot prove it is refused and counted as a failed
 * admin-token attempt.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const extra: Harness[] = []
beforeAll(async () => void (await testPostgres()), SLOW_HOOK_TIMEOUT_MS)
afterEach(async () => {
  for (const h of extra.splice(0)) await h.close()
  await forwardingCluster.close()
}, SLOW_HOOK_TIMEOUT_MS)

const statusOn = async (h: Harness, phoneId: string) => (await h.services.ctx.store.findPhone(phoneId))?.connectionStatus

/** Headers n2 would send n1 for this request, signed with the cluster's secret. */
const signedBy = (from: Harness, method: string, pathAndQuery: string, body = "") => nodeRequestHeaders(from.services, { method, pathAndQuery, body })

describe("node requests: success", () => {
  test("the dashboard's disconnect and log out pressed on the node without the phone are done by its holder; a connect of a phone nobody holds is done where it is pressed", async () => {
    const { n1, n2, gateway } = await cluster()
    const { phone } = await pairedOnN1(n1)
    const onN2 = await signIn(n2)
    const base = `/dashboard/phones/${phone.id}`

    const disconnected = await onN2.post(`${base}/disconnect`)
    expect(disconnected.status).toBe(303)
    expect(disconnected.headers.get("location")).toStartWith(base)
    expect(gateway.sessions.get(phone.id)!.at(-1)!.closed).toBe(true)
    await waitUntil(async () => (await statusOn(n1, phone.id)) === "disconnected", 10_000, "n1 to write the disconnect")
    // A phone the operator disconnected needs no connection: its holder lets go of its lease.
    await waitUntil(async () => ((await n1.services.ctx.store.listPhoneLeases()).find((l) => l.phoneId === phone.id)?.nodeId ?? null) === null, 10_000, "n1 to let go of the lease")

    expect((await onN2.post(`${base}/connect`, { method: "code" })).status).toBe(303)
    // Nobody held it: the node the button was pressed on claims it and opens the one new socket.
    await waitUntil(() => gateway.sessions.get(phone.id)!.length === 2, 10_000, "a node to open a socket")
    expect((await n1.services.ctx.store.listPhoneLeases()).find((l) => l.phoneId === phone.id)?.nodeId).toBe("n2")
    gateway.current(phone.id).open(phone.phoneNumber)
    await waitUntil(async () => (await statusOn(n1, phone.id)) === "connected", 10_000, "n2 to connect the phone again")

    // Now n2 holds it: log out pressed on n1 is done by n2.
    const onN1 = await signIn(n1)
    expect((await onN1.post(`${base}/logout`)).status).toBe(303)
    await waitUntil(async () => (await statusOn(n1, phone.id)) === "logged_out", 10_000, "n2 to log the phone out")
    expect(gateway.sessions.get(phone.id)!.at(-1)!.loggedOut).toBe(true)
    // The page on n1 keeps following the phone through the pairing relay.
    expect((await onN1.get(base)).status).toBe(200)
  })

  test("removing a phone from the dashboard of the node without it has the holder unlink and remove it", async () => {
    const { n1, n2, gateway } = await cluster()
    const { phone } = await pairedOnN1(n1)
    const browser = await signIn(n2)
    const removed = await browser.post(`/dashboard/phones/${phone.id}/remove`)
    expect(removed.status).toBe(303)
    expect(removed.headers.get("location")).toContain("removed=")
    expect(await n1.services.ctx.store.findPhone(phone.id)).toBeNull()
    // Unlinked from WhatsApp by the holder, whose socket it was.
    expect(gateway.sessions.get(phone.id)!.at(-1)!.loggedOut).toBe(true)
  })

  test("a /v1 request forwarded to the holder costs its key one token, not one on each node", async () => {
    const { n1, n2 } = await cluster()
    const account = await n1.seedAccount({ rateLimitPerMinute: 2 })
    const phone = await n1.seedPhone(account.id)
    const key = await n1.seedKey(account.id, { env: "live" })
    await n1.connectPhone(phone)
    await waitUntil(async () => (await statusOn(n1, phone.id)) === "connected", 10_000, "n1 to connect the phone")
    const path = `/v1/groups?fromPhoneId=${phone.id}`
    const first = await n2.request("GET", path, { key })
    const second = await n2.request("GET", path, { key })
    expect([first.status, second.status]).toEqual([200, 200])
    expect(second.headers.get("x-wagate-node")).toBe("n1")
    // The rate-limit headers are those of the node that charged the key.
    expect([first.headers.get("x-ratelimit-remaining"), second.headers.get("x-ratelimit-remaining")]).toEqual(["1", "0"])
    expectErrorEnvelope(await n2.request("GET", path, { key }), 429, "Rate limit exceeded")
  })

  test("nodes starting at once on a new database agree on one node secret", async () => {
    const url = await freshMigratedDatabase()
    const started = await Promise.all(["a", "b", "c"].map((id) => createHarness({ env: { WAGATE_DATABASE_URL: url, WAGATE_NODE_ID: id } })))
    extra.push(...started)
    const secrets = await Promise.all(started.map((h) => h.services.nodeTrust.secret()))
    expect(new Set(secrets).size).toBe(1)
    expect(await started[0]!.services.ctx.store.getSetting("node_secret")).toBe(secrets[0]!)
  })
})

describe("node requests: errors", () => {
  test("a button pressed on a node whose holder advertised no URL shows the 409 naming the holder, as before", async () => {
    const { n1, n2 } = await cluster({ n1Url: () => null })
    const { phone } = await pairedOnN1(n1)
    const browser = await signIn(n2)
    const page = await browser.post(`/dashboard/phones/${phone.id}/disconnect`)
    expect(page.status).toBe(409)
    expect(page.html).toContain("held by node &quot;n1&quot;")
    expect(await statusOn(n1, phone.id)).toBe("connected")
  })

  test("a button pressed while the holder does not answer at its URL shows the 503's sentence above the panel", async () => {
    const { n1, n2, n1Server } = await cluster()
    const { phone } = await pairedOnN1(n1)
    const browser = await signIn(n2)
    await n1Server.stop(true)
    const page = await browser.post(`/dashboard/phones/${phone.id}/logout`)
    expect(page.status).toBe(503)
    expect(page.html).toContain("did not answer at its WAGATE_NODE_URL")
    // Still a whole page: its forms carry the session's token, so the operator can press again.
    expect(csrfTokenOf(page.html)).toBe(browser.csrfToken)
    expect(await statusOn(n1, phone.id)).toBe("connected")
  })
})

describe("node requests: security", () => {
  test("a forwarded button needs the session and CSRF token on the node the browser talks to: without the token nothing reaches the holder", async () => {
    const { n1, n2 } = await cluster()
    const { phone } = await pairedOnN1(n1)
    const browser = await signIn(n2)
    expect((await browser.post(`/dashboard/phones/${phone.id}/disconnect`, {}, { csrf: null })).status).toBe(403)
    expect(await statusOn(n1, phone.id)).toBe("connected")
  })

  test("a node request without a signature, with a forged, tampered, stale or replayed one, is refused with 401 and changes nothing", async () => {
    const { n1, n2 } = await cluster()
    const { phone } = await pairedOnN1(n1)
    const path = `/admin/v1/phones/${phone.id}/disconnect`
    const refused = async (headers: Record<string, string>, to = path, method = "POST") => expectErrorEnvelope(await n1.request(method, to, { headers }), 401, "Unauthorized")

    await refused({ "x-wagate-forwarded-by": "n2" })
    // Signed by a node of another cluster (another database, so another secret), under n2's name.
    const stranger = await createHarness({ env: { WAGATE_NODE_ID: "n2" } })
    extra.push(stranger)
    await refused(await signedBy(stranger, "POST", path))
    // Signed for another path, or with the signature changed.
    await refused(await signedBy(n2, "POST", `/admin/v1/phones/${phone.id}/connect`))
    const good = await signedBy(n2, "POST", path)
    await refused({ ...good, "X-Wagate-Node-Signature": good["X-Wagate-Node-Signature"]!.replace(/s=(.)/, (_m, c: string) => `s=${c === "0" ? "1" : "0"}`) })
    // A good one is accepted once; played again it is refused.
    const once = await signedBy(n2, "GET", "/admin/v1/accounts")
    expect((await n1.request("GET", "/admin/v1/accounts", { headers: once })).status).toBe(200)
    await refused(once, "/admin/v1/accounts", "GET")
    // Too old for the holder's clock.
    const stale = await signedBy(n2, "POST", path)
    await n1.advance(NODE_REQUEST_VALIDITY_MS + 1_000)
    await refused(stale)
    expect(await statusOn(n1, phone.id)).toBe("connected")
  })

  test("a node whose clock is more than 15 s off has its requests refused, and the holder says so once at warn, naming it", async () => {
    const lines: string[] = []
    const n1Logger = createLogger({ level: "warn", format: "json", nowIso: () => "t", write: (line) => lines.push(line) })
    const { n1, n2 } = await cluster({ n1Logger })
    await n2.advance(NODE_REQUEST_VALIDITY_MS + 5_000)
    for (let i = 0; i < 2; i++) expect((await n1.request("GET", "/admin/v1/accounts", { headers: await signedBy(n2, "GET", "/admin/v1/accounts") })).status).toBe(401)
    const warned = lines.map((l) => JSON.parse(l)).filter((l) => l.msg?.includes("clock"))
    expect(warned).toHaveLength(1)
    expect(warned[0]).toMatchObject({ level: "warn", node: "n2" })
  })

  test(`${FAILED_AUTH_PER_MINUTE} unproven node requests from an address spend its admin-token budget: then even the right admin token gets 429`, async () => {
    const { n1, n2 } = await cluster()
    const admin = await n1.adminToken()
    for (let i = 0; i < FAILED_AUTH_PER_MINUTE; i++) expect((await n1.request("GET", "/admin/v1/accounts", { headers: { "x-wagate-forwarded-by": "n2" } })).status).toBe(401)
    expectErrorEnvelope(await n1.request("GET", "/admin/v1/accounts", { key: admin }), 429, "Rate limit exceeded")
    // Even a good signature waits: the address is throttled whatever it sends.
    expect((await n1.request("GET", "/admin/v1/accounts", { headers: await signedBy(n2, "GET", "/admin/v1/accounts") })).status).toBe(429)
  })

  test("the node secret appears in no response and no log line of forwarded buttons, forwarded requests and refused ones", async () => {
    const lines: string[] = []
    const logger = createLogger({ level: "debug", format: "json", nowIso: () => "t", write: (line) => lines.push(line) })
    const { n1, n2 } = await cluster({ n1Logger: logger, n2Logger: logger })
    const { key, phone } = await pairedOnN1(n1)
    const seen: string[] = []
    const keep = (status: number, headers: Headers, body: unknown) => seen.push(String(status), JSON.stringify([...headers]), typeof body === "string" ? body : JSON.stringify(body))
    const browser = await signIn(n2)
    for (const verb of ["disconnect", "connect"]) {
      const page = await browser.post(`/dashboard/phones/${phone.id}/${verb}`)
      keep(page.status, page.headers, page.html)
    }
    for (const res of [
      await n2.request("GET", `/v1/groups?fromPhoneId=${phone.id}`, { key }),
      await n1.request("GET", "/admin/v1/accounts", { headers: { "x-wagate-forwarded-by": "n2" } }),
      await n2.request("GET", "/admin/v1/nodes", { key: await n2.adminToken() }),
    ]) keep(res.status, res.headers, res.body)
    const secret = await n1.services.nodeTrust.secret()
    expect(secret.length).toBeGreaterThanOrEqual(40)
    expect(lines.length).toBeGreaterThan(0)
    expect([...seen, ...lines].filter((text) => text.includes(secret))).toEqual([])
  })
})
