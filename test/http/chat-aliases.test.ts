import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { ChatList, Timeline } from "../../src/http/models/chats"
import type { PhoneRow } from "../../src/store/phones"
import { createEndpoint } from "../../src/domain/webhook-endpoints"
import { recordPhoneChatChange } from "../../src/domain/phone-app-state"
import { createHarness, expectSchema, type Harness } from "../helpers/harness"
import { eventsOf } from "../live/live-helpers"

/*
 * GET /v1/chats and GET /v1/chats/{chatId}/messages for a contact reached by number and by LID,
 * and a chat whose last message was deleted for everyone (docs/api.md § "Chats and contacts").
 */

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

const ALICE = "+14155550166"
const ALICE_LID = "123456789012345@lid"
const enc = encodeURIComponent

async function receive(phone: PhoneRow, n: number, from: string): Promise<string> {
  const now = h.clock.nowMs() + n
  const id = `inmsg_${String(n).padStart(26, "0")}`
  await h.services.ctx.store.write((q) =>
    q.insertInbound({
      id, accountId: phone.accountId, env: "live", phoneId: phone.id, waMessageId: `WA${n}`, fromAddress: from, fromUsername: null, toNumber: phone.phoneNumber,
      content: `hello ${n}`, type: "text", isGroup: false, groupId: null, receivedAtMs: now, createdAtMs: now, replyToId: null, media: null, mediaGoneAtMs: null,
      location: null, contact: null, editedAtMs: null, revokedAtMs: null,
    }),
  )
  return id
}

describe("success", () => {
  test("a contact heard by LID and by number is one chat under the number; its timeline, asked by either id, holds both", async () => {
    const { account, phone } = await h.seedTenant()
    const live = await h.seedKey(account.id, { env: "live" })
    const byLid = await receive(phone, 1, ALICE_LID)
    const byNumber = await receive(phone, 2, ALICE)
    // The phone learns the mapping (Baileys' lid-mapping.update, an address-book entry): the two chats become one.
    await h.services.ctx.store.write((q) => q.upsertContacts([{ phoneId: phone.id, env: "live", contactId: ALICE, phoneNumber: ALICE, lid: ALICE_LID, updatedAtMs: h.clock.nowMs() }]))

    const list = await h.request("GET", `/v1/chats?fromPhoneId=${enc(phone.phoneNumber)}`, { key: live })
    expectSchema(ChatList, list.body.data)
    expect(list.body.data.chats.map((c: { id: string; unreadCount: number }) => [c.id, c.unreadCount])).toEqual([[ALICE, 2]])
    for (const chatId of [ALICE, ALICE_LID]) {
      const timeline = await h.request("GET", `/v1/chats/${enc(chatId)}/messages?fromPhoneId=${enc(phone.phoneNumber)}`, { key: live })
      expect(timeline.status).toBe(200)
      expectSchema(Timeline, timeline.body.data)
      expect(timeline.body.data.messages.map((m: { id: string; from: string }) => [m.id, m.from])).toEqual([[byNumber, ALICE], [byLid, ALICE_LID]])
    }
  })

  test("a change the phone makes to a chat it names by LID updates the number's chat, and chat.updated names the number", async () => {
    const { account, phone } = await h.seedTenant()
    await createEndpoint(h.services.ctx, { accountId: account.id, env: "live", url: "http://127.0.0.1:9/unused", events: ["chat.updated"] })
    await receive(phone, 1, ALICE)
    await h.services.ctx.store.write((q) => q.upsertContacts([{ phoneId: phone.id, env: "live", contactId: ALICE, phoneNumber: ALICE, lid: ALICE_LID, updatedAtMs: h.clock.nowMs() }]))
    await recordPhoneChatChange(h.services.ctx, phone.id, { chat: ALICE_LID, change: { archived: true }, atMs: h.clock.nowMs() })
    expect(eventsOf(h, "chat.updated").map((e) => [e.data.chatId, e.data.changes])).toEqual([[ALICE, { archived: true }]])
    const live = await h.seedKey(account.id, { env: "live" })
    const list = await h.request("GET", `/v1/chats?fromPhoneId=${enc(phone.phoneNumber)}&archived=true`, { key: live })
    expect(list.body.data.chats.map((c: { id: string }) => c.id)).toEqual([ALICE])
  })

  test("after DELETE /v1/messages/{id} of a chat's last message, the chat list shows it deleted: type revoked, empty preview", async () => {
    const { key, phone } = await h.seedTenant()
    const sent = await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: ALICE, content: "the old price was 40 €" } })
    await h.advance(2_000)
    expect((await h.request("DELETE", `/v1/messages/${sent.body.data.id}`, { key })).status).toBe(200)
    const list = await h.request("GET", `/v1/chats?fromPhoneId=${enc(phone.phoneNumber)}`, { key })
    expect(list.body.data.chats[0].lastMessage).toMatchObject({ id: sent.body.data.id, direction: "out", type: "revoked", preview: "" })
    expect(JSON.stringify(list.body.data)).not.toContain("40 €")
  })
})

describe("security", () => {
  test("a timeline entry's media route answers 404 for another account's message, for a message of another chat, and for a message without media", async () => {
    const mine = await h.seedTenant()
    const other = await h.seedTenant()
    const live = await h.seedKey(mine.account.id, { env: "live" })
    const media = { mimetype: "image/png", sizeBytes: 10, fileName: null, capKind: "image" as const, descriptor: "{}" }
    const echo = (tenant: typeof mine, n: number, chatId: string, withMedia: boolean) => ({
      id: `wamsg_${String(n).padStart(26, "0")}`, accountId: tenant.account.id, env: "live" as const, phoneId: tenant.phone.id, waMessageId: `3EB0M${n}`, chatId,
      origin: "phone" as const, direction: "out" as const, fromAddress: tenant.phone.phoneNumber, type: "image" as const, content: "", media: withMedia ? media : null,
      location: null, contact: null, poll: null, replyToId: null, status: null, editedAtMs: null, revokedAtMs: null, atMs: h.clock.nowMs(), createdAtMs: h.clock.nowMs(),
    })
    await h.services.ctx.store.write(async (q) => {
      await q.recordEchoMessage(echo(other, 1, ALICE, true))
      await q.recordEchoMessage(echo(mine, 2, "+14155550177", true))
      await q.recordEchoMessage(echo(mine, 3, ALICE, false))
    })
    const get = (n: number) =>
      h.request("GET", `/v1/chats/${enc(ALICE)}/messages/wamsg_${String(n).padStart(26, "0")}/media?fromPhoneId=${enc(mine.phone.phoneNumber)}`, { key: live })
    for (const n of [1, 2, 3]) {
      const res = await get(n)
      expect(res.status).toBe(404)
      expect(res.body.message).toEqual([`Chat ${ALICE} has no message wamsg_${String(n).padStart(26, "0")} with media`])
    }
  })
})
