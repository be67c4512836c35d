import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import type { SimContact, SimGroup, WaSim } from "../wa-sim"
import { SLOW_HOOK_TIMEOUT_MS } from "../helpers/timeouts"
import { ApiClient, poll, WagateProcess } from "./live-world"
import { pairedPhone, startTlsWorld, type TlsWorld } from "./tls-world"

/*
 * Hidden numbers (docs/live-whatsapp.md § "Hidden numbers (LID)"): a contact WhatsApp names by
 * its LID only writes first; wagate records `from` as that `…@lid`, and the operator replies to
 * it. Over the TLS front, as in production; lid-source.test.ts and lid-binary.test.ts run it
 * against `bun src/main.ts serve` and the compiled executable.
 */

const ME = "+15550041111"

export function describeHiddenNumbers(label: string, options: { prepare: () => Promise<string[] | undefined>; prepareTimeoutMs: number }): void {
  let world: TlsWorld
  let sim: WaSim
  let wagate: WagateProcess
  let api: ApiClient
  let phoneId: string
  let hidden: SimContact
  let shown: SimContact
  let team: SimGroup
  let later: SimContact

  beforeAll(async () => {
    world = await startTlsWorld({ command: await options.prepare(), keyName: "lid", scopes: ["messages:send", "messages:read"] })
    ;({ sim, wagate, api } = world)
    hidden = sim.contact({ phoneNumber: "+15550042222", name: "Hidden", addressing: "lid", hidesNumber: true })
    shown = sim.contact({ phoneNumber: "+15550043333", name: "Shown", addressing: "lid" })
    later = sim.contact({ phoneNumber: "+15550044444", name: "Later", addressing: "lid" })
    team = sim.group({ subject: "LID team", members: [hidden, shown], addressing: "lid" })
    phoneId = await pairedPhone(world, ME)
  }, options.prepareTimeoutMs + SLOW_HOOK_TIMEOUT_MS)

  afterAll(async () => {
    await world?.stop()
  }, SLOW_HOOK_TIMEOUT_MS)

  /** The newest inbound message with this text. */
  async function inboundWithText(waId: string): Promise<any> {
    return poll(async () => {
      const res = await api.call("GET", "/messages/inbound?limit=100")
      return (res.body.data.data as any[]).find((m) => m.waMessageId === waId || m.content === waId)
    }, `inbound ${waId}`)
  }

  describe(`hidden numbers (LID) over TLS, ${label}`, () => {
    test("a LID-only contact writes first: from is its …@lid; a reply to that reaches it, and its receipts come back", async () => {
      await sim.sendInbound(hidden, { text: "hello from a hidden number" })
      const inbound = await inboundWithText("hello from a hidden number")
      expect(inbound.from).toBe(hidden.lidJid)

      const reply = await api.send({ fromPhoneId: ME, to: inbound.from, content: "hello, hidden" })
      expect(reply.to).toBe(hidden.lidJid)
      const received = await sim.nextMessage(hidden)
      expect(received.text).toBe("hello, hidden")
      const read = await api.messageWithStatus(reply.id, "read")
      expect(read.readAt).not.toBeNull()
    })

    test("a contact whose number WhatsApp names alongside its LID is recorded by its E.164", async () => {
      await sim.sendInbound(shown, { text: "hello from a shown number" })
      expect((await inboundWithText("hello from a shown number")).from).toBe(`+${shown.phoneNumber}`)
    })

    test("a LID↔number pair learned once is kept: after a restart, the contact's LID-only message is recorded by its E.164", async () => {
      // WhatsApp names the number beside the LID once (sender_pn); Baileys learns the pair.
      await sim.sendInbound(later, { text: "hello, this is later" })
      expect((await inboundWithText("hello, this is later")).from).toBe(`+${later.phoneNumber}`)
      await wagate.restart()
      await api.phoneWithStatus(phoneId, "connected", 15_000)
      later.hidesNumber = true
      await sim.sendInbound(later, { text: "later again, by LID only" })
      expect((await inboundWithText("later again, by LID only")).from).toBe(`+${later.phoneNumber}`)
    })

    test("in a LID group, a hidden member's message is recorded with its …@lid as from", async () => {
      await sim.sendInbound(hidden, { text: "hello team, hidden" }, { group: team })
      const inbound = await inboundWithText("hello team, hidden")
      expect(inbound).toMatchObject({ from: hidden.lidJid, isGroup: true, groupId: team.jid })
    })
  })
}
