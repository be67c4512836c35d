import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { EVENT_NAMES } from "../../src/domain/event-catalogue"
import { createEndpoint } from "../../src/domain/webhook-endpoints"
import { createHarness, type Harness } from "../helpers/harness"
import { signIn, type DashboardClient } from "../helpers/dashboard"
import { liveTenant, send } from "../live/live-helpers"

/*
 * What a new user tripped on in the dashboard (issue 28), as seen over HTTP: the switcher only
 * where the page is per account, the webhook events grouped by resource, list rows that mark
 * edited and deleted messages, and our own reactions marked "(us)" like our replies. The folded
 * menu and the table's alignment are visual: they are in browser-suite.ts.
 */

let h: Harness
let client: DashboardClient
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

const ALICE = "+14155550177"

describe("dashboard: the account switcher", () => {
  test("shows on a page per account (phones) and not on the Nodes page, which is the same for every account", async () => {
    const account = await h.seedAccount({ name: "Acme" })
    client = await signIn(h)
    expect((await client.get(`/dashboard/phones?account=${account.id}`)).html).toContain('id="account-switch"')
    const nodes = await client.get(`/dashboard/nodes?account=${account.id}`)
    expect(nodes.status).toBe(200)
    expect(nodes.html).not.toContain('id="account-switch"')
    expect(nodes.html).not.toContain('class="scopebar"')
  })
})

describe("dashboard: the webhook event checkboxes", () => {
  test("are grouped by resource under a heading each, the groups and their events in catalogue order, every event once", async () => {
    const account = await h.seedAccount({ name: "Acme" })
    client = await signIn(h)
    const { html } = await client.get(`/dashboard/webhooks?account=${account.id}&env=test`)
    const groups = [...html.matchAll(/<fieldset class="event-group"><legend>([^<]+)<\/legend>([\s\S]*?)<\/fieldset>/g)].map((m) => ({
      heading: m[1],
      events: [...m[2]!.matchAll(/name="events" value="([^"]+)"/g)].map((e) => e[1]),
    }))
    const inOrder = (prefix: string) => EVENT_NAMES.filter((e) => e.startsWith(prefix))
    expect(groups).toEqual([
      { heading: "Message events", events: inOrder("message.") },
      { heading: "Phone events", events: inOrder("phone.") },
      { heading: "Poll events", events: inOrder("poll.") },
      { heading: "Call events", events: inOrder("call.") },
      { heading: "Group events", events: inOrder("group.") },
      { heading: "Chat events", events: inOrder("chat.") },
      { heading: "History events", events: inOrder("history.") },
    ])
    expect(groups.flatMap((g) => g.events).sort()).toEqual([...EVENT_NAMES].sort())
  })
})

/** The list row (tags stripped) whose text contains `needle`. */
function rowWith(html: string, needle: string): string {
  const row = html.split("<tr>").find((r) => r.includes(needle))
  if (!row) throw new Error(`no row with ${needle}`)
  return row.split("</tr>")[0]!.replace(/<[^>]+>/g, " ").replace(/\s+/g, " ").trim()
}

describe("dashboard: the message lists mark changed messages", () => {
  test("an outbound row says edited or deleted; an unchanged one says neither", async () => {
    const tenant = await h.seedTenant()
    client = await signIn(h)
    const ids: string[] = []
    for (const content of ["kept as sent", "typo here", "sent by mistake"]) ids.push((await send(h, tenant.key, { fromPhoneId: tenant.phone.phoneNumber, to: ALICE, content })).body.data.id)
    await h.settle()
    expect((await h.request("PATCH", `/v1/messages/${ids[1]}`, { key: tenant.key, body: { content: "fixed here" } })).status).toBe(200)
    expect((await h.request("DELETE", `/v1/messages/${ids[2]}`, { key: tenant.key })).status).toBe(200)
    const { html } = await client.get(`/dashboard/messages?account=${tenant.account.id}&env=test`)
    expect(rowWith(html, "kept as sent")).not.toMatch(/edited|deleted/)
    expect(rowWith(html, "fixed here")).toEndWith("fixed here edited")
    expect(rowWith(html, "sent by mistake")).toEndWith("sent by mistake deleted")
  })

  test("an inbound row says edited or deleted when its sender changed it", async () => {
    const tenant = await liveTenant(h)
    client = await signIn(h)
    const session = h.gateway.current(tenant.phone.id)
    const atMs = h.clock.nowMs() - 1_000
    for (const [waMessageId, content] of [["KEEP", "as it came"], ["EDIT", "befor"], ["GONE", "oops"]] as const) {
      session.receive({ waMessageId, from: ALICE, isGroup: false, groupId: null, type: "text", content, receivedAtMs: atMs })
    }
    await h.settle()
    session.act({ kind: "edit", targetWaMessageId: "EDIT", from: ALICE, content: "after", atMs })
    session.act({ kind: "revoke", targetWaMessageId: "GONE", from: ALICE, atMs })
    await h.settle()
    const { html } = await client.get(`/dashboard/messages?account=${tenant.account.id}&env=live&direction=inbound`)
    expect(rowWith(html, "as it came")).not.toMatch(/edited|deleted/)
    expect(rowWith(html, "after")).toEndWith("after edited")
    expect(rowWith(html, "oops")).toEndWith("oops deleted")
  })
})

