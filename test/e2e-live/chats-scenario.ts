import { describe, expect, test } from "bun:test"
import type { SimContact } from "../wa-sim"
import { poll } from "./live-world"
import { liveScenarioWorld, type ScenarioRun } from "./live-scenario-world"

/*
 * Chats (docs/api.md § "Chats and contacts") with wagate as a real process and real Baileys,
 * through the TLS front as in production: a contact's message makes a chat with its unread count,
 * and a PATCH with a live key is written to WhatsApp's app state (Baileys' chatModify), so the
 * simulated phone's own app state shows the chat archived, pinned and read. chats-source.test.ts
 * runs it against `bun src/main.ts serve`, chats-binary.test.ts against the compiled executable.
 */

const ME = "+15550091111"
const STEP_TIMEOUT_MS = 60_000

export function describeChats(label: string, run: ScenarioRun): void {
  let ana: SimContact
  const live = liveScenarioWorld(run, {
    keyName: "chats",
    scopes: ["messages:read", "messages:send"],
    setUp: ({ sim }) => {
      ana = sim.contact({ phoneNumber: "+15550092222", name: "Ana" })
    },
    pair: ME,
  })

  const chats = async () => (await live.api.call("GET", `/chats?fromPhoneId=${encodeURIComponent(ME)}`)).body.data.chats as any[]

  describe(`chats against the WhatsApp simulator, over TLS, ${label}`, () => {
    test("a contact's message makes a live chat; PATCH writes archive, pin and read to the phone's app state", async () => {
      await live.sim.sendInbound(ana, { text: "Is my order on its way?" })
      const chat = await poll(async () => (await chats()).find((c) => c.id === `+${ana.phoneNumber}`), "the contact's chat")
      expect(chat).toMatchObject({ unreadCount: 1, lastMessage: { direction: "in", preview: "Is my order on its way?" }, archived: false })
      // The phone shares its app-state key with a new device shortly after pairing; until then a change cannot be written (502).
      const res = await poll(async () => {
        const r = await live.api.call("PATCH", `/chats/%2B${ana.phoneNumber}`, { fromPhoneId: ME, archived: true, pinned: true, unread: false })
        return r.status === 200 ? r : undefined
      }, "a PATCH WhatsApp takes")
      expect(res.body.data).toMatchObject({ id: `+${ana.phoneNumber}`, archived: true, pinned: true, unreadCount: 0 })
      const onPhone = live.sim.phoneAppState(ME)
      expect(onPhone.chat(`${ana.phoneNumber}@s.whatsapp.net`)).toMatchObject({ archived: true, pinned: true, read: true })
      expect(onPhone.refusals).toEqual([])
      expect((await chats()).find((c) => c.id === `+${ana.phoneNumber}`)).toMatchObject({ archived: true, pinned: true, unreadCount: 0 })
    }, STEP_TIMEOUT_MS)

    test("a mute until a time, and its removal, reach the phone's app state", async () => {
      const until = "2027-01-01T00:00:00.000Z"
      const muted = await live.api.call("PATCH", `/chats/%2B${ana.phoneNumber}`, { fromPhoneId: ME, mutedUntil: until })
      expect([muted.status, muted.body.data?.mutedUntil]).toEqual([200, until])
      expect(live.sim.phoneAppState(ME).chat(`${ana.phoneNumber}@s.whatsapp.net`).mutedUntil).toBe(Date.parse(until))
      const unmuted = await live.api.call("PATCH", `/chats/%2B${ana.phoneNumber}`, { fromPhoneId: ME, mutedUntil: null })
      expect([unmuted.status, unmuted.body.data?.mutedUntil]).toEqual([200, null])
      expect(live.sim.phoneAppState(ME).chat(`${ana.phoneNumber}@s.whatsapp.net`).mutedUntil).toBeNull()
    }, STEP_TIMEOUT_MS)
  })
}
