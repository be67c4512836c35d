import { describe, expect, test } from "bun:test"
import type { SimContact, SimGroup } from "../wa-sim"
import { poll } from "./live-world"
import { liveScenarioWorld, type ScenarioRun } from "./live-scenario-world"

/*
 * Messages the phone sends itself (docs/api.md § "Chats and contacts", docs/webhooks.md § "Chat
 * events") with wagate as a real process and real Baileys, through the TLS front as in
 * production: what the simulated primary phone types to a contact or in a group reaches wagate's
 * device as its own message (test/wa-sim/README.md § "Messages sent from the phone"), lands in
 * the chat's timeline with `origin: "phone"`, fires `message.echo` once and stays out of
 * `GET /v1/messages`; a message wagate sent itself is no echo. echo-source.test.ts runs it
 * against `bun src/main.ts serve`, echo-binary.test.ts against the compiled executable.
 */

const ME = "+15550091111"
const STEP_TIMEOUT_MS = 60_000

export function describeEcho(label: string, run: ScenarioRun): void {
  let ana: SimContact
  let team: SimGroup
  const live = liveScenarioWorld(run, {
    keyName: "echo",
    scopes: ["messages:read", "messages:send"],
    setUp: ({ sim }) => {
      ana = sim.contact({ phoneNumber: "+15550092222", name: "Ana" })
      team = sim.group({ subject: "Team", members: [ana], admins: ["me"] })
    },
    events: ["message.echo", "message.sent"],
    pair: ME,
  })

  const timeline = async (chatId: string) =>
    (await live.api.call("GET", `/chats/${encodeURIComponent(chatId)}/messages?fromPhoneId=${encodeURIComponent(ME)}`)).body.data.messages as any[]

  describe(`messages the phone sends itself, against the WhatsApp simulator, over TLS, ${label}`, () => {
    test("a text typed on the phone to a contact lands in the chat with origin phone and fires message.echo once", async () => {
      await live.sim.sendFromPrimary(ME, { to: ana, message: { text: "see you at 5" } })
      const chatId = `+${ana.phoneNumber}`
      const entry = await poll(async () => (await timeline(chatId)).find((m) => m.content === "see you at 5"), "the echo in the timeline")
      expect(entry).toMatchObject({ direction: "out", origin: "phone", type: "text", from: ME })
      expect(entry.id).toStartWith("wamsg_")
      const data = await live.hooks.next("message.echo", (d) => d.id === entry.id)
      expect(data).toMatchObject({ phoneId: live.phoneId, chatId, id: entry.id, type: "text", content: "see you at 5" })
      // The seed's list is the API's own sends: the echo is not one.
      const sent = (await live.api.call("GET", "/messages?limit=100")).body.data.data as any[]
      expect(sent.some((m) => m.content === "see you at 5")).toBe(false)
      expect(live.hooks.matching("message.echo", (d) => d.content === "see you at 5")).toHaveLength(1)
    }, STEP_TIMEOUT_MS)

    test("a message typed on the phone in a group lands in the group's chat with origin phone", async () => {
      await live.sim.sendFromPrimary(ME, { to: team, message: { text: "hi team" } })
      const entry = await poll(async () => (await timeline(team.jid)).find((m) => m.content === "hi team"), "the group echo in the timeline")
      expect(entry).toMatchObject({ direction: "out", origin: "phone", type: "text" })
      const data = await live.hooks.next("message.echo", (d) => d.content === "hi team")
      expect(data).toMatchObject({ phoneId: live.phoneId, chatId: team.jid, id: entry.id })
    }, STEP_TIMEOUT_MS)

    test("a message sent through wagate is no echo: its timeline entry is the API's and no message.echo fires", async () => {
      const ours = await live.api.send({ fromPhoneId: live.phoneId, to: `+${ana.phoneNumber}`, content: "sent through the API" })
      await live.hooks.next("message.sent", (d) => d.messageId === ours.id)
      // A later echo proves wagate's device saw everything before it.
      await live.sim.sendFromPrimary(ME, { to: ana, message: { text: "after the API send" } })
      await live.hooks.next("message.echo", (d) => d.content === "after the API send")
      const entries = (await timeline(`+${ana.phoneNumber}`)).filter((m) => m.content === "sent through the API")
      expect(entries.map((m) => m.origin)).toEqual(["api"])
      expect(live.hooks.matching("message.echo", (d) => d.content === "sent through the API")).toEqual([])
    }, STEP_TIMEOUT_MS)

    test("a photo sent from the phone is downloaded byte-exact from its timeline entry's media route, and again on a second request", async () => {
      const photo = new Uint8Array(6_000).map((_, i) => (i * 37 + 11) % 256)
      await live.sim.sendFromPrimary(ME, { to: ana, message: { image: photo, caption: "the receipt", mimetype: "image/png" } })
      const chatId = `+${ana.phoneNumber}`
      const entry = await poll(async () => (await timeline(chatId)).find((m) => m.content === "the receipt"), "the photo echo in the timeline")
      expect(entry).toMatchObject({ origin: "phone", media: { mimetype: "image/png", size: photo.length, urls: [] } })
      const path = `/v1/chats/${encodeURIComponent(chatId)}/messages/${entry.id}/media?fromPhoneId=${encodeURIComponent(ME)}`
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`${live.wagate.base}${path}`, { headers: { authorization: `Bearer ${live.api.key}` } })
        expect(res.status).toBe(200)
        expect(res.headers.get("content-type")).toBe("image/png")
        expect(new Uint8Array(await res.arrayBuffer())).toEqual(photo)
      }
    }, STEP_TIMEOUT_MS)
  })
}
