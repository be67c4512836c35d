import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import type { InboundMessage } from "../../src/whatsapp/gateway"
import { createHarness, type Harness } from "../helpers/harness"
import { expectEscaped, HOSTILE, signIn, type DashboardClient } from "../helpers/dashboard"
import { liveTenant, send } from "../live/live-helpers"

/*
 * A message's page around the message (docs/dashboard.md § "Messages"): what it quotes, its
 * location or contact card, edits and deletions, reactions and replies; an inbound message's
 * attachment through a signed-in route (an image inline, anything else a download); and the
 * reply form, which sends through the same rules as the API and is CSRF-checked like every form.
 */

let h: Harness
let client: DashboardClient
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

const ALICE = "+14155550177"
const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4])

function inbound(overrides: Partial<InboundMessage> = {}): InboundMessage {
  return { waMessageId: "IN-1", from: ALICE, isGroup: false, groupId: null, type: "text", content: "Hi", receivedAtMs: h.clock.nowMs() - 1_000, ...overrides }
}

/** A live tenant, signed in, with inbound messages received; their inmsg_ ids, oldest first. */
async function withInbound(messages: InboundMessage[]) {
  const tenant = await liveTenant(h)
  client = await signIn(h)
  const session = h.gateway.current(tenant.phone.id)
  for (const m of messages) session.receive(m)
  await h.settle()
  const list = await h.request("GET", "/v1/messages/inbound?limit=100", { key: tenant.key })
  const ids = (list.body.data.data as { id: string }[]).map((m) => m.id).reverse()
  return { ...tenant, session, ids }
}

const pageOf = (id: string, accountId: string) => client.get(`/dashboard/messages/${id}?account=${accountId}&env=live`)

describe("an outbound message's page", () => {
  test("names its type, what it replies to, its location, and the reactions it got, ours included", async () => {
    const { account, key, phone, ids } = await withInbound([inbound({ waMessageId: "Q1", content: "Where are you?" })])
    const sent = await send(h, key, { fromPhoneId: phone.phoneNumber, to: ALICE, location: { latitude: 52.52, longitude: 13.405, name: "Shop" }, replyTo: ids[0] })
    expect(sent.status).toBe(201)
    await h.settle()
    const session = h.gateway.current(phone.id)
    for (const { part } of h.gateway.sent) session.ack(part.waMessageId, h.clock.nowMs())
    await h.settle()
    expect((await h.request("POST", `/v1/messages/${sent.body.data.id}/reaction`, { key, body: { emoji: "👍" } })).status).toBe(200)
    const page = await pageOf(sent.body.data.id, account.id)
    expect(page.status).toBe(200)
    expect(page.html).toContain("<dt>Type</dt><dd>location</dd>")
    expect(page.html).toContain(`href="/dashboard/messages/${ids[0]}?account=${account.id}&amp;env=live"`)
    expect(page.html).toContain("52.52, 13.405 · Shop")
    expect(page.html).toMatch(/Reactions<\/h2>[\s\S]*👍/)
  })

  test("says when it was edited and when it was deleted for everyone", async () => {
    const tenant = await h.seedTenant()
    client = await signIn(h)
    const sent = await send(h, tenant.key, { fromPhoneId: tenant.phone.phoneNumber, to: "+14155550199", content: "typo" })
    await h.settle()
    expect((await h.request("PATCH", `/v1/messages/${sent.body.data.id}`, { key: tenant.key, body: { content: "fixed" } })).status).toBe(200)
    expect((await h.request("DELETE", `/v1/messages/${sent.body.data.id}`, { key: tenant.key })).status).toBe(200)
    const page = await client.get(`/dashboard/messages/${sent.body.data.id}?account=${tenant.account.id}&env=test`)
    expect(page.html).toContain("<dt>Edited</dt>")
    expect(page.html).toContain("<dt>Deleted for everyone</dt>")
    expect(page.html).not.toContain("<dt>Reply to</dt>")
  })
})

describe("the outbound list", () => {
  test("a row says what was sent instead of text: the place, the contact card, a voice-note badge", async () => {
    const tenant = await h.seedTenant()
    client = await signIn(h)
    const from = { fromPhoneId: tenant.phone.phoneNumber, to: "+14155550199" }
    await send(h, tenant.key, { ...from, location: { latitude: 52.52, longitude: 13.405, name: "Shop <b>" } })
    await send(h, tenant.key, { ...from, location: { latitude: -33.9, longitude: 18.4 } })
    await send(h, tenant.key, { ...from, contact: { name: "Acme Support", phoneNumbers: ["+14155550123"] } })
    await send(h, tenant.key, { ...from, mediaUrls: ["https://files.example.com/note.ogg"], voiceNote: true })
    const list = await client.get(`/dashboard/messages?account=${tenant.account.id}&env=test`)
    expect(list.html).toContain("Location: Shop &lt;b>")
    expect(list.html).not.toContain("Shop <b>")
    expect(list.html).toContain("Location: -33.9, 18.4")
    expect(list.html).toContain("Contact card: Acme Support")
    expect(list.html).toContain(`<span class="badge">voice note</span>`)
  })
})

