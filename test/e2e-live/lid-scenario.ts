import { describe, expect, test } from "bun:test"
import type { SimContact, SimGroup } from "../wa-sim"
import { poll } from "./live-world"
import { liveScenarioWorld, type ScenarioRun } from "./live-scenario-world"

/*
 * Hidden numbers (docs/live-whatsapp.md § "Hidden numbers (LID)"): a contact WhatsApp names by
 * its LID only writes first; wagate records `from` as that `…@lid`, and the operator replies to
 * it. Over the TLS front, as in production; lid-source.test.ts and lid-binary.test.ts run it
 * against `bun src/main.ts serve` and the compiled executable.
 */

const ME = "+15550041111"

export function describeHiddenNumbers(label: string, run: ScenarioRun): void {
  let hidden: SimContact
  let shown: SimContact
  let team: SimGroup
  let later: SimContact
  let nameless: SimContact
  let namelessTeam: SimGroup
  let moved: SimContact
  const live = liveScenarioWorld(run, {
    keyName: "lid",
    scopes: ["messages:send", "messages:read"],
    logLevel: "warn",
    setUp: ({ sim }) => {
      hidden = sim.contact({ phoneNumber: "+15550042222", name: "Hidden", addressing: "lid", hidesNumber: true })
      shown = sim.contact({ phoneNumber: "+15550043333", name: "Shown", addressing: "lid" })
      later = sim.contact({ phoneNumber: "+15550044444", name: "Later", addressing: "lid" })
      team = sim.group({ subject: "LID team", members: [hidden, shown], addressing: "lid" })
      // No number anywhere, only a LID and a username (WhiskeySockets/Baileys#2742, #2480).
      nameless = sim.contact({ phoneNumber: "+15550045555", name: "Nameless", noNumber: true, username: "no.number_42" })
      namelessTeam = sim.group({ subject: "Nameless team", members: [nameless, shown], addressing: "lid" })
      moved = sim.contact({ phoneNumber: "+15550046666", name: "Moved" })
    },
    pair: ME,
  })

  /** The newest inbound message with this text. */
  async function inboundWithText(waId: string): Promise<any> {
    return poll(async () => {
      const res = await live.api.call("GET", "/messages/inbound?limit=100")
      return (res.body.data.data as any[]).find((m) => m.waMessageId === waId || m.content === waId)
    }, `inbound ${waId}`)
  }

  describe(`hidden numbers (LID) over TLS, ${label}`, () => {
    test("a LID-only contact writes first: from is its …@lid; a reply to that reaches it, and its receipts come back", async () => {
      await live.sim.sendInbound(hidden, { text: "hello from a hidden number" })
      const inbound = await inboundWithText("hello from a hidden number")
      expect(inbound.from).toBe(hidden.lidJid)

      const reply = await live.api.send({ fromPhoneId: ME, to: inbound.from, content: "hello, hidden" })
      expect(reply.to).toBe(hidden.lidJid)
      const received = await live.sim.nextMessage(hidden)
      expect(received.text).toBe("hello, hidden")
      const read = await live.api.messageWithStatus(reply.id, "read")
      expect(read.readAt).not.toBeNull()
    })

    test("a contact whose number WhatsApp names alongside its LID is recorded by its E.164", async () => {
      await live.sim.sendInbound(shown, { text: "hello from a shown number" })
      expect((await inboundWithText("hello from a shown number")).from).toBe(`+${shown.phoneNumber}`)
    })

    test("a LID↔number pair learned once is kept: after a restart, the contact's LID-only message is recorded by its E.164", async () => {
      // WhatsApp names the number beside the LID once (sender_pn); Baileys learns the pair.
      await live.sim.sendInbound(later, { text: "hello, this is later" })
      expect((await inboundWithText("hello, this is later")).from).toBe(`+${later.phoneNumber}`)
      await live.wagate.restart()
      await live.api.phoneWithStatus(live.phoneId, "connected", 15_000)
      later.hidesNumber = true
      await live.sim.sendInbound(later, { text: "later again, by LID only" })
      expect((await inboundWithText("later again, by LID only")).from).toBe(`+${later.phoneNumber}`)
    })

    test("a contact with no number at all writes with its username: from is its …@lid, fromUsername its username; a reply by that LID reaches it", async () => {
      await live.sim.sendInbound(nameless, { text: "hello from nowhere" })
      const inbound = await inboundWithText("hello from nowhere")
      expect(inbound).toMatchObject({ from: nameless.lidJid, fromUsername: "no.number_42", isGroup: false })

      const reply = await live.api.send({ fromPhoneId: ME, to: inbound.from, content: "hello, nameless" })
      expect(reply.to).toBe(nameless.lidJid)
      expect((await live.sim.nextMessage(nameless)).text).toBe("hello, nameless")
      await live.api.messageWithStatus(reply.id, "read")
    })

    test("in a group, a member with no number (no participant_pn, listed by LID alone) is recorded by its …@lid with its username", async () => {
      await live.sim.sendInbound(nameless, { text: "nameless in the team" }, { group: namelessTeam })
      const inbound = await inboundWithText("nameless in the team")
      expect(inbound).toMatchObject({ from: nameless.lidJid, fromUsername: "no.number_42", isGroup: true, groupId: namelessTeam.jid })
      // A 1:1 reply to the member by its LID reaches it.
      const reply = await live.api.send({ fromPhoneId: ME, to: inbound.from, content: "hello from the team" })
      expect((await live.sim.nextMessage(nameless)).text).toBe("hello from the team")
      await live.api.messageWithStatus(reply.id, "read")
    })

    test("a number whose account moved to a new LID: the send acked with refresh_lid makes wagate look it up again, and the next send reaches the new LID", async () => {
      const to = `+${moved.phoneNumber}`
      const before = await live.api.send({ fromPhoneId: ME, to, content: "before the move" })
      expect((await live.sim.nextMessage(moved)).text).toBe("before the move")
      await live.api.messageWithStatus(before.id, "read")

      const newLid = live.sim.changeLid(moved)
      const stale = await live.api.send({ fromPhoneId: ME, to, content: "to the old account" })
      await live.api.messageWithStatus(stale.id, "sent")
      await poll(() => (live.sim.lidChanges.acks.some((a) => a.contact === moved) ? true : undefined), "a refresh_lid ack")
      // wagate asks WhatsApp for the number's LID again (usync, by number), on its own, stores the
      // answer and says so once.
      await live.wagate.proc.waitFor(/looked it up again, and the next send goes to the new one/, 8_000, "err")
      expect(live.sim.lidChanges.refreshed(ME, moved)).toBe(true)
      const acksBefore = live.sim.lidChanges.acks.length

      const after = await live.api.send({ fromPhoneId: ME, to, content: "after the refresh" })
      expect((await live.sim.nextMessage(moved)).text).toBe("after the refresh")
      await live.api.messageWithStatus(after.id, "read")
      expect(live.sim.lidChanges.acks.length).toBe(acksBefore)
      expect(live.wagate.proc.err.match(/looked it up again, and the next send goes to the new one/g)).toHaveLength(1)
      // Baileys fetched the new account's keys under the new LID: the mapping was replaced.
      const keyFetches = live.sim.clientStanzas.retained.filter(({ node }) => node.tag === "iq" && node.attrs.xmlns === "encrypt")
      expect(JSON.stringify(keyFetches.map(({ node }) => node.content))).toContain(`${newLid}@lid`)
    })

    test("in a LID group, a hidden member's message is recorded with its …@lid as from", async () => {
      await live.sim.sendInbound(hidden, { text: "hello team, hidden" }, { group: team })
      const inbound = await inboundWithText("hello team, hidden")
      expect(inbound).toMatchObject({ from: hidden.lidJid, isGroup: true, groupId: team.jid })
    })
  })
}
