import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { ChatList, Timeline } from "../../src/http/models/chats"
import type { PhoneRow } from "../../src/store/phones"
import { createHarness, expectSchema, type Harness } from "../helpers/harness"

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