describe("a poll's page", () => {
  test("shows the question, each option's votes as a meter and who voted, escaped; the list row names the poll", async () => {
    const tenant = await h.seedTenant()
    client = await signIn(h)
    const sent = await send(h, tenant.key, { fromPhoneId: tenant.phone.phoneNumber, to: "+14155550199", poll: { question: "Lunch <i>?", options: ["Pizza <b>", "Soup"] } })
    await h.advance(h.config.sandboxReadMs)
    const page = await client.get(`/dashboard/messages/${sent.body.data.id}?account=${tenant.account.id}&env=test`)
    expect(page.html).toContain('<h2 id="poll-title">Poll</h2>')
    expect(page.html).toContain("<strong>Lunch &lt;i>?</strong>")
    expect(page.html).toMatch(/Pizza &lt;b>[\s\S]*<meter min="0" max="1" value="1"/)
    expect(page.html).toContain("+14155550199</span>: Pizza &lt;b>")
    expect(page.html).not.toContain("<b>")
    const list = await client.get(`/dashboard/messages?account=${tenant.account.id}&env=test`)
    expect(list.html).toContain("Poll: Lunch &lt;i>?")
  })
})

describe("an inbound message's page", () => {
  test("shows an image inline and a document as a download, its contact card, and the replies it got", async () => {
    const media = (mimetype: string, fileName: string | null, descriptor: string) => ({ mimetype, sizeBytes: 8, fileName, capKind: "image" as const, descriptor })
    const { account, key, phone, ids } = await withInbound([
      inbound({ waMessageId: "IMG", type: "image", content: "look", details: { media: media("image/jpeg", null, "d-img") } }),
      inbound({ waMessageId: "DOC", type: "document", content: "", details: { media: media("application/pdf", "invoice.pdf", "d-doc") } }),
      inbound({ waMessageId: "CARD", type: "contact", content: "Ada", details: { contact: { name: "Ada", phoneNumbers: ["+14155550199"], organization: "Acme" } } }),
    ])
    const [image, doc, card] = ids
    const imagePage = await pageOf(image!, account.id)
    expect(imagePage.html).toContain(`<img class="inbound-media" src="/dashboard/messages/${image}/media?account=${account.id}&amp;env=live"`)
    const docPage = await pageOf(doc!, account.id)
    expect(docPage.html).not.toContain("<img")
    expect(docPage.html).toContain("Download invoice.pdf")
    expect((await pageOf(card!, account.id)).html).toContain("Ada (Acme): +14155550199")

    const reply = await send(h, key, { fromPhoneId: phone.phoneNumber, to: ALICE, content: "Thanks for the photo", replyTo: image })
    await h.settle()
    expect((await pageOf(image!, account.id)).html).toMatch(new RegExp(`Replies</h2>[\\s\\S]*${reply.body.data.id}[\\s\\S]*Thanks for the photo`))
  })

  test("the media route serves an image inline and anything else as an attachment, with a CSP that runs nothing", async () => {
    const { account, ids } = await withInbound([
      inbound({ waMessageId: "IMG", type: "image", content: "", details: { media: { mimetype: "image/jpeg", sizeBytes: JPEG.length, fileName: null, capKind: "image", descriptor: "d-img" } } }),
      inbound({ waMessageId: "SVG", type: "document", content: "", details: { media: { mimetype: "image/svg+xml", sizeBytes: 5, fileName: "x.svg", capKind: "document", descriptor: "d-svg" } } }),
    ])
    h.gateway.media.set("d-img", JPEG)
    h.gateway.media.set("d-svg", new TextEncoder().encode("<svg>"))
    const img = await h.app.handle(new Request(`http://localhost/dashboard/messages/${ids[0]}/media?account=${account.id}&env=live`, { headers: { cookie: client.cookie } }))
    expect(img.status).toBe(200)
    expect(img.headers.get("content-type")).toBe("image/jpeg")
    expect(img.headers.get("content-disposition")).toStartWith("inline;")
    expect(img.headers.get("x-content-type-options")).toBe("nosniff")
    expect(img.headers.get("content-security-policy")).toContain("sandbox")
    expect(new Uint8Array(await img.arrayBuffer())).toEqual(JPEG)
    const svg = await h.app.handle(new Request(`http://localhost/dashboard/messages/${ids[1]}/media?account=${account.id}&env=live`, { headers: { cookie: client.cookie } }))
    expect(svg.headers.get("content-disposition")).toStartWith("attachment;")
  })

  test("the media route is for signed-in operators only: without a session it sends to sign-in and no bytes", async () => {
    const { account, ids } = await withInbound([
      inbound({ waMessageId: "IMG", type: "image", content: "", details: { media: { mimetype: "image/jpeg", sizeBytes: JPEG.length, fileName: null, capKind: "image", descriptor: "d-img" } } }),
    ])
    h.gateway.media.set("d-img", JPEG)
    const res = await h.app.handle(new Request(`http://localhost/dashboard/messages/${ids[0]}/media?account=${account.id}&env=live`))
    expect(res.status).toBe(303)
    expect(res.headers.get("location")).toStartWith("/dashboard/sign-in")
    expect(h.gateway.mediaCalls).toEqual([])
  })
})

