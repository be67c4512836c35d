import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import type { AccountRow } from "../../src/store/accounts"
import { createHarness, type Harness } from "../helpers/harness"
import { ORIGIN, signIn, type DashboardClient } from "../helpers/dashboard"

/*
 * The dashboard's design pass (issue 19) as seen over HTTP: the favicon, what forms and notices
 * say, and the words the pages use. What only a browser shows (widths, wrapping) is in
 * browser-suite.ts.
 */

let h: Harness
let client: DashboardClient
let account: AccountRow
beforeEach(async () => {
  h = await createHarness()
  account = await h.seedAccount({ name: "Acme" })
  client = await signIn(h)
})
afterEach(() => h.close())

const CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"

describe("dashboard: favicon", () => {
  test("every page, the sign-in page too, links an icon the server embeds, under the same CSP", async () => {
    const signInPage = await (await h.app.handle(new Request(`${ORIGIN}/dashboard/sign-in`))).text()
    for (const html of [signInPage, (await client.get("/dashboard")).html, (await client.get(`/dashboard/phones?account=${account.id}`)).html]) {
      const link = /<link rel="icon" type="image\/svg\+xml" href="([^"]+)"/.exec(html)
      expect(link).not.toBeNull()
      const res = await h.app.handle(new Request(`${ORIGIN}${link![1]!.replaceAll("&amp;", "&")}`))
      expect(res.status).toBe(200)
      expect(res.headers.get("content-type")).toBe("image/svg+xml")
      expect(res.headers.get("content-security-policy")).toBe(CSP)
      expect(await res.text()).toStartWith("<svg xmlns=")
    }
  })
})
