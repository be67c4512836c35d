import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { createEndpoint } from "../../src/domain/webhook-endpoints"
import type { AccountRow } from "../../src/store/accounts"
import type { PhoneRow } from "../../src/store/phones"
import { createHarness, type Harness } from "../helpers/harness"
import { expectEscaped, HOSTILE, signIn, type DashboardClient } from "../helpers/dashboard"

/*
 * The Chats page (docs/dashboard.md § "Chats"): a phone's inbox, its self-refreshing panes and
 * its CSRF-checked changes, on the chats domain of `/v1/chats` with the sandbox's conversations.
 */

const CUSTOMER = "+14155550199"

let h: Harness
let client: DashboardClient
let account: AccountRow
let phone: PhoneRow
let key: string
beforeEach(async () => {
  h = await createHarness()
  account = await h.seedAccount({ name: "Acme" })
  phone = await h.seedPhone(account.id, "+14155550170")
  key = await h.seedKey(account.id, { env: "test", scopes: ["messages:send", "messages:read"] })
  client = await signIn(h)
})
afterEach(() => h.close())

const inbox = (extra = "") => `/dashboard/phones/${phone.id}/chats?account=${account.id}&env=test${extra}`
const chatParam = (chatId = CUSTOMER) => `&chat=${encodeURIComponent(chatId)}`
async function customerSays(content: string, from = CUSTOMER): Promise<string> {
  const res = await h.request("POST", "/v1/sandbox/inbound", { key, body: { fromPhoneId: phone.id, from, content } })
  expect(res.status).toBe(201)
  return res.body.data.message.id
}
const keyId = () => (h.services.sqlite!.query("SELECT id FROM api_keys").get() as { id: string }).id
const sentRows = () => h.services.sqlite!.query("SELECT to_address AS toAddress, content, reply_to AS replyTo FROM messages").all()

/** A customer's message as the receiver records it, with what the test adds (media, an edit, a deletion). */
async function recorded(n: number, env: "test" | "live", content: string, extra: Record<string, unknown> = {}): Promise<string> {
  const now = h.clock.nowMs()
  const id = `inmsg_${String(n).padStart(26, "0")}`
  await h.services.ctx.store.write((q) =>
    q.insertInbound({
      id, accountId: account.id, env, phoneId: phone.id, waMessageId: `WA${n}`, fromAddress: CUSTOMER, fromUsername: null, toNumber: phone.phoneNumber,
      content, type: "text", isGroup: false, groupId: null, receivedAtMs: now, createdAtMs: now, replyToId: null, media: null, mediaGoneAtMs: null,
      location: null, contact: null, editedAtMs: null, revokedAtMs: null, ...extra,
    }),
  )
  return id
}