describe("replying from an inbound message's page", () => {
  test("sends a reply quoting it from the receiving phone to the sender, and opens the new message", async () => {
    const { account, phone, ids } = await withInbound([inbound({ waMessageId: "ASK", content: "Is it in stock?" })])
    const page = await pageOf(ids[0]!, account.id)
    const keyId = /<select id="reply-key" name="keyId"><option value="([^"]+)"/.exec(page.html)![1]!
    const res = await client.post(`/dashboard/messages/${ids[0]}/reply?account=${account.id}&env=live`, { keyId, content: "Yes, 3 left" })
    expect(res.status).toBe(303)
    const location = res.headers.get("location")!
    const newId = /\/dashboard\/messages\/(msg_[^?]+)/.exec(location)![1]!
    await h.settle()
    const sent = h.gateway.sent.find((s) => s.part.waMessageId.length > 0 && s.phoneId === phone.id)!
    expect(sent.part.toJid).toBe("14155550177@s.whatsapp.net")
    expect(sent.part.quote).toMatchObject({ waMessageId: "ASK", fromMe: false, text: "Is it in stock?" })
    const shown = await client.get(location)
    expect(shown.html).toContain(newId)
    expect(shown.html).toContain(`href="/dashboard/messages/${ids[0]}?account=${account.id}&amp;env=live"`)
  })

  test("without the form's CSRF token: 403 and nothing is sent", async () => {
    const { account, ids } = await withInbound([inbound({ waMessageId: "ASK" })])
    const page = await pageOf(ids[0]!, account.id)
    const keyId = /<select id="reply-key" name="keyId"><option value="([^"]+)"/.exec(page.html)![1]!
    const res = await client.post(`/dashboard/messages/${ids[0]}/reply?account=${account.id}&env=live`, { keyId, content: "sneaky" }, { csrf: null })
    expect(res.status).toBe(403)
    await h.settle()
    expect(h.gateway.sent).toEqual([])
  })

  test("an empty reply is refused with the form's words and the page again", async () => {
    const { account, ids } = await withInbound([inbound({ waMessageId: "ASK" })])
    const page = await pageOf(ids[0]!, account.id)
    const keyId = /<select id="reply-key" name="keyId"><option value="([^"]+)"/.exec(page.html)![1]!
    const res = await client.post(`/dashboard/messages/${ids[0]}/reply?account=${account.id}&env=live`, { keyId, content: "   " })
    expect(res.status).toBe(400)
    expect(res.html).toContain("Your reply must not be empty")
    expect(h.gateway.sent).toEqual([])
  })

  test("text a sender chose is shown escaped in the facts, the attachment's name and the replies", async () => {
    const { account, key, phone, ids } = await withInbound([
      inbound({
        waMessageId: "EVIL",
        type: "document",
        content: HOSTILE.script,
        details: { media: { mimetype: "application/pdf", sizeBytes: 8, fileName: HOSTILE.attribute, capKind: "document", descriptor: "d" }, contact: { name: HOSTILE.script, phoneNumbers: [ALICE] } },
      }),
    ])
    await send(h, key, { fromPhoneId: phone.phoneNumber, to: ALICE, content: HOSTILE.attribute, replyTo: ids[0] })
    await h.settle()
    const page = await pageOf(ids[0]!, account.id)
    expectEscaped(page.html, [HOSTILE.script, HOSTILE.attribute])
  })
})
