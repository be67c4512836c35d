import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { addPhone } from "../../src/domain/phones"
import type { PhoneRow } from "../../src/store/phones"
import { expectEscaped, HOSTILE, signIn, type DashboardClient } from "../helpers/dashboard"
import { createHarness, type Harness } from "../helpers/harness"

/* The call policy on a phone's page (docs/dashboard.md § "Pages"): shown, saved, refused with why, escaped, CSRF-checked. */

let h: Harness
let client: DashboardClient
let phone: PhoneRow
beforeEach(async () => {
  h = await createHarness()
  const account = await h.seedAccount({ name: "Acme" })
  phone = await addPhone(h.services.ctx, account.id, "+14155550123")
  client = await signIn(h)
})
afterEach(() => h.close())

const pagePath = () => `/dashboard/phones/${phone.id}`
const save = (fields: Record<string, string>, options?: { csrf?: string | null }) => client.post(`${pagePath()}/call-policy`, fields, options)
const policy = () => h.services.ctx.store.findCallPolicy(phone.id)

describe("dashboard: call policy", () => {
  test("a phone's page says calls ring and offers the form", async () => {
    const { status, html } = await client.get(pagePath())
    expect(status).toBe(200)
    expect(html).toContain("Incoming calls ring on the phone")
    expect(html).toContain('<input type="checkbox" name="rejectCalls" value="on"/> Reject incoming calls')
    expect(html).toContain('<button type="submit">Save call policy</button>')
  })

  test("saving rejects calls with a reply; the page then says so and shows the text, escaped", async () => {
    const res = await save({ rejectCalls: "on", replyText: `Please write ${HOSTILE.script}` })
    expect(res.status).toBe(303)
    expect(await policy()).toMatchObject({ rejectCalls: true, replyText: `Please write ${HOSTILE.script}` })
    const { html } = await client.get(pagePath())
    expect(html).toContain("Incoming calls are rejected, and each caller gets the reply at most once an hour")
    expectEscaped(html, [HOSTILE.script])
    // Unticked: calls ring again; an empty text clears the reply.
    expect((await save({ replyText: "" })).status).toBe(303)
    expect(await policy()).toMatchObject({ rejectCalls: false, replyText: null })
  })

  test("a reply over 1024 characters: 400, the page shows why and what was typed, nothing saved", async () => {
    const res = await save({ rejectCalls: "on", replyText: "x".repeat(1025) })
    expect(res.status).toBe(400)
    expect(res.html).toContain("replyText must be at most 1024 characters")
    expect(res.html).toContain("x".repeat(1025))
    expect(await policy()).toBeNull()
  })

  test("a form without the session's CSRF token is refused and changes nothing", async () => {
    expect((await save({ rejectCalls: "on" }, { csrf: null })).status).toBe(403)
    expect((await save({ rejectCalls: "on" }, { csrf: "stale" })).status).toBe(403)
    expect(await policy()).toBeNull()
  })
})