describe("dashboard chats: success", () => {
  test("the list shows each chat with its preview and unread count, and the open chat its bubbles and reply box", async () => {
    await customerSays("Is the table still free tonight?")
    await customerSays("Hallo", "+4915112345678")
    const { status, html } = await client.get(inbox(chatParam()))
    expect(status).toBe(200)
    expect(html).toContain("Is the table still free tonight?")
    expect(html).toContain("+4915112345678")
    expect(html).toContain('aria-label="1 unread"')
    expect(html).toContain('class="bubble in')
    expect(html).toContain('id="reply-box"')
    expect(html).toContain(`hx-get="/dashboard/phones/${phone.id}/chats/live/timeline`)
  })

  test("search keeps the chats whose name or number matches, and the unread filter the unread ones", async () => {
    await customerSays("first", "+14155550101")
    await customerSays("second", "+4915112345678")
    const searched = (await client.get(inbox("&q=49151"))).html
    expect(searched).toContain("+4915112345678")
    expect(searched).not.toContain("+14155550101")
    await client.post(inbox(chatParam("+14155550101")).replace("/chats?", "/chats/read?"), { chatId: "+14155550101" })
    const unread = (await client.get(inbox("&filter=unread"))).html
    expect(unread).toContain("+4915112345678")
    expect(unread).not.toContain("+14155550101")
  })

  test("a reply quoting a message, a reaction, mark read and archive go through the domain and back to the chat", async () => {
    const asked = await customerSays("Can I bring my dog?")
    const action = (name: string) => inbox(chatParam()).replace("/chats?", `/chats/${name}?`)
    const sent = await client.post(action("send"), { keyId: keyId(), chatId: CUSTOMER, content: "Of course!", replyTo: asked })
    expect(sent.status).toBe(303)
    expect(sent.headers.get("location")).toBe(inbox(chatParam()))
    expect(sentRows()).toEqual([{ toAddress: CUSTOMER, content: "Of course!", replyTo: asked }])
    expect((await client.post(action("react"), { chatId: CUSTOMER, messageId: asked, emoji: "👍" })).status).toBe(303)
    expect((await client.post(action("read"), { chatId: CUSTOMER })).status).toBe(303)
    expect((await client.post(action("archive"), { chatId: CUSTOMER, archived: "1" })).status).toBe(303)
    const chat = (await h.request("GET", `/v1/chats?fromPhoneId=${phone.id}`, { key })).body.data.chats[0]
    expect(chat).toMatchObject({ id: CUSTOMER, unreadCount: 0, archived: true })
    const page = (await client.get(inbox(`&filter=archived${chatParam()}`))).html
    expect(page).toContain(">Unarchive</button>")
    expect(page).toContain('<span title="+14155550170">👍</span>')
    expect(page).toContain("Can I bring my dog?</span>")
  })

  test("a pane's poll answers 204 while nothing changed and the new pane once a message arrived", async () => {
    await customerSays("one")
    const url = /hx-get="([^"]+live\/timeline[^"]+)"/.exec((await client.get(inbox(chatParam()))).html)![1]!.replaceAll("&amp;", "&")
    expect((await client.get(url, { "hx-request": "true" })).status).toBe(204)
    await customerSays("two arrives without a reload")
    const fresh = await client.get(url, { "hx-request": "true" })
    expect(fresh.status).toBe(200)
    expect(fresh.html).toContain("two arrives without a reload")
  })

  test("a received image is shown inline through the media route, another file as a chip, and edits and deletions are marked", async () => {
    const media = (mimetype: string, fileName: string) => ({ mimetype, sizeBytes: 20_480, fileName, capKind: "image", descriptor: "d" })
    const photo = await recorded(1, "test", "the terrace", { type: "image", media: media("image/jpeg", "terrace.jpg") })
    await recorded(2, "test", "", { type: "document", media: media("application/pdf", "menu.pdf") })
    await recorded(3, "test", "typo fixed", { editedAtMs: h.clock.nowMs() })
    await recorded(4, "test", "oops, wrong chat", { revokedAtMs: h.clock.nowMs() })
    const { html } = await client.get(inbox(chatParam()))
    expect(html).toContain(`<img class="bubble-img" src="/dashboard/messages/${photo}/media?account=${account.id}&amp;env=test"`)
    expect(html).toContain('<span class="chip-kind">File</span>menu.pdf')
    expect(html).toMatch(/typo fixed<\/span><span class="meta"><span>edited<\/span>/)
    expect(html).toContain('<span class="text">This message was deleted</span>')
    expect(html).not.toContain('<span class="text">oops, wrong chat')
  })

  test("a photo the phone sent itself is shown inline through the chat's media route, which serves its bytes; another chat's id gets none", async () => {
    await h.connectPhone(phone)
    const bytes = new Uint8Array(64).map((_, i) => i)
    h.gateway.media.set("own-photo", bytes)
    const id = "wamsg_" + "0".repeat(25) + "1"
    const media = { mimetype: "image/png", sizeBytes: bytes.length, fileName: null, capKind: "image" as const, descriptor: "own-photo" }
    await h.services.ctx.store.write((q) =>
      q.recordEchoMessage({
        id, accountId: account.id, env: "live", phoneId: phone.id, waMessageId: "3EB0OWN1", chatId: CUSTOMER, origin: "phone", direction: "out",
        fromAddress: phone.phoneNumber, type: "image", content: "the receipt", media, location: null, contact: null, poll: null, replyToId: null,
        status: "sent", editedAtMs: null, revokedAtMs: null, atMs: h.clock.nowMs(), createdAtMs: h.clock.nowMs(),
      }),
    )
    const page = `/dashboard/phones/${phone.id}/chats?account=${account.id}&env=live${chatParam()}`
    const src = `/dashboard/phones/${phone.id}/chats/media/${id}?account=${account.id}&env=live&chat=${encodeURIComponent(CUSTOMER)}`
    expect((await client.get(page)).html).toContain(`<img class="bubble-img" src="${src.replaceAll("&", "&amp;")}"`)
    const res = await h.app.handle(new Request(`http://127.0.0.1${src}`, { headers: { cookie: client.cookie } }))
    expect([res.status, res.headers.get("content-type"), res.headers.get("content-security-policy")]).toEqual([200, "image/png", "default-src 'none'; img-src 'self'; sandbox"])
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(bytes)
    expect((await client.get(src.replace(encodeURIComponent(CUSTOMER), encodeURIComponent("+14155550111")))).status).toBe(404)
  })

  test("in a group chat each received bubble names its sender", async () => {
    await recorded(5, "test", "who brings the wine?", { isGroup: true, groupId: "120363000000000001@g.us" })
    const { html } = await client.get(inbox(chatParam("120363000000000001@g.us")))
    expect(html).toContain(`<span class="sender">${CUSTOMER}</span><span class="text">who brings the wine?</span>`)
  })

  test("the phone page and the navigation link to the inbox", async () => {
    const phonePage = (await client.get(`/dashboard/phones/${phone.id}?account=${account.id}&env=test`)).html
    expect(phonePage).toContain(`href="/dashboard/phones/${phone.id}/chats?account=${account.id}&amp;env=test"`)
    const nav = await client.get(`/dashboard/chats?account=${account.id}&env=test`)
    expect(nav.status).toBe(303)
    expect(nav.headers.get("location")).toBe(inbox())
  })
})

