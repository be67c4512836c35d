import { describe, expect, test } from "bun:test"
import type { SimContact } from "../wa-sim"
import { poll } from "./live-world"
import { liveScenarioWorld, type ScenarioRun } from "./live-scenario-world"

/*
 * Changes made on the phone (docs/api.md § "Chats and contacts") with wagate as a real process
 * and real Baileys, through the TLS front as in production: the simulated phone archives, pins,
 * mutes and marks a chat read and unread in WhatsApp's app state, and names a contact in its
 * address book; wagate's live chat and contact show it, and each real change emits one
 * `chat.updated`. app-state-source.test.ts runs it against `bun src/main.ts serve`,
 * app-state-binary.test.ts against the compiled executable.
 */

const ME = "+15550095111"
const STEP_TIMEOUT_MS = 60_000
const WAIT_MS = 20_000

export function describeAppState(label: string, run: ScenarioRun): void {
  let ana: SimContact
  let bo: SimContact
  let cy: SimContact
  const live = liveScenarioWorld(run, {
    keyName: "app-state",
    scopes: ["messages:read", "contacts:read"],
    setUp: ({ sim }) => {
      ana = sim.contact({ phoneNumber: "+15550096222", name: "Ana" })
      bo = sim.contact({ phoneNumber: "+15550097333", name: "Bo" })
      cy = sim.contact({ phoneNumber: "+15550098444", name: "Cy" })
      // Made on the phone before this device was linked: only the resync at the key share brings them.
      sim.phoneAppState(ME).archive(`${cy.phoneNumber}@s.whatsapp.net`)
      sim.phoneAppState(ME).contact(`${cy.phoneNumber}@s.whatsapp.net`, "Cy Before")
    },
    events: ["chat.updated"],
    pair: ME,
  })

  const chatOf = async (id: string) => ((await live.api.call("GET", `/chats?fromPhoneId=${encodeURIComponent(ME)}`)).body.data.chats as any[]).find((c) => c.id === id)
  const updates = (chatId: string, field: string) => live.hooks.matching("chat.updated", (d) => d.chatId === chatId && field in d.changes)

  describe(`changes made on the phone, over TLS, ${label}`, () => {
    test("what the phone's app state held before the device was linked arrives after the key share", async () => {
      const chatId = `+${cy.phoneNumber}`
      expect(await poll(async () => (await chatOf(chatId))?.archived || undefined, "the chat archived before linking", WAIT_MS)).toBe(true)
      const res = await live.api.call("GET", `/contacts?fromPhoneId=${encodeURIComponent(ME)}&search=Before`)
      expect(res.body.data.contacts).toMatchObject([{ id: chatId, name: "Cy Before" }])
    }, STEP_TIMEOUT_MS)

    test("archive, pin, mute, read and unread marks made on the phone reach the live chat, each with one chat.updated", async () => {
      const chatId = `+${ana.phoneNumber}`
      const jid = `${ana.phoneNumber}@s.whatsapp.net`
      await live.sim.sendInbound(ana, { text: "Hello?" })
      await poll(async () => (await chatOf(chatId))?.unreadCount === 1 || undefined, "the contact's chat", WAIT_MS)
      const phone = live.sim.phoneAppState(ME)
      phone.archive(jid)
      expect(await live.hooks.next("chat.updated", (d) => d.chatId === chatId && d.changes.archived === true, WAIT_MS)).toMatchObject({ phoneId: live.phoneId, chatId, changes: { archived: true } })
      // The phone archiving an archived chat again changes nothing: no second chat.updated (the pin after it shows it was read).
      phone.archive(jid)
      phone.pin(jid)
      await live.hooks.next("chat.updated", (d) => d.chatId === chatId && d.changes.pinned === true, WAIT_MS)
      const until = Date.parse("2027-03-01T00:00:00.000Z")
      phone.mute(jid, until)
      await live.hooks.next("chat.updated", (d) => d.chatId === chatId && d.changes.mutedUntil === "2027-03-01T00:00:00.000Z", WAIT_MS)
      phone.markRead(jid)
      await live.hooks.next("chat.updated", (d) => d.chatId === chatId && d.changes.unread === false, WAIT_MS)
      expect(await chatOf(chatId)).toMatchObject({ archived: true, pinned: true, mutedUntil: "2027-03-01T00:00:00.000Z", unreadCount: 0 })
      phone.markRead(jid, false)
      await live.hooks.next("chat.updated", (d) => d.chatId === chatId && d.changes.unread === true, WAIT_MS)
      expect((await chatOf(chatId)).unreadCount).toBeGreaterThan(0)
      // Each change emitted once: app state replays what it already told on every resync.
      expect([updates(chatId, "archived").length, updates(chatId, "pinned").length, updates(chatId, "mutedUntil").length]).toEqual([1, 1, 1])
      expect(updates(chatId, "unread").map((e) => e.data.changes.unread)).toEqual([false, true])
    }, STEP_TIMEOUT_MS)

    test("a label put on a chat on the phone, and taken off, shows in the chat's labels with one chat.updated each", async () => {
      const chatId = `+${ana.phoneNumber}`
      const jid = `${ana.phoneNumber}@s.whatsapp.net`
      const phone = live.sim.phoneAppState(ME)
      phone.label("4", "Paid", 3)
      phone.labelChat("4", jid)
      expect(await live.hooks.next("chat.updated", (d) => d.chatId === chatId && d.changes.labels?.length === 1, WAIT_MS)).toMatchObject({ changes: { labels: ["4"] } })
      expect((await chatOf(chatId)).labels).toEqual(["4"])
      const labels = await live.api.call("GET", `/labels?fromPhoneId=${encodeURIComponent(ME)}`)
      expect([labels.status, labels.body.data]).toEqual([200, { labels: [{ id: "4", name: "Paid", color: 3 }] }])
      phone.labelChat("4", jid, false)
      await live.hooks.next("chat.updated", (d) => d.chatId === chatId && d.changes.labels?.length === 0, WAIT_MS)
      expect((await chatOf(chatId)).labels).toEqual([])
      expect(updates(chatId, "labels").map((e) => e.data.changes.labels)).toEqual([["4"], []])
    }, STEP_TIMEOUT_MS)

    test("a contact named in the phone's address book shows that name in GET /v1/contacts", async () => {
      live.sim.phoneAppState(ME).contact(`${bo.phoneNumber}@s.whatsapp.net`, "Bo Peep")
      const contact = await poll(async () => {
        const res = await live.api.call("GET", `/contacts?fromPhoneId=${encodeURIComponent(ME)}&search=Peep`)
        return (res.body.data.contacts as any[]).find((c) => c.id === `+${bo.phoneNumber}`)
      }, "the named contact", WAIT_MS)
      expect(contact).toMatchObject({ id: `+${bo.phoneNumber}`, phoneNumber: `+${bo.phoneNumber}`, name: "Bo Peep" })
    }, STEP_TIMEOUT_MS)
  })
}
