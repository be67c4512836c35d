import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { DASHBOARD_SESSION_IDLE_MS } from "../../src/domain/dashboard-sessions"
import { FAILED_AUTH_PER_MINUTE } from "../../src/domain/rate-limits"
import { assetBytes } from "../../src/http/dashboard/assets"
import { sha256Hex } from "../../src/lib/secrets"
import { createHarness, type Harness } from "../helpers/harness"
import { ORIGIN, postSignIn, signIn } from "../helpers/dashboard"
import { seedDeliveries } from "./webhook-log-seed"

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

/** Every page of the dashboard (one of each kind). */
const PAGES = (phoneId: string, endpointId: string) => [
  "/dashboard",
  "/dashboard/phones",
  `/dashboard/phones/${phoneId}`,
  "/dashboard/keys",
  "/dashboard/webhooks",
  `/dashboard/webhooks/${endpointId}`,
  `/dashboard/webhooks/${endpointId}/edit`,
  "/dashboard/messages",
  "/dashboard/messages?direction=inbound",
  "/dashboard/sandbox",
  "/dashboard/usage",
  "/dashboard/accounts",
]

function expectSecurityHeaders(headers: Headers): void {
  expect(headers.get("content-security-policy")).toBe(CSP)
  expect(headers.get("x-content-type-options")).toBe("nosniff")
  expect(headers.get("referrer-policy")).toBe("same-origin")
}