describe("dashboard chats: errors", () => {
  test("an empty reply is refused in the form's words and nothing is sent", async () => {
    await customerSays("hello?")
    const res = await client.post(inbox(chatParam()).replace("/chats?", "/chats/send?"), { keyId: keyId(), chatId: CUSTOMER, content: "" })
    expect(res.status).toBe(400)
    expect(res.html).toContain("Your message")
    expect(sentRows()).toEqual([])
  })

  test("a chat the phone does not have is a 404 page", async () => {
    expect((await client.get(inbox(chatParam("+14155550000")))).status).toBe(404)
  })
})

describe("dashboard chats: security", () => {
  test("a hostile name and hostile text are shown as text in the list, the bubble and the quote", async () => {
    const id = await customerSays(HOSTILE.script)
    h.services.sqlite!.query("UPDATE chats SET name = ?").run(HOSTILE.attribute)
    const { html } = await client.get(inbox(`${chatParam()}&reply=${id}`))
    expectEscaped(html, [HOSTILE.script, HOSTILE.attribute])
  })

  test("a post without the CSRF token, or with a stale one, or from another origin, changes nothing", async () => {
    await customerSays("hi")
    const send = inbox(chatParam()).replace("/chats?", "/chats/send?")
    for (const csrf of [null, "stale"]) expect((await client.post(send, { chatId: CUSTOMER, content: "x" }, { csrf })).status).toBe(403)
    expect((await client.post(send, { chatId: CUSTOMER, content: "x" }, { origin: "https://evil.example" })).status).toBe(403)
    const archive = inbox(chatParam()).replace("/chats?", "/chats/archive?")
    expect((await client.post(archive, { chatId: CUSTOMER, archived: "1" }, { csrf: null })).status).toBe(403)
    expect(sentRows()).toEqual([])
    expect((await h.request("GET", `/v1/chats?fromPhoneId=${phone.id}`, { key })).body.data.chats[0].archived).toBe(false)
  })

  test("another account's phone is a 404, for the page, its panes and its actions", async () => {
    await customerSays("private")
    const other = await h.seedAccount({ name: "Other" })
    const as = (path: string) => path.replace(`account=${account.id}`, `account=${other.id}`)
    expect((await client.get(as(inbox(chatParam())))).status).toBe(404)
    expect((await client.get(as(inbox(chatParam())).replace("/chats?", "/chats/live/timeline?"))).status).toBe(404)
    const res = await client.post(as(inbox(chatParam())).replace("/chats?", "/chats/archive?"), { chatId: CUSTOMER, archived: "1" })
    expect(res.status).toBe(404)
    expect(res.html).not.toContain("private")
  })
})

