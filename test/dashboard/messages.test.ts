import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { recordInbound } from "../../src/domain/inbound"
import { createEndpoint } from "../../src/domain/webhook-endpoints"
import type { AccountRow } from "../../src/store/accounts"
import type { PhoneRow } from "../../src/store/phones"
import { createHarness, type Harness } from "../helpers/harness"
import { expectEscaped, HOSTILE, signIn, type DashboardClient } from "../helpers/dashboard"

let h: Harness
let client: DashboardClient
let account: AccountRow
let phone: PhoneRow
let key: string
beforeEach(async () => {
  h = await createHarness({ env: { WAGATE_SANDBOX_DELIVERED_MS: "1000", WAGATE_SANDBOX_READ_MS: "2000" } })
  account = await h.seedAccount({ name: "Acme" })
  phone = await h.seedPhone(account.id, "+14155550150")
  key = await h.seedKey(account.id)
  client = await signIn(h)
})
afterEach(() => h.close())

async function send(to: string, content: string): Promise<string> {
  const res = await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.id, to, content } })
  if (res.status !== 201 && res.status !== 200 && res.status !== 202) throw new Error(`send failed: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body.data.id ?? res.body.data.messageId
}

describe("dashboard: messages", () => {
  test("the outbound list shows test messages newest first, filters by status and recipient, and pages by 'Older'", async () => {
    const ids: string[] = []
    for (let i = 0; i < 52; i++) ids.push(await send("+14155550199", `hello ${i}`))
    const failed = await send("+12025550101", "to nobody")
    await h.settle()
    const first = await client.get(`/dashboard/messages?account=${account.id}&env=test`)
    expect(first.status).toBe(200)
    expect(first.html).toContain(failed)
    expect(first.html).toContain("hello 51")
    expect(first.html).not.toContain("hello 1<")
    const older = /href="([^"]*before=\d+[^"]*)">Older</.exec(first.html)![1]!.replaceAll("&amp;", "&")
    const second = await client.get(older)
    expect(second.html).toContain("hello 0<")
    expect(second.html).not.toContain("hello 51")
    const onlyFailed = await client.get(`/dashboard/messages?account=${account.id}&env=test&status=failed`)
    expect(onlyFailed.html).toContain(failed)
    expect(onlyFailed.html).not.toContain("hello ")
    const byRecipient = await client.get(`/dashboard/messages?account=${account.id}&env=test&to=%2B12025550101`)
    expect(byRecipient.html).toContain("to nobody")
    expect(byRecipient.html).not.toContain("hello ")
  })

  test("live data is not on the test list", async () => {
    await send("+14155550199", "sandbox only")
    const live = await client.get(`/dashboard/messages?account=${account.id}&env=live`)
    expect(live.html).not.toContain("sandbox only")
    expect(live.html).toContain("No messages match.")
  })

  test("a message's page shows its timeline, polls while it can change and stops once read", async () => {
    const id = await send("+14155550199", "watch me")
    const pending = await client.get(`/dashboard/messages/${id}`)
    expect(pending.html).toContain("watch me")
    expect(pending.html).toContain(`hx-get="/dashboard/messages/${id}/timeline?account=${account.id}&amp;env=test"`)
    expect(pending.html).toContain('hx-trigger="every 1s"')
    await h.advance(1000)
    await h.advance(1000)
    await h.settle()
    const read = await client.get(`/dashboard/messages/${id}/timeline`)
    expect(read.status).toBe(200)
    expect(read.html).toStartWith('<div id="timeline">')
    expect(read.html).toContain(">read</span>")
    expect(read.html).not.toContain("hx-trigger")
    expect(read.html).toMatch(/<strong>Delivered<\/strong> <time/)
    expect(read.html).toMatch(/<strong>Read<\/strong> <time/)
  })

  test("a message's page lists the webhook deliveries of its events", async () => {
    await createEndpoint(h.services.ctx, { accountId: account.id, env: "test", url: "https://hooks.example/wagate", events: ["*"] })
    const id = await send("+12025550101", "fails")
    await h.settle()
    const { html } = await client.get(`/dashboard/messages/${id}`)
    expect(html).toContain("recipient_not_on_whatsapp")
    expect(html).toContain("<strong>message.failed</strong> to ")
    expect(html).toContain("https://hooks.example/wagate")
  })

  test("message content and inbound text written by strangers render as text", async () => {
    const hostile = `${HOSTILE.script} ${HOSTILE.attribute}`
    const id = await send("+14155550199", hostile)
    await h.connectPhone(phone)
    const inbound = await recordInbound(h.services.ctx, phone.id, {
      waMessageId: "WA1",
      from: "+14155550177",
      isGroup: false,
      groupId: null,
      type: "text",
      content: hostile,
      receivedAtMs: h.clock.nowMs(),
    })
    expectEscaped((await client.get(`/dashboard/messages?account=${account.id}&env=test`)).html, [HOSTILE.script, HOSTILE.attribute])
    expectEscaped((await client.get(`/dashboard/messages/${id}`)).html, [HOSTILE.script, HOSTILE.attribute])
    expectEscaped((await client.get(`/dashboard/messages?account=${account.id}&env=live&direction=inbound`)).html, [HOSTILE.script, HOSTILE.attribute])
    expectEscaped((await client.get(`/dashboard/messages/${inbound!.id}`)).html, [HOSTILE.script, HOSTILE.attribute])
  })

  test("an unknown message is a 404 page", async () => {
    expect((await client.get("/dashboard/messages/msg_nothere")).status).toBe(404)
    expect((await client.get("/dashboard/messages/inmsg_nothere")).status).toBe(404)
  })
})