describe("dashboard: entry and sign-in", () => {
  test("/ redirects to /dashboard, and a visitor without a session is sent to the sign-in page", async () => {
    const root = await h.app.handle(new Request(`${ORIGIN}/`))
    expect(root.status).toBe(303)
    expect(root.headers.get("location")).toBe("/dashboard")
    const page = await h.app.handle(new Request(`${ORIGIN}/dashboard/phones?env=live`))
    expect(page.status).toBe(303)
    expect(page.headers.get("location")).toBe("/dashboard/sign-in?next=%2Fdashboard%2Fphones%3Fenv%3Dlive")
  })

  test("an htmx request without a session is sent to the sign-in page as a whole (HX-Redirect), not swapped into a fragment", async () => {
    const res = await h.app.handle(new Request(`${ORIGIN}/dashboard/messages/msg_x/timeline`, { headers: { "hx-request": "true" } }))
    expect(res.status).toBe(200)
    expect(res.headers.get("hx-redirect")).toBe("/dashboard/sign-in?next=%2Fdashboard%2Fmessages%2Fmsg_x%2Ftimeline")
    expect(await res.text()).toBe("")
  })

  test("the sign-in page has the field 'Admin token' and the button 'Sign in'", async () => {
    const res = await h.app.handle(new Request(`${ORIGIN}/dashboard/sign-in`))
    const html = await res.text()
    expect(res.status).toBe(200)
    expect(html).toContain('<label for="admin-token">Admin token</label>')
    expect(html).toContain('<input id="admin-token" name="token" type="password"')
    expect(html).toContain('<button type="submit">Sign in</button>')
  })

  test("the admin token opens a session: HttpOnly, SameSite=Strict, Path=/ cookie, and back to the page asked for", async () => {
    const token = await h.adminToken()
    const res = await postSignIn(h, token, { next: "/dashboard/phones?env=live" })
    expect(res.status).toBe(303)
    expect(res.headers.get("location")).toBe("/dashboard/phones?env=live")
    const cookie = res.headers.get("set-cookie")!
    expect(cookie).toMatch(/^wagate_session=[0-9A-Za-z]{43}; HttpOnly; SameSite=Strict; Path=\/$/)
  })

  test("over HTTPS the cookie is also Secure", async () => {
    const token = await h.adminToken()
    const res = await h.app.handle(
      new Request("https://localhost/dashboard/sign-in", {
        method: "POST",
        headers: { origin: "https://localhost", "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ token }),
      }),
    )
    expect(res.headers.get("set-cookie")).toEndWith("; Secure")
  })

  test.each([
    ["a trusted proxy says the client used HTTPS", "127.0.0.1", "https", true],
    ["an untrusted peer claims HTTPS", "", "https", false],
  ] as const)("over a real socket, when %s, the cookie's Secure follows clientInfo", async (_name, trusted, proto, secure) => {
    const served = await createHarness(trusted ? { env: { WAGATE_TRUSTED_PROXIES: trusted } } : {})
    try {
      const token = await served.adminToken()
      served.app.listen({ port: 0, hostname: "127.0.0.1" })
      const base = `http://127.0.0.1:${served.app.server!.port}`
      const res = await fetch(`${base}/dashboard/sign-in`, {
        method: "POST",
        headers: { origin: base, "x-forwarded-proto": proto },
        body: new URLSearchParams({ token }),
        redirect: "manual",
      })
      expect(res.status).toBe(303)
      expect(res.headers.get("set-cookie")!.endsWith("; Secure")).toBe(secure)
    } finally {
      await served.app.stop(true)
      await served.close()
    }
  })

  test("a wrong token is refused with the reason on the page and sets no cookie", async () => {
    await h.adminToken()
    const res = await postSignIn(h, "adm_wrong")
    expect(res.status).toBe(401)
    expect(res.headers.get("set-cookie")).toBeNull()
    expect(await res.text()).toContain("That is not the admin token.")
  })

  test("a redirect after sign-in never leaves the dashboard (next= is ignored for other sites)", async () => {
    const token = await h.adminToken()
    for (const next of ["https://evil.example/", "//evil.example/dashboard", "/\\evil.example"]) {
      const res = await postSignIn(h, token, { next })
      expect(res.headers.get("location")).toBe("/dashboard")
    }
  })

  test(`sign-in is throttled per client address: after ${FAILED_AUTH_PER_MINUTE} failures even the right token gets 429`, async () => {
    const token = await h.adminToken()
    for (let i = 0; i < FAILED_AUTH_PER_MINUTE; i++) expect((await postSignIn(h, "adm_wrong")).status).toBe(401)
    const blocked = await postSignIn(h, token)
    expect(blocked.status).toBe(429)
    expect(Number(blocked.headers.get("retry-after"))).toBeGreaterThan(0)
    expect(blocked.headers.get("set-cookie")).toBeNull()
    await h.advance(60_000)
    expect((await postSignIn(h, token)).status).toBe(303)
  })

  test("a sign-in post from another origin is refused", async () => {
    const token = await h.adminToken()
    const res = await postSignIn(h, token, { headers: { origin: "https://evil.example" } })
    expect(res.status).toBe(403)
    expect(res.headers.get("set-cookie")).toBeNull()
  })

  test("only the SHA-256 of the session id is stored", async () => {
    const client = await signIn(h)
    const id = client.cookie.split("=")[1]!
    const rows = h.services.sqlite!.query<{ id_hash: string }, []>("SELECT id_hash FROM dashboard_sessions").all()
    expect(rows).toEqual([{ id_hash: sha256Hex(id) }])
  })
})

describe("dashboard: sessions end", () => {
  test("after 12 idle hours the session is over; activity moves the limit", async () => {
    const client = await signIn(h)
    await h.advance(DASHBOARD_SESSION_IDLE_MS - 60_000)
    expect((await client.get("/dashboard/phones")).status).toBe(200)
    await h.advance(DASHBOARD_SESSION_IDLE_MS - 60_000)
    expect((await client.get("/dashboard/phones")).status).toBe(200)
    await h.advance(DASHBOARD_SESSION_IDLE_MS)
    const expired = await client.get("/dashboard/phones")
    expect(expired.status).toBe(303)
    expect(expired.headers.get("location")).toStartWith("/dashboard/sign-in")
  })

  test("'Sign out' ends the session and clears the cookie", async () => {
    const client = await signIn(h)
    const res = await client.post("/dashboard/sign-out")
    expect(res.status).toBe(303)
    expect(res.headers.get("set-cookie")).toContain("Max-Age=0")
    expect((await client.get("/dashboard/phones")).status).toBe(303)
  })

  test("resetting the admin token ends every session", async () => {
    const first = await signIn(h)
    const second = await signIn(h)
    await h.adminToken()
    expect((await first.get("/dashboard/phones")).status).toBe(303)
    expect((await second.get("/dashboard/phones")).status).toBe(303)
  })
})

describe("dashboard: sessions follow the admin token in force", () => {
  test("a restart with another WAGATE_ADMIN_TOKEN ends the sessions opened with the old one; the same token keeps them", async () => {
    const dir = mkdtempSync(join(tmpdir(), "wagate-dash-"))
    const databasePath = join(dir, "wagate.db")
    const tokenA = `adm_${"A".repeat(43)}`
    try {
      const first = await createHarness({ databasePath, env: { WAGATE_ADMIN_TOKEN: tokenA } })
      const client = await signIn(first, tokenA)
      await first.close()
      const same = await createHarness({ databasePath, env: { WAGATE_ADMIN_TOKEN: tokenA } })
      const stillIn = await same.app.handle(new Request(`${ORIGIN}/dashboard/phones`, { headers: { cookie: client.cookie } }))
      expect(stillIn.status).toBe(200)
      await same.close()
      const other = await createHarness({ databasePath, env: { WAGATE_ADMIN_TOKEN: `adm_${"B".repeat(43)}` } })
      const out = await other.app.handle(new Request(`${ORIGIN}/dashboard/phones`, { headers: { cookie: client.cookie } }))
      expect(out.status).toBe(303)
      await other.close()
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe("dashboard: CSRF", () => {
  test.each([
    ["no CSRF token", { csrf: null }],
    ["a wrong CSRF token", { csrf: "x".repeat(43) }],
    ["another origin", { origin: "https://evil.example" }],
    ["an opaque origin", { origin: "null" }],
    ["neither Origin nor Referer", { origin: null }],
    ["a Referer from another site", { origin: null, referer: "https://evil.example/dashboard/phones" }],
  ] as const)("a post with %s is a 403 and changes nothing", async (_name, options) => {
    const account = await h.seedAccount()
    const client = await signIn(h)
    const res = await client.post(`/dashboard/phones?account=${account.id}`, { phoneNumber: "+14155550100", displayName: "x" }, options)
    expect(res.status).toBe(403)
    expectSecurityHeaders(res.headers)
    expect(h.services.sqlite!.query("SELECT id FROM phones").all()).toEqual([])
  })

  test("the token in the X-CSRF-Token header (htmx) or a same-origin Referer without Origin is accepted", async () => {
    const account = await h.seedAccount()
    const client = await signIn(h)
    const viaHeader = await client.post(
      `/dashboard/phones?account=${account.id}`,
      { phoneNumber: "+14155550101" },
      { csrf: null, headers: { "x-csrf-token": client.csrfToken, "hx-request": "true" } },
    )
    expect(viaHeader.status).toBe(303)
    const viaReferer = await client.post(`/dashboard/phones?account=${account.id}`, { phoneNumber: "+14155550102" }, { origin: null, referer: `${ORIGIN}/dashboard/phones` })
    expect(viaReferer.status).toBe(303)
    expect(h.services.sqlite!.query("SELECT phone_number FROM phones ORDER BY phone_number").all()).toEqual([
      { phone_number: "+14155550101" },
      { phone_number: "+14155550102" },
    ])
  })

  test("another session's CSRF token is refused", async () => {
    const account = await h.seedAccount()
    const mine = await signIn(h)
    const other = await signIn(h)
    const res = await mine.post(`/dashboard/phones?account=${account.id}`, { phoneNumber: "+14155550103" }, { csrf: other.csrfToken })
    expect(res.status).toBe(403)
  })
})

describe("dashboard: headers and assets", () => {
  test("every dashboard response carries the CSP, nosniff and Referrer-Policy; HTML is not cached", async () => {
    const account = await h.seedAccount()
    const phone = await h.seedPhone(account.id)
    const endpointId = await seedDeliveries(h, account.id, 3)
    const client = await signIn(h)
    const anonymous = (path: string) => h.app.handle(new Request(`${ORIGIN}${path}`))
    const responses = [
      await anonymous("/"),
      await anonymous("/dashboard"),
      await anonymous("/dashboard/sign-in"),
      await anonymous("/dashboard/assets/dashboard.css"),
      await postSignIn(h, "adm_wrong"),
    ].map((r) => ({ status: r.status, headers: r.headers }))
    for (const path of [...PAGES(phone.id, endpointId), "/dashboard/nowhere"]) {
      responses.push(await client.get(path))
    }
    responses.push(await client.post("/dashboard/phones", {}, { csrf: null }))
    for (const res of responses) expectSecurityHeaders(res.headers)
    for (const res of responses.filter((r) => r.headers.get("content-type")?.startsWith("text/html"))) {
      expect(res.headers.get("cache-control")).toBe("no-store")
    }
  })

  test("pages load only same-origin assets, and the assets are served from the executable", async () => {
    const client = await signIn(h)
    const html = (await client.get("/dashboard")).html
    const urls = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!.replaceAll("&amp;", "&"))
    expect(urls.filter((u) => !u.startsWith("#") && !(u.startsWith("/") && !u.startsWith("//")))).toEqual([])
    const assets = urls.filter((u) => u.startsWith("/dashboard/assets/"))
    expect(assets.length).toBe(4)
    for (const url of assets) {
      const res = await h.app.handle(new Request(`${ORIGIN}${url}`))
      expect(res.status).toBe(200)
      expect(res.headers.get("content-type")).toMatch(/^(text\/(css|javascript)|image\/svg\+xml)/)
      expect((await res.text()).length).toBeGreaterThan(100)
    }
  })

  test("all JavaScript and CSS together stay well under 200 KB", () => {
    expect(assetBytes()).toBeLessThan(100 * 1024)
  })

  test("no inline script and no inline style attribute on any page", async () => {
    const account = await h.seedAccount()
    const phone = await h.seedPhone(account.id)
    const endpointId = await seedDeliveries(h, account.id, 3)
    const client = await signIn(h)
    for (const path of PAGES(phone.id, endpointId)) {
      const { html, status } = await client.get(path)
      expect(status).toBe(200)
      expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/)
      expect(html).not.toMatch(/\sstyle="/)
      expect(html).not.toMatch(/\son[a-z]+="/)
    }
  })

  test("the dashboard's routes are pages, not API: the OpenAPI document leaves them out", async () => {
    const doc = (await h.request("GET", "/swagger/json")).body
    expect(Object.keys(doc.paths).filter((path) => path === "/" || path.startsWith("/dashboard"))).toEqual([])
  })

  test("an unknown dashboard address is a page-shaped 404 with the navigation", async () => {
    const client = await signIn(h)
    const res = await client.get("/dashboard/nowhere")
    expect(res.status).toBe(404)
    expect(res.html).toContain("There is no dashboard page at this address.")
    expect(res.html).toContain(">Overview</a>")
  })
})
