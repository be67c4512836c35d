import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { createHarness, type Harness } from "../helpers/harness"
import { expectEscaped, HOSTILE, signIn, type DashboardClient } from "../helpers/dashboard"
import { createGroupService } from "../../src/domain/group-service"
import type { Principal } from "../../src/domain/api-keys"
import type { AccountRow } from "../../src/store/accounts"
import type { PhoneRow } from "../../src/store/phones"
import { GroupRefusedError } from "../../src/whatsapp/gateway"
import { detailFixture } from "../fakes/fake-groups"

/*
 * A group's page in the dashboard (docs/dashboard.md § "Groups"), in the test environment: the
 * account's sandbox groups, reached from the phone's page; members with their roles, the invite
 * link shown and revoked, the settings saved (only what changed), leaving; every change behind the
 * session's CSRF token.
 */

let h: Harness
let client: DashboardClient
let account: AccountRow
let phone: PhoneRow
let groupId: string

const members = Array.from({ length: 22 }, (_, i) => `+1650555${String(2000 + i).padStart(4, "0")}`)

beforeEach(async () => {
  h = await createHarness()
  ;({ account, phone } = await h.seedTenant())
  client = await signIn(h)
  const service = createGroupService({ ctx: h.services.ctx, ...h.services.presence })
  const principal: Principal = { keyId: "k", accountId: account.id, env: "test", scopes: [], account }
  const created = await service.create(principal, phone.id, { subject: HOSTILE.script, participants: members, description: HOSTILE.attribute })
  groupId = created.group.id
})
afterEach(() => h.close())

const scope = () => `account=${account.id}&env=test`
const groupUrl = (suffix = "") => `/dashboard/phones/${phone.id}/groups/${encodeURIComponent(groupId)}${suffix}?${scope()}`

describe("dashboard: a group's page (sandbox)", () => {
  test("the phone's page links to its groups, which list the sandbox groups and link each to its page", async () => {
    const phonePage = await client.get(`/dashboard/phones/${phone.id}?${scope()}`)
    expect(phonePage.html).toContain(`href="/dashboard/phones/${phone.id}/groups?${scope().replace("&", "&amp;")}"`)
    const list = await client.get(`/dashboard/phones/${phone.id}/groups?${scope()}`)
    expect(list.status).toBe(200)
    expect(list.html).toContain("Sandbox Team")
    expect(list.html).toContain(encodeURIComponent(groupId))
    expectEscaped(list.html, [HOSTILE.script])
  })

  test("members are listed with their roles, this phone first as super admin, and outside text is escaped", async () => {
    const { status, html } = await client.get(groupUrl())
    expect(status).toBe(200)
    expect(html).toContain("Members (23)")
    expect(html).toContain("Super admin")
    expect(html).toContain("(this phone)")
    for (const m of members) expect(html).toContain(m)
    expect(html.indexOf(phone.phoneNumber)).toBeLessThan(html.indexOf(members[0]!))
    expectEscaped(html, [HOSTILE.script, HOSTILE.attribute])
  })

  test("the invite link is shown on request, and revoking it shows a new one", async () => {
    expect((await client.get(groupUrl())).html).not.toContain("https://chat.whatsapp.com/")
    const shown = (await client.get(`${groupUrl()}&invite=show`)).html.match(/https:\/\/chat\.whatsapp\.com\/[A-Za-z0-9]+/)?.[0]
    expect(shown).toBeDefined()
    const revoked = await client.post(groupUrl("/invite/revoke"))
    expect(revoked.status).toBe(200)
    const fresh = revoked.html.match(/https:\/\/chat\.whatsapp\.com\/[A-Za-z0-9]+/)?.[0]
    expect(fresh).toBeDefined()
    expect(fresh).not.toBe(shown)
  })

  test("saving settings changes only what differs, and the page shows the new values", async () => {
    const res = await client.post(groupUrl("/settings"), {
      subject: "Tuesday runners",
      description: HOSTILE.attribute,
      announce: "1",
      memberAddMode: "all",
      ephemeralSeconds: "604800",
    })
    expect(res.status).toBe(200)
    expect(res.html).toContain("Settings saved.")
    expect(res.html).toContain('value="Tuesday runners"')
    expect(res.html).toMatch(/name="announce" value="1" checked/)
    expect(res.html).toMatch(/<option value="all" selected/)
    expect(res.html).toMatch(/<option value="604800" selected/)
    const again = await client.post(groupUrl("/settings"), { subject: "Tuesday runners", description: HOSTILE.attribute, announce: "1", memberAddMode: "all", ephemeralSeconds: "604800" })
    expect(again.html).toContain("Nothing changed.")
  })

  test("a refused setting is shown in the form's words above it", async () => {
    const res = await client.post(groupUrl("/settings"), { subject: "x".repeat(101), memberAddMode: "admins", ephemeralSeconds: "0" })
    expect(res.status).toBe(400)
    expect(res.html).toContain("Subject must be 1 to 100 characters")
  })

  test("leaving takes the phone out of the group and back to its list", async () => {
    const res = await client.post(groupUrl("/leave"))
    expect(res.status).toBe(200)
    expect(res.html).toContain(`${phone.phoneNumber} left`)
    expect((await client.get(groupUrl())).status).toBe(404)
  })
})

