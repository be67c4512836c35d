import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import type { InboundMessage } from "../../src/whatsapp/gateway"
import { createHarness, type Harness } from "../helpers/harness"
import { signIn } from "../helpers/dashboard"
import { eventsOf, liveTenant, recordEvents, send } from "./live-helpers"

/*
 * Senders known only by LID, with no number anywhere (WhiskeySockets/Baileys#2742), and the
 * usernames WhatsApp sends with them (WhiskeySockets/Baileys#2480): docs/live-whatsapp.md §
 * "Usernames and LID-only senders". Recorded with `from` their LID and `fromUsername`, kept on
 * the phone's contacts, shown in the dashboard, answerable 1:1 by that LID.
 */

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

const LID = "204519374921837@lid"
const GROUP = "120363111111111111@g.us"

function inbound(overrides: Partial<InboundMessage> = {}): InboundMessage {
  return { waMessageId: "LID-1", from: LID, isGroup: false, groupId: null, type: "text", content: "hi", receivedAtMs: h.clock.nowMs() - 1_000, ...overrides }
}

const noNumber = { lid: LID, phoneNumber: null, username: "ada.lovelace", pushName: "Ada" }

describe("a sender with no number, only a LID and a username", () => {
  test("is recorded with from its LID and fromUsername (message and event), kept as a contact, and answered by that LID", async () => {
    const { account, key, phone } = await liveTenant(h)
    await recordEvents(h, account.id)
    h.gateway.current(phone.id).receive(inbound({ sender: noNumber }))
    await h.settle()
    const [m] = (await h.request("GET", "/v1/messages/inbound", { key })).body.data.data
    expect(m).toMatchObject({ from: LID, fromUsername: "ada.lovelace" })
    expect(eventsOf(h, "message.received")[0]!.data).toMatchObject({ from: LID, fromUsername: "ada.lovelace" })
    expect(await h.services.ctx.store.findWaContact(phone.id, LID)).toEqual({ phoneId: phone.id, address: LID, ...noNumber, updatedAtMs: h.clock.nowMs() })

    const reply = await send(h, key, { fromPhoneId: phone.phoneNumber, to: m.from, content: "hello, Ada" })
    expect(reply.status).toBe(201)
    expect(reply.body.data.to).toBe(LID)
    await h.settle()
    expect(h.gateway.sentBy(phone.id).map((p) => p.toJid)).toEqual([LID])
  })

  test("as a group participant without participant_pn: from is its LID, in the group, and the contact has no number", async () => {
    const { key, phone } = await liveTenant(h)
    h.gateway.current(phone.id).receive(inbound({ isGroup: true, groupId: GROUP, sender: { ...noNumber, username: null, pushName: null } }))
    await h.settle()
    expect((await h.request("GET", "/v1/messages/inbound", { key })).body.data.data[0]).toMatchObject({ from: LID, fromUsername: null, isGroup: true, groupId: GROUP })
    expect(await h.services.ctx.store.findWaContact(phone.id, LID)).toMatchObject({ lid: LID, phoneNumber: null, username: null })
  })

  test("a later message without a username keeps the one learned; a message without sender details records no contact", async () => {
    const { key, phone } = await liveTenant(h)
    const session = h.gateway.current(phone.id)
    session.receive(inbound({ sender: noNumber }))
    session.receive(inbound({ waMessageId: "LID-2", sender: { ...noNumber, username: null, pushName: "Ada L." } }))
    session.receive(inbound({ waMessageId: "PN-1", from: "+14155550177" }))
    await h.settle()
    const list = (await h.request("GET", "/v1/messages/inbound", { key })).body.data.data
    expect(list.map((m: { fromUsername: string | null }) => m.fromUsername)).toEqual([null, null, "ada.lovelace"])
    expect(await h.services.ctx.store.findWaContact(phone.id, LID)).toMatchObject({ username: "ada.lovelace", pushName: "Ada L." })
    expect(await h.services.ctx.store.findWaContact(phone.id, "+14155550177")).toBeNull()
  })

  test("a username that is not one is not kept, and a push name with controls is escaped, whatever the gateway passed", async () => {
    const { key, phone } = await liveTenant(h)
    h.gateway.current(phone.id).receive(inbound({ sender: { ...noNumber, username: "<img src=x onerror=alert(1)>", pushName: "Ada\u001b[2J" } }))
    await h.settle()
    expect((await h.request("GET", "/v1/messages/inbound", { key })).body.data.data[0].fromUsername).toBeNull()
    expect(await h.services.ctx.store.findWaContact(phone.id, LID)).toMatchObject({ username: null, pushName: "Ada\\x1b[2J" })
  })

  test("the dashboard shows the sender as its LID with its username, in the list and on the message's page", async () => {
    const { account, key, phone } = await liveTenant(h)
    const client = await signIn(h)
    h.gateway.current(phone.id).receive(inbound({ sender: noNumber }))
    await h.settle()
    const id = (await h.request("GET", "/v1/messages/inbound", { key })).body.data.data[0].id
    const shown = `${LID} (@ada.lovelace)`
    expect((await client.get(`/dashboard/messages?direction=inbound&account=${account.id}&env=live`)).html).toContain(shown)
    expect((await client.get(`/dashboard/messages/${id}?account=${account.id}&env=live`)).html).toContain(shown)
  })
})
