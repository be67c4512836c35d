import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import type { AccountRow } from "../../src/store/accounts"
import type { PhoneRow } from "../../src/store/phones"
import { createHarness, type Harness } from "../helpers/harness"
import { expectEscaped, HOSTILE, signIn, type DashboardClient } from "../helpers/dashboard"
import { shortTime } from "../../src/http/dashboard/views/chat-list"

/*
 * The Chats page's list as the store reads it (docs/dashboard.md § "Chats"): "Unread first",
 * pinned chats on top, the search over every chat's names and numbers, and the list shown 50 at
 * a time with "More chats".
 */

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
async function customerSays(content: string, from: string): Promise<void> {
  const res = await h.request("POST", "/v1/sandbox/inbound", { key, body: { fromPhoneId: phone.id, from, content } })
  expect(res.status).toBe(201)
}
/** The chat ids of the list, in the order shown. */
const listed = (html: string) => [...html.matchAll(/<li class="chat-item[^"]*"><a href="[^"]*chat=([^"&]+)"/g)].map((m) => decodeURIComponent(m[1]!))
const read = (chatId: string) => client.post(inbox().replace("/chats?", "/chats/read?"), { chatId })
const archive = (chatId: string) => client.post(inbox().replace("/chats?", "/chats/archive?"), { chatId, archived: "1" })

describe("dashboard inbox list: success", () => {
  test("Unread first lists chats with unread messages first, each part newest first, pinned on top; the choice stays in the search, the poll and the links", async () => {
    for (const n of [1, 2, 3, 4]) await customerSays(`hello ${n}`, `+1415555000${n}`)
    await read("+14155550001")
    await read("+14155550003")
    await h.services.ctx.store.write((q) => q.applyChatChange(phone.id, "test", "+14155550001", { pinned: true }, h.clock.nowMs()))
    expect(listed((await client.get(inbox())).html)).toEqual(["+14155550001", "+14155550004", "+14155550003", "+14155550002"])
    const { html } = await client.get(inbox("&order=unread"))
    expect(listed(html)).toEqual(["+14155550001", "+14155550004", "+14155550002", "+14155550003"])
    expect(html).toContain('role="switch" aria-checked="true"')
    expect(html).toContain('<input type="hidden" name="order" value="unread"/>')
    expect(html).toMatch(/hx-get="[^"]*\/live\/list\?[^"]*order=unread/)
    expect(html).toContain(`chat=%2B14155550002"`)
    expect(html).toMatch(/href="[^"]*order=unread[^"]*chat=%2B14155550002"/)
    // Turned off again: the link drops the order.
    expect(html).toMatch(/<a class="chat-order" role="switch" aria-checked="true" href="\/dashboard\/phones\/[^"?]+\/chats\?account=[^"&]+&amp;env=test">/)
  })

  test("the list shows 50 chats and More chats the next 50; the search finds a chat past them by its contact's push name under an address-book name, and by its number with spaces", async () => {
    for (let i = 0; i < 60; i++) await customerSays(`question ${i}`, `+1415555${String(1000 + i)}`)
    const first = await client.get(inbox())
    expect(listed(first.html)).toHaveLength(50)
    expect(first.html).toContain(">More chats</a>")
    const more = /<p class="chat-more"><a href="([^"]+)"/.exec(first.html)![1]!.replaceAll("&amp;", "&")
    expect(more).toContain("shown=100")
    const all = await client.get(more)
    expect(listed(all.html)).toHaveLength(60)
    expect(all.html).not.toContain(">More chats</a>")
    // The oldest chat, not among the first 50: named in the address book, its push name only in contacts.
    await h.services.ctx.store.write((q) => q.upsertContacts([{ phoneId: phone.id, env: "test", contactId: "+14155551000", name: "Giulia Bianchi", pushName: "giuli_b", updatedAtMs: h.clock.nowMs() }]))
    expect(listed((await client.get(inbox("&q=giuli_b"))).html)).toEqual(["+14155551000"])
    expect(listed((await client.get(inbox("&q=bianchi"))).html)).toEqual(["+14155551000"])
    expect(listed((await client.get(inbox(`&q=${encodeURIComponent("+1 415 555 1000")}`))).html)).toEqual(["+14155551000"])
  })

  test("the unread and archived filters are the store's: an archived unread chat is only under Archived", async () => {
    await customerSays("a", "+14155550001")
    await customerSays("b", "+14155550002")
    await customerSays("c", "+14155550003")
    await read("+14155550002")
    await archive("+14155550003")
    expect(listed((await client.get(inbox("&filter=unread"))).html)).toEqual(["+14155550001"])
    expect(listed((await client.get(inbox("&filter=archived&order=unread"))).html)).toEqual(["+14155550003"])
  })
})

describe("dashboard inbox list: times", () => {
  test("a chat's time reads as WhatsApp's list: the hour today, Yesterday, the weekday within a week, else the date", () => {
    const now = Date.parse("2026-11-28T15:00:00.000Z") // a Saturday
    expect(shortTime("2026-11-28T09:05:00.000Z", now)).toBe("09:05")
    expect(shortTime("2026-11-27T23:59:00.000Z", now)).toBe("Yesterday")
    expect(shortTime("2026-11-23T10:00:00.000Z", now)).toBe("Mon")
    expect(shortTime("2026-11-21T10:00:00.000Z", now)).toBe("2026-11-21")
  })
})

describe("dashboard inbox list: bad input and security", () => {
  test("a search of LIKE's metacharacters matches only themselves; a long one is cut to 100 characters; a hostile one comes back as text", async () => {
    await customerSays("a", "+14155550001")
    await customerSays("b", "+14155550002")
    await h.services.ctx.store.write((q) => q.applyChatChange(phone.id, "test", "+14155550001", { name: "100% Pizza_Bar" }, h.clock.nowMs()))
    expect(listed((await client.get(inbox("&q=%25"))).html)).toEqual(["+14155550001"])
    expect(listed((await client.get(inbox("&q=_"))).html)).toEqual(["+14155550001"])
    const long = await client.get(inbox(`&q=${"x".repeat(5000)}`))
    expect(long.status).toBe(200)
    expect(long.html).toContain(`value="${"x".repeat(100)}"`)
    expect(long.html).not.toContain("x".repeat(101))
    const hostile = await client.get(inbox(`&q=${encodeURIComponent(HOSTILE.attribute)}`))
    expect(hostile.status).toBe(200)
    expectEscaped(hostile.html, [HOSTILE.attribute])
  })

  test("a shown count that is not a number, or far too big, falls back to the bounds", async () => {
    await customerSays("a", "+14155550001")
    for (const shown of ["abc", "-5", "99999999999999999999", "1e9"]) {
      const res = await client.get(inbox(`&shown=${shown}`))
      expect(res.status).toBe(200)
      expect(listed(res.html)).toEqual(["+14155550001"])
    }
  })
})
