import { describe, expect, test } from "bun:test"
import type { Harness } from "../helpers/harness"
import { type DashboardClient, signedInForEachTest } from "../helpers/dashboard"
import type { AccountRow } from "../../src/store/accounts"

/* The block list on a phone's page (docs/dashboard.md § "Phones"): list, block, unblock, CSRF. */

let h: Harness
let client: DashboardClient
let account: AccountRow
signedInForEachTest((made) => void ({ h, client, account } = made))

describe("dashboard: a phone's block list", () => {
  test("a connected phone's page lists WhatsApp's block list with an unblock button per contact, and a block form", async () => {
    const phone = await h.seedPhone(account.id)
    await h.connectPhone(phone)
    h.gateway.contacts.blocklists.set(phone.id, new Set(["+14155550199", "123456789012345@lid"]))
    const { html } = await client.get(`/dashboard/phones/${phone.id}`)
    expect(html).toContain('<h2 id="blocked">Blocked contacts</h2>')
    expect(html).toContain("<code>+14155550199</code>")
    expect(html).toContain("Unblock 123456789012345@lid</button>")
    expect(html).toContain('<label for="block-contact">Block a contact (E.164 or …@lid)</label>')
  })

  test("block and unblock reach WhatsApp and show on the page again", async () => {
    const phone = await h.seedPhone(account.id)
    await h.connectPhone(phone)
    expect((await client.post(`/dashboard/phones/${phone.id}/block`, { contact: "+14155550177" })).status).toBe(303)
    expect((await client.get(`/dashboard/phones/${phone.id}`)).html).toContain("<code>+14155550177</code>")
    expect((await client.post(`/dashboard/phones/${phone.id}/unblock`, { contact: "+14155550177" })).status).toBe(303)
    expect((await client.get(`/dashboard/phones/${phone.id}`)).html).toContain("This phone blocks nobody.")
    expect(h.gateway.contacts.calls.filter((c) => c.op !== "blocklist").map((c) => [c.op, c.arg])).toEqual([
      ["block", "14155550177@s.whatsapp.net"],
      ["unblock", "14155550177@s.whatsapp.net"],
    ])
  })

  test("a contact that is not E.164 or a LID is refused with the reason in the block list's section, escaped", async () => {
    const phone = await h.seedPhone(account.id)
    await h.connectPhone(phone)
    const res = await client.post(`/dashboard/phones/${phone.id}/block`, { contact: "<b>x</b>" })
    expect(res.status).toBe(400)
    expect(res.html).toContain("contact must be an E.164 number (+ and 8–15 digits) or a …@lid JID")
    expect(res.html).not.toContain("<b>x</b>")
    expect(h.gateway.contacts.calls.filter((c) => c.op === "block")).toEqual([])
  })

  test("a phone that is not connected says so, and offers no block form", async () => {
    const phone = await h.seedPhone(account.id)
    const { html } = await client.get(`/dashboard/phones/${phone.id}`)
    expect(html).toContain("Connect the phone to see and change its block list.")
    expect(html).not.toContain('id="block-contact"')
  })

  test("a block without the form's CSRF token, or from another origin, is refused and never reaches WhatsApp", async () => {
    const phone = await h.seedPhone(account.id)
    await h.connectPhone(phone)
    expect((await client.post(`/dashboard/phones/${phone.id}/block`, { contact: "+14155550177" }, { csrf: null })).status).toBe(403)
    expect((await client.post(`/dashboard/phones/${phone.id}/unblock`, { contact: "+14155550177" }, { origin: "https://evil.example" })).status).toBe(403)
    expect(h.gateway.contacts.calls.filter((c) => c.op !== "blocklist")).toEqual([])
  })
})