describe("dashboard: a group's page refuses changes without the session's protections", () => {
  test("a post without the CSRF token, or from another origin, changes nothing", async () => {
    for (const options of [{ csrf: null }, { origin: "https://evil.example" }]) {
      const res = await client.post(groupUrl("/leave"), {}, options)
      expect(res.status).toBe(403)
    }
    const settings = await client.post(groupUrl("/settings"), { subject: "Hijacked", memberAddMode: "admins", ephemeralSeconds: "0" }, { csrf: "forged" })
    expect(settings.status).toBe(403)
    const page = await client.get(groupUrl())
    expect(page.status).toBe(200)
    expect(page.html).not.toContain("Hijacked")
  })
})

describe("dashboard: a group's page (live)", () => {
  const LIVE_GROUP = "120363111122223333@g.us"
  const person = (n: string) => ({ jid: `${n.slice(1)}@s.whatsapp.net`, phoneNumber: n, lid: null })

  async function livePhoneInGroup(asAdmin: boolean): Promise<string> {
    await h.connectPhone(phone)
    h.gateway.groups.set(phone.id, [{ id: LIVE_GROUP, name: "Live customers", announcementOnly: false, selfIsMember: true, selfIsAdmin: asAdmin }])
    h.gateway.groupWorld.details.set(
      LIVE_GROUP,
      detailFixture(LIVE_GROUP, {
        subject: "Live customers",
        participants: [
          { ...person("+16505550001"), isAdmin: true, isSuperAdmin: true },
          { ...person(phone.phoneNumber), isAdmin: asAdmin, isSuperAdmin: false },
          { jid: "271828182845904@lid", phoneNumber: null, lid: "271828182845904@lid", isAdmin: false, isSuperAdmin: false },
        ],
      }),
    )
    return `/dashboard/phones/${phone.id}/groups/${encodeURIComponent(LIVE_GROUP)}?account=${account.id}&env=live`
  }

  test("the live list and page come from the phone's WhatsApp; a member who is not admin sees the settings greyed out and no revoke", async () => {
    const url = await livePhoneInGroup(false)
    const list = await client.get(`/dashboard/phones/${phone.id}/groups?account=${account.id}&env=live`)
    expect(list.html).toContain("Groups on WhatsApp")
    expect(list.html).toContain("Live customers")
    const { status, html } = await client.get(url)
    expect(status).toBe(200)
    expect(html).toContain("Members (3)")
    expect(html).toContain("(number hidden)")
    expect(html).toContain('<fieldset disabled class="plain">')
    expect(html).toContain("WhatsApp lets only admins change it")
    expect(html).not.toContain("Revoke link")
  })

  test("a change WhatsApp refuses for want of admin rights shows WhatsApp's sentence above the form, with 403", async () => {
    const url = await livePhoneInGroup(true)
    h.gateway.groupWorld.errors.set("update", new GroupRefusedError("not_admin", "401"))
    const res = await client.post(url.replace("?", "/settings?"), { subject: "Renamed", memberAddMode: "admins", ephemeralSeconds: "0" })
    expect(res.status).toBe(403)
    expect(res.html).toContain("this action needs admin rights")
  })

  test("a timer the form does not offer is kept: saving another setting sends only that setting to WhatsApp", async () => {
    const url = await livePhoneInGroup(true)
    h.gateway.groupWorld.details.set(LIVE_GROUP, { ...h.gateway.groupWorld.details.get(LIVE_GROUP)!, ephemeralSeconds: 2592000 })
    const page = await client.get(url)
    expect(page.html).toMatch(/<option value="2592000" selected>2592000 seconds \(set in the app\)<\/option>/)
    const res = await client.post(url.replace("?", "/settings?"), { subject: "Live customers", locked: "1", memberAddMode: "admins", ephemeralSeconds: "2592000" })
    expect(res.status).toBe(200)
    const updates = h.gateway.groupWorld.calls.filter((c) => c.op === "update").map((c) => c.args[1])
    expect(updates).toEqual([{ locked: true }])
  })

  test("a live phone that is not connected: its groups page says so instead of a list", async () => {
    const res = await client.get(`/dashboard/phones/${phone.id}/groups?account=${account.id}&env=live`)
    expect(res.status).toBe(200)
    expect(res.html).toContain('role="alert"')
    expect(res.html).not.toContain("Live customers")
  })
})
