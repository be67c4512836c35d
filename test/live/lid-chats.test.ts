import { afterEach, beforeEach, expect, test } from "bun:test"
import type { InboundMessage } from "../../src/whatsapp/gateway"
import { createHarness, type Harness } from "../helpers/harness"
import { liveTenant } from "./live-helpers"

/*
 * One chat per contact (docs/api.md § "Chats and contacts"): a contact whose first message came
 * by LID alone (WhatsApp hid the number) and whose next one told the number is one chat, under
 * the number, once the receiver has stored the mapping WhatsApp sent with it.
 */

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

const LID = "204519374921837@lid"
const NUMBER = "+14155550166"
const enc = encodeURIComponent

function inbound(id: string, from: string, sender: InboundMessage["sender"], content: string): InboundMessage {
  return { waMessageId: id, from, isGroup: false, groupId: null, type: "text", content, receivedAtMs: h.clock.nowMs() - 1_000, sender }
}

test("a contact heard by LID, then by number with its LID, is one chat under the number whose timeline holds both messages", async () => {
  const { key, phone } = await liveTenant(h)
  h.gateway.current(phone.id).receive(inbound("L-1", LID, { lid: LID, phoneNumber: null, username: null, pushName: "Ada" }, "by lid"))
  await h.settle()
  await h.advance(1_000)
  h.gateway.current(phone.id).receive(inbound("N-1", NUMBER, { lid: LID, phoneNumber: NUMBER, username: null, pushName: "Ada" }, "by number"))
  await h.settle()

  const chats = (await h.request("GET", `/v1/chats?fromPhoneId=${enc(phone.phoneNumber)}`, { key })).body.data.chats
  expect(chats.map((c: { id: string; unreadCount: number; name: string | null }) => [c.id, c.unreadCount, c.name])).toEqual([[NUMBER, 2, "Ada"]])
  for (const chatId of [NUMBER, LID]) {
    const timeline = (await h.request("GET", `/v1/chats/${enc(chatId)}/messages?fromPhoneId=${enc(phone.phoneNumber)}`, { key })).body.data.messages
    expect(timeline.map((m: { content: string; from: string }) => [m.content, m.from])).toEqual([["by number", NUMBER], ["by lid", LID]])
  }
})
