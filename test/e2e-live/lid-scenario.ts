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
  let nameless: SimContact
  let namelessTeam: SimGroup
  let moved: SimContact

  beforeAll(async () => {
    world = await startTlsWorld({ command: await options.prepare(), keyName: "lid", scopes: ["messages:send", "messages:read"], logLevel: "warn" })
    ;({ sim, wagate, api } = world)
    hidden = sim.contact({ phoneNumber: "+15550042222", name: "Hidden", addressing: "lid", hidesNumber: true })
    shown = sim.contact({ phoneNumber: "+15550043333", name: "Shown", addressing: "lid" })
    later = sim.contact({ phoneNumber: "+15550044444", name: "Later", addressing: "lid" })
    team = sim.group({ subject: "LID team", members: [hidden, shown], addressing: "lid" })
    // No number anywhere, only a LID and a username (WhiskeySockets/Baileys#2742, #2480).
    nameless = sim.contact({ phoneNumber: "+15550045555", name: "Nameless", noNumber: true, username: "no.number_42" })
    namelessTeam = sim.group({ subject: "Nameless team", members: [nameless, shown], addressing: "lid" })
    moved = sim.contact({ phoneNumber: "+15550046666", name: "Moved" })
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

    test("a contact with no number at all writes with its username: from is its …@lid, fromUsername its username; a reply by that LID reaches it", async () => {
      await sim.sendInbound(nameless, { text: "hello from nowhere" })
      const inbound = await inboundWithText("hello from nowhere")
      expect(inbound).toMatchObject({ from: nameless.lidJid, fromUsername: "no.number_42", isGroup: false })

      const reply = await api.send({ fromPhoneId: ME, to: inbound.from, content: "hello, nameless" })
      expect(reply.to).toBe(nameless.lidJid)
      expect((await sim.nextMessage(nameless)).text).toBe("hello, nameless")
      await api.messageWithStatus(reply.id, "read")
    })

    test("in a group, a member with no number (no participant_pn, listed by LID alone) is recorded by its …@lid with its username", async () => {
      await sim.sendInbound(nameless, { text: "nameless in the team" }, { group: namelessTeam })
      const inbound = await inboundWithText("nameless in the team")
      expect(inbound).toMatchObject({ from: nameless.lidJid, fromUsername: "no.number_42", isGroup: true, groupId: namelessTeam.jid })
      // A 1:1 reply to the member by its LID reaches it.
      const reply = await api.send({ fromPhoneId: ME, to: inbound.from, content: "hello from the team" })
      expect((await sim.nextMessage(nameless)).text).toBe("hello from the team")
      await api.messageWithStatus(reply.id, "read")
    })

    test("a number whose account moved to a new LID: the send acked with refresh_lid makes wagate look it up again, and the next send reaches the new LID", async () => {
      const to = `+${moved.phoneNumber}`
      const before = await api.send({ fromPhoneId: ME, to, content: "before the move" })
      expect((await sim.nextMessage(moved)).text).toBe("before the move")
      await api.messageWithStatus(before.id, "read")

      const newLid = sim.changeLid(moved)
      const stale = await api.send({ fromPhoneId: ME, to, content: "to the old account" })
      await api.messageWithStatus(stale.id, "sent")
      await poll(() => (sim.lidChanges.acks.some((a) => a.contact === moved) ? true : undefined), "a refresh_lid ack")
      // wagate asks WhatsApp for the number's LID again (usync, by number), on its own, stores the
      // answer and says so once.
      await wagate.proc.waitFor(/looked it up again, and the next send goes to the new one/, 8_000, "err")
      expect(sim.lidChanges.refreshed(ME, moved)).toBe(true)
      const acksBefore = sim.lidChanges.acks.length

      const after = await api.send({ fromPhoneId: ME, to, content: "after the refresh" })
      expect((await sim.nextMessage(moved)).text).toBe("after the refresh")
      await api.messageWithStatus(after.id, "read")
      expect(sim.lidChanges.acks.length).toBe(acksBefore)
      expect(wagate.proc.err.match(/looked it up again, and the next send goes to the new one/g)).toHaveLength(1)
      // Baileys fetched the new account's keys under the new LID: the mapping was replaced.
      const keyFetches = sim.clientStanzas.retained.filter(({ node }) => node.tag === "iq" && node.attrs.xmlns === "encrypt")
      expect(JSON.stringify(keyFetches.map(({ node }) => node.content))).toContain(`${newLid}@lid`)
    })

    test("in a LID group, a hidden member's message is recorded with its …@lid as from", async () => {
      await sim.sendInbound(hidden, { text: "hello team, hidden" }, { group: team })
      const inbound = await inboundWithText("hello team, hidden")
      expect(inbound).toMatchObject({ from: hidden.lidJid, isGroup: true, groupId: team.jid })
    })
  })
}
