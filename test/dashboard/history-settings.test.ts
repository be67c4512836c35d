import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { addPhone } from "../../src/domain/phones"
import type { PhoneRow } from "../../src/store/phones"
import { expectEscaped, HOSTILE, signIn, type DashboardClient } from "../helpers/dashboard"
import { createHarness, type Harness } from "../helpers/harness"

/*
 * History on pairing on a phone's page (docs/dashboard.md § "Pages"): shown with the defaults,
 * saved through the admin API's domain function (the admin API then reads the same), refused
 * with why when out of range, escaped, CSRF-checked, another account's phone unchanged.
 */

let h: Harness
let client: DashboardClient
let phone: PhoneRow
let adminToken: string
beforeEach(async () => {
  h = await createHarness()
  const account = await h.seedAccount({ name: "Acme" })
  phone = await addPhone(h.services.ctx, account.id, "+14155550123")
  // Asking for the admin token again would reset it and end the session: it is asked once.
  adminToken = await h.adminToken()
  client = await signIn(h, adminToken)
})
afterEach(() => h.close())

const pagePath = () => `/dashboard/phones/${phone.id}`
const save = (fields: Record<string, string>, options?: { csrf?: string | null }) => client.post(`${pagePath()}/history-settings`, fields, options)
const stored = () => h.services.ctx.store.findHistorySettings(phone.id)

describe("dashboard: history on pairing, success", () => {
  test("a phone's page shows the defaults (recent, 90 days) and says they apply when the phone is paired", async () => {
    const { status, html } = await client.get(pagePath())
    expect(status).toBe(200)
    expect(html).toContain('<h2 id="history-settings">History on pairing</h2>')
    expect(html).toContain("The next linking asks WhatsApp for recent history (what WhatsApp Web gets) and keeps messages of the last 90 days.")
    expect(html).toContain("It takes effect when you pair the phone.")
    expect(html).toContain('<option value="recent" selected>')
    expect(html).toMatch(/<input id="history-days" name="historyDays" type="number"[^>]* min="1" max="3650"[^>]* value="90"\/>/)
  })

  test("saving full history for 3650 days stores it as the admin API does, and the page and the admin API then show it", async () => {
    const res = await save({ historySync: "full", historyDays: "3650" })
    expect(res.status).toBe(303)
    expect(res.headers.get("location")).toStartWith(pagePath())
    expect(await stored()).toMatchObject({ historySync: "full", historyDays: 3650 })
    const admin = await h.request("GET", `/admin/v1/phones/${phone.id}/history-settings`, { key: adminToken })
    expect(admin.body.data).toMatchObject({ historySync: "full", historyDays: 3650 })
    const { html } = await client.get(pagePath())
    expect(html).toContain("The next linking asks WhatsApp for all the history the phone holds and keeps messages of the last 3650 days.")
    expect(html).toContain('<option value="full" selected>')
    expect((await save({ historySync: "none", historyDays: "1" })).status).toBe(303)
    expect((await client.get(pagePath())).html).toContain("The next linking asks WhatsApp for no history.")
  })

  test("on a linked phone the page says a change takes effect at the next linking", async () => {
    await h.connectPhone(phone)
    expect((await client.get(pagePath())).html).toContain("It takes effect at the next linking: the phone linked now keeps the history it got.")
  })
})

describe("dashboard: history on pairing, bad input", () => {
  for (const [days, why] of [["0", "too few"], ["3651", "too many"], ["12.5", "not whole"], ["ninety", "not a number"], ["", "empty"]] as const) {
    test(`historyDays ${why} (${JSON.stringify(days)}): 400, the page says why and keeps what was typed, nothing saved`, async () => {
      const res = await save({ historySync: "recent", historyDays: days })
      expect(res.status).toBe(400)
      expect(res.html).toContain("historyDays must be a whole number from 1 to 3650")
      expect(res.html).toContain(days === "" ? "required value/>" : `value="${days}"`)
      expect(await stored()).toBeNull()
    })
  }

  test("an unknown historySync: 400 with why, nothing saved", async () => {
    const res = await save({ historySync: "everything", historyDays: "30" })
    expect(res.status).toBe(400)
    expect(res.html).toContain("historySync must be one of none, recent, full")
    expect(await stored()).toBeNull()
  })
})

describe("dashboard: history on pairing, security", () => {
  test("a form without the session's CSRF token, or with a stale one, is refused and changes nothing", async () => {
    expect((await save({ historySync: "full", historyDays: "30" }, { csrf: null })).status).toBe(403)
    expect((await save({ historySync: "full", historyDays: "30" }, { csrf: "stale" })).status).toBe(403)
    expect(await stored()).toBeNull()
  })

  test("markup typed into the days field comes back as text", async () => {
    const res = await save({ historySync: "recent", historyDays: HOSTILE.attribute })
    expect(res.status).toBe(400)
    expectEscaped(res.html, [HOSTILE.attribute])
  })

  test("an unknown phone is a 404 page and nothing is saved", async () => {
    const res = await client.post("/dashboard/phones/ph_00000000000000000000000000/history-settings", { historySync: "full", historyDays: "30" })
    expect(res.status).toBe(404)
    expect(await stored()).toBeNull()
  })
})
