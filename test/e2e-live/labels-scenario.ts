import { describe, expect, test } from "bun:test"
import type { SimContact } from "../wa-sim"
import { poll } from "./live-world"
import { liveScenarioWorld, type ScenarioRun } from "./live-scenario-world"
import { pairedPhone } from "./tls-world"

/*
 * Labels made through the API (docs/api.md § "Labels") with wagate as a real process and real
 * Baileys, through the TLS front as in production: on a phone running the WhatsApp Business app a
 * label created with POST /v1/labels and put on a chat with PUT /v1/chats/{chatId}/labels lands in
 * the phone's app state (what the simulated phone reads back), each chat change with one
 * `chat.updated`; an ordinary phone is 409. labels-source.test.ts runs it against `bun src/main.ts serve`.
 */

const ME = "+15550085111"
const ORDINARY = "+15550085222"
const STEP_TIMEOUT_MS = 60_000
const WAIT_MS = 20_000

export function describeLabels(label: string, run: ScenarioRun): void {
  let ana: SimContact
  const live = liveScenarioWorld(run, {
    keyName: "labels",
    scopes: ["messages:read", "messages:send"],
    setUp: async (world) => {
      ana = world.sim.contact({ phoneNumber: "+15550086222", name: "Ana" })
      world.sim.businessApp(ME, "Corner Shop")
      // Made on the phone before this device was linked: its arrival shows the app-state keys were shared.
      world.sim.phoneAppState(ME).label("1", "New customer", 0)
      await pairedPhone(world, ORDINARY)
    },
    events: ["chat.updated"],
    pair: ME,
  })

  const labelsOf = async (phone: string) => (await live.api.call("GET", `/labels?fromPhoneId=${encodeURIComponent(phone)}`)).body.data.labels as any[]
  const labelUpdates = (chatId: string) => live.hooks.matching("chat.updated", (d) => d.chatId === chatId && "labels" in d.changes).map((e) => JSON.stringify(e.data.changes.labels))

  describe(`labels made through the API reach the phone, over TLS, ${label}`, () => {
    test("a label created on a WhatsApp Business phone is in the phone's app state and GET /v1/labels", async () => {
      await poll(async () => ((await labelsOf(ME)).length > 0 ? true : undefined), "the phone's labels after the key share", WAIT_MS)
      const res = await live.api.call("POST", "/labels", { fromPhoneId: ME, name: "Paid", color: 3 })
      expect([res.status, res.body.data]).toEqual([201, { id: "2", name: "Paid", color: 3 }])
      const phone = live.sim.phoneAppState(ME)
      expect(phone.refusals).toEqual([])
      expect(phone.labels()).toContainEqual({ id: "2", name: "Paid", color: 3, deleted: false })
      expect(await labelsOf(ME)).toEqual([{ id: "1", name: "New customer", color: 0 }, { id: "2", name: "Paid", color: 3 }])
    }, STEP_TIMEOUT_MS)

    test("labels put on a chat and taken off with PUT are on the phone's chat, each change with one chat.updated", async () => {
      const chatId = `+${ana.phoneNumber}`
      const jid = `${ana.phoneNumber}@s.whatsapp.net`
      await live.sim.sendInbound(ana, { text: "Did my order ship?" }, { to: ME })
      await poll(async () => {
        const chats = (await live.api.call("GET", `/chats?fromPhoneId=${encodeURIComponent(ME)}`)).body.data.chats as any[]
        return chats.some((c) => c.id === chatId) || undefined
      }, "the contact's chat", WAIT_MS)
      const put = await live.api.call("PUT", `/chats/${encodeURIComponent(chatId)}/labels`, { fromPhoneId: ME, labels: ["2", "1"] })
      expect([put.status, [...put.body.data.labels].sort()]).toEqual([200, ["1", "2"]])
      const phone = live.sim.phoneAppState(ME)
      expect([...phone.chat(jid).labels].sort()).toEqual(["1", "2"])
      await live.hooks.next("chat.updated", (d) => d.chatId === chatId && d.changes.labels?.length === 2, WAIT_MS)
      const off = await live.api.call("PUT", `/chats/${encodeURIComponent(chatId)}/labels`, { fromPhoneId: ME, labels: ["1"] })
      expect([off.status, off.body.data.labels]).toEqual([200, ["1"]])
      expect(phone.chat(jid).labels).toEqual(["1"])
      await live.hooks.next("chat.updated", (d) => d.chatId === chatId && d.changes.labels?.length === 1, WAIT_MS)
      // The same labels again change nothing: no patch, no event.
      const version = phone.version("regular")
      expect((await live.api.call("PUT", `/chats/${encodeURIComponent(chatId)}/labels`, { fromPhoneId: ME, labels: ["1"] })).status).toBe(200)
      expect(phone.version("regular")).toBe(version)
      expect(phone.refusals).toEqual([])
      // Baileys tells wagate its own patches back (emitOwnEvents) label by label: one PUT is still one chat.updated.
      expect(labelUpdates(chatId).sort()).toEqual([JSON.stringify(["1"]), JSON.stringify(["2", "1"])].sort())
    }, STEP_TIMEOUT_MS)

    test("a phone running the ordinary WhatsApp app is 409 and nothing reaches its app state", async () => {
      const res = await live.api.call("POST", "/labels", { fromPhoneId: ORDINARY, name: "Paid", color: 3 })
      expect(res.status).toBe(409)
      expect(JSON.stringify(res.body)).toContain("is not a WhatsApp Business account")
      expect(live.sim.phoneAppState(ORDINARY).labels()).toEqual([])
    }, STEP_TIMEOUT_MS)
  })
}