describe("dashboard: our own reactions", () => {
  test("a reaction from our phone is marked (us) on the message's page, as our replies are; a contact's is not", async () => {
    const tenant = await liveTenant(h)
    client = await signIn(h)
    const session = h.gateway.current(tenant.phone.id)
    session.receive({ waMessageId: "ASK", from: ALICE, isGroup: false, groupId: null, type: "text", content: "Open today?", receivedAtMs: h.clock.nowMs() - 1_000 })
    await h.settle()
    const list = await h.request("GET", "/v1/messages/inbound?limit=1", { key: tenant.key })
    const inboundId = list.body.data.data[0].id as string
    expect((await h.request("POST", `/v1/messages/${inboundId}/reaction`, { key: tenant.key, body: { emoji: "👍" } })).status).toBe(200)
    const reply = await send(h, tenant.key, { fromPhoneId: tenant.phone.phoneNumber, to: ALICE, content: "Until six", replyTo: inboundId })
    await h.settle()
    const sent = h.gateway.sent.find((s) => s.phoneId === tenant.phone.id)!
    session.ack(sent.part.waMessageId, h.clock.nowMs())
    await h.settle()
    session.act({ kind: "reaction", targetWaMessageId: sent.part.waMessageId, targetFromMe: true, from: ALICE, emoji: "🙏", atMs: h.clock.nowMs() })
    expect((await h.request("POST", `/v1/messages/${reply.body.data.id}/reaction`, { key: tenant.key, body: { emoji: "❤️" } })).status).toBe(200)
    await h.settle()

    const ours = `${tenant.phone.phoneNumber} (us)`
    const inboundPage = (await client.get(`/dashboard/messages/${inboundId}?account=${tenant.account.id}&env=live`)).html
    expect(rowWith(inboundPage, "👍")).toContain(ours)
    expect(rowWith(inboundPage, "Until six")).toContain(ours)
    const replyPage = (await client.get(`/dashboard/messages/${reply.body.data.id}?account=${tenant.account.id}&env=live`)).html
    expect(rowWith(replyPage, "❤️")).toContain(ours)
    expect(rowWith(replyPage, "🙏")).toContain(ALICE)
    expect(rowWith(replyPage, "🙏")).not.toContain("(us)")
  })
})

describe("dashboard: a message's webhook deliveries", () => {
  /** How many deliveries of `type` the page lists. */
  const deliveriesOf = (html: string, type: string) => html.split(`<strong>${type}</strong> to `).length - 1

  test("an outbound message's page lists the deliveries of the reactions to it, ours and a contact's, beside its status events", async () => {
    const tenant = await liveTenant(h)
    client = await signIn(h)
    await createEndpoint(h.services.ctx, { accountId: tenant.account.id, env: "live", url: "http://127.0.0.1:9/hooks", events: ["*"] })
    const sent = await send(h, tenant.key, { fromPhoneId: tenant.phone.phoneNumber, to: ALICE, content: "Your table is ready" })
    await h.settle()
    const session = h.gateway.current(tenant.phone.id)
    const part = h.gateway.sent.find((s) => s.phoneId === tenant.phone.id)!.part
    session.ack(part.waMessageId, h.clock.nowMs())
    await h.settle()
    await h.advance(1_000)
    expect((await h.request("POST", `/v1/messages/${sent.body.data.id}/reaction`, { key: tenant.key, body: { emoji: "👍" } })).status).toBe(200)
    await h.advance(1_000)
    session.act({ kind: "reaction", targetWaMessageId: part.waMessageId, targetFromMe: true, from: ALICE, emoji: "🙏", atMs: h.clock.nowMs() })
    await h.settle()
    const { html } = await client.get(`/dashboard/messages/${sent.body.data.id}?account=${tenant.account.id}&env=live`)
    expect({ sent: deliveriesOf(html, "message.sent"), reaction: deliveriesOf(html, "message.reaction") }).toEqual({ sent: 1, reaction: 2 })
    expect(html).not.toContain("were looked for up to")
  })

  test("an inbound message's page lists the deliveries of its receipt, a reaction, its edit and its deletion", async () => {
    const tenant = await liveTenant(h)
    client = await signIn(h)
    await createEndpoint(h.services.ctx, { accountId: tenant.account.id, env: "live", url: "http://127.0.0.1:9/hooks", events: ["*"] })
    const session = h.gateway.current(tenant.phone.id)
    session.receive({ waMessageId: "ASK", from: ALICE, isGroup: false, groupId: null, type: "text", content: "Open today?", receivedAtMs: h.clock.nowMs() - 1_000 })
    await h.settle()
    const inboundId = (await h.request("GET", "/v1/messages/inbound?limit=1", { key: tenant.key })).body.data.data[0].id as string
    await h.advance(1_000)
    expect((await h.request("POST", `/v1/messages/${inboundId}/reaction`, { key: tenant.key, body: { emoji: "👍" } })).status).toBe(200)
    session.act({ kind: "edit", targetWaMessageId: "ASK", from: ALICE, content: "Open tomorrow?", atMs: h.clock.nowMs() })
    session.act({ kind: "revoke", targetWaMessageId: "ASK", from: ALICE, atMs: h.clock.nowMs() })
    await h.settle()
    const { html } = await client.get(`/dashboard/messages/${inboundId}?account=${tenant.account.id}&env=live`)
    const types = ["message.received", "message.reaction", "message.edited", "message.revoked"]
    expect(types.map((t) => deliveriesOf(html, t))).toEqual([1, 1, 1, 1])
  })
})