describe("dashboard chats: live phones", () => {
  const liveMessage = (n: number, content: string) => recorded(n, "live", content)
  const liveInbox = (name: string) => `/dashboard/phones/${phone.id}/chats/${name}?account=${account.id}&env=live${chatParam()}`
  const CHAT_JID = "14155550199@s.whatsapp.net"

  test("a reply, a reaction, mark read and archive on a live phone reach WhatsApp through the phone's session", async () => {
    await h.seedKey(account.id, { env: "live", scopes: ["messages:send"] })
    await createEndpoint(h.services.ctx, { accountId: account.id, env: "live", url: "http://127.0.0.1:9/unused", events: ["*"] })
    await h.connectPhone(phone)
    const asked = await liveMessage(7, "Are you open on Sunday?")
    expect((await client.get(`/dashboard/phones/${phone.id}/chats?account=${account.id}&env=live${chatParam()}`)).html).toContain("Are you open on Sunday?")
    const liveKeyId = (h.services.sqlite!.query("SELECT id FROM api_keys WHERE env = 'live'").get() as { id: string }).id
    expect((await client.post(liveInbox("send"), { keyId: liveKeyId, chatId: CUSTOMER, content: "Yes, from noon.", replyTo: asked })).status).toBe(303)
    expect(h.services.sqlite!.query("SELECT env, content, reply_to AS replyTo FROM messages").all()).toEqual([{ env: "live", content: "Yes, from noon.", replyTo: asked }])
    expect((await client.post(liveInbox("react"), { chatId: CUSTOMER, messageId: asked, emoji: "🙏" })).status).toBe(303)
    expect((await client.post(liveInbox("read"), { chatId: CUSTOMER })).status).toBe(303)
    expect((await client.post(liveInbox("archive"), { chatId: CUSTOMER, archived: "1" })).status).toBe(303)
    const session = h.gateway.current(phone.id)
    expect(h.gateway.actions.filter((a) => a.kind === "react" || a.kind === "read").map((a) => a.kind)).toEqual(["react", "read"])
    expect(session.chatModifications.map((m) => m.change)).toEqual([{ unread: false }, { archived: true }])
    expect(session.chatModifications[1]!.last?.ref).toMatchObject({ chatJid: CHAT_JID })
  })

  test("when WhatsApp does not take an archive, the chat page says so and the chat stays as it was", async () => {
    await h.connectPhone(phone)
    await liveMessage(8, "hello")
    h.gateway.current(phone.id).modifyChatError = new Error("App state key not present!")
    const res = await client.post(liveInbox("archive"), { chatId: CUSTOMER, archived: "1" })
    expect(res.status).toBe(502)
    expect(res.html).toContain("could not be written to WhatsApp's app state")
    expect(res.html).toContain(">Archive</button>")
  })
})
