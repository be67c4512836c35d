import { describe, expect, test } from "bun:test"
import type { SimContact, SimGroup } from "../wa-sim"
import { PNG, poll } from "./live-world"
import { liveScenarioWorld, type ScenarioRun } from "./live-scenario-world"

/*
 * Acting on messages (docs/api.md § "Act on a message") with wagate as a real process and real
 * Baileys, through the TLS front as in production: each reaction, edit and revoke reaches the
 * contact, who decrypts it and finds the message it names in its chat; each read receipt reaches
 * the author of the messages it covers. The tests run in order on one simulator and one wagate;
 * actions-source.test.ts runs them against `bun src/main.ts serve`, actions-binary.test.ts against
 * the compiled executable.
 */

const ME = "+15550041111"
const STEP_TIMEOUT_MS = 30_000

export function describeActions(label: string, run: ScenarioRun): void {
  let alice: SimContact
  let bob: SimContact
  let team: SimGroup
  const sent = { textId: "", textWaId: "", imageId: "", imageWaId: "" }
  const live = liveScenarioWorld(run, {
    keyName: "actions",
    scopes: ["messages:send", "messages:read"],
    files: true,
    setUp: ({ sim }) => {
      alice = sim.contact({ phoneNumber: "+15550042222", name: "Alice" })
      bob = sim.contact({ phoneNumber: "+15550043333", name: "Bob" })
      team = sim.group({ subject: "Team", members: [alice, bob], admins: ["me"] })
    },
    pair: ME,
  })

  /** Calls the API and expects `status`, returning the envelope's data. */
  async function ok(method: string, path: string, body: unknown, status = 200): Promise<any> {
    const res = await live.api.call(method, path, body)
    expect({ path, status: res.status, body: res.status === status ? null : res.body }).toEqual({ path, status, body: null })
    return res.body.data
  }

  /** The inmsg_ id of the inbound message WhatsApp knows by `waMessageId`, once wagate has recorded it. */
  function inboundId(text: string): Promise<string> {
    return poll(async () => {
      const list = await live.api.call("GET", "/messages/inbound?limit=100")
      return (list.body.data.data as { id: string; content: string }[]).find((m) => m.content === text)?.id
    }, `the inbound "${text}"`)
  }

  describe(`acting on messages against the WhatsApp simulator, over TLS, ${label}`, () => {
    test("a text and a captioned image reach Alice; WhatsApp acknowledges both", async () => {
      const text = await live.api.send({ fromPhoneId: ME, to: `+${alice.phoneNumber}`, content: "Your order has shipped" })
      sent.textId = text.id
      sent.textWaId = (await live.sim.nextMessage(alice, { timeoutMs: 15_000 })).id
      const image = await live.api.send({ fromPhoneId: ME, to: `+${alice.phoneNumber}`, content: "the receipt", mediaUrls: [live.files.put("/receipt.png", PNG, "image/png")] })
      sent.imageId = image.id
      const received = await live.sim.nextMessage(alice, { timeoutMs: 15_000 })
      expect(received.media).toMatchObject({ kind: "image", caption: "the receipt" })
      sent.imageWaId = received.id
      await live.api.messageWithStatus(sent.textId, "read", 15_000)
      await live.api.messageWithStatus(sent.imageId, "read", 15_000)
    }, STEP_TIMEOUT_MS)

    test("Alice decrypts our reaction to our text, and its removal, both naming that message", async () => {
      expect(await ok("POST", `/messages/${sent.textId}/reaction`, { emoji: "👍🏽" })).toEqual({ messageId: sent.textId, emoji: "👍🏽" })
      expect((await live.sim.nextMessage(alice)).action).toEqual({ kind: "reaction", targetId: sent.textWaId, targetFromMe: true, emoji: "👍🏽" })
      await ok("POST", `/messages/${sent.textId}/reaction`, { emoji: "" })
      expect((await live.sim.nextMessage(alice)).action).toEqual({ kind: "reaction", targetId: sent.textWaId, targetFromMe: true, emoji: "" })
    }, STEP_TIMEOUT_MS)

    test("Alice decrypts our edits: of the text, and of the image's caption", async () => {
      const edited = await ok("PATCH", `/messages/${sent.textId}`, { content: "Your order has shipped (tracking 1Z999)" })
      expect(edited.content).toBe("Your order has shipped (tracking 1Z999)")
      expect(edited.editedAt).not.toBeNull()
      expect((await live.sim.nextMessage(alice)).action).toEqual({ kind: "edit", targetId: sent.textWaId, text: "Your order has shipped (tracking 1Z999)" })
      await ok("PATCH", `/messages/${sent.imageId}`, { content: "the corrected receipt" })
      expect((await live.sim.nextMessage(alice)).action).toEqual({ kind: "edit", targetId: sent.imageWaId, text: "the corrected receipt" })
    }, STEP_TIMEOUT_MS)

    test("Alice decrypts our revoke of the image; the message stays in wagate with revokedAt", async () => {
      const revoked = await ok("DELETE", `/messages/${sent.imageId}`, undefined)
      expect(revoked).toMatchObject({ id: sent.imageId, content: "the corrected receipt" })
      expect(revoked.revokedAt).not.toBeNull()
      expect((await live.sim.nextMessage(alice)).action).toEqual({ kind: "revoke", targetId: sent.imageWaId })
      expect((await live.api.message(sent.imageId)).revokedAt).toBe(revoked.revokedAt)
    }, STEP_TIMEOUT_MS)

    test("Alice's messages: she sees our reaction to one, and one read receipt naming it and the one before", async () => {
      const first = await live.sim.sendInbound(alice, { text: "is it here yet?" })
      const second = await live.sim.sendInbound(alice, { text: "never mind, got it" })
      const secondId = await inboundId("never mind, got it")
      await inboundId("is it here yet?")
      await ok("POST", `/messages/${secondId}/reaction`, { emoji: "❤️" })
      expect((await live.sim.nextMessage(alice)).action).toEqual({ kind: "reaction", targetId: second, targetFromMe: false, emoji: "❤️" })
      expect(await ok("POST", `/messages/inbound/${secondId}/read`, undefined)).toEqual({ messageId: secondId, markedRead: 2 })
      const receipt = await live.sim.nextReadReceipt(alice)
      expect(receipt.chat).toBe(`${alice.phoneNumber}@s.whatsapp.net`)
      expect([...receipt.ids].sort()).toEqual([first, second].sort())
    }, STEP_TIMEOUT_MS)

    test("in a group, Bob sees our reaction to his message and our read receipt for it", async () => {
      const waId = await live.sim.sendInbound(bob, { text: "standup in 5" }, { group: team })
      const id = await inboundId("standup in 5")
      await ok("POST", `/messages/${id}/reaction`, { emoji: "👀" })
      const reaction = await live.sim.nextMessage(team)
      expect(reaction.action).toEqual({ kind: "reaction", targetId: waId, targetFromMe: false, emoji: "👀" })
      expect(reaction.copies.map((c) => c.contact.phoneNumber).sort()).toEqual([alice.phoneNumber, bob.phoneNumber].sort())
      await ok("POST", `/messages/inbound/${id}/read`, undefined)
      expect(await live.sim.nextReadReceipt(bob)).toEqual({ contact: bob, chat: team.jid, ids: [waId] })
    }, STEP_TIMEOUT_MS)
  })
}
