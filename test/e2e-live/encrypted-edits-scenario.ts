import { describe, expect, test } from "bun:test"
import type { SimContact } from "../wa-sim"
import { edit } from "../wa-sim/inbound-kinds"
import { poll } from "./live-world"
import { liveScenarioWorld, type ScenarioRun } from "./live-scenario-world"

/*
 * Encrypted edits (docs/live-whatsapp.md § "Encrypted edits"): contacts whose app sends an edit
 * as `secretEncryptedMessage`, sealed with the edited message's secret under their LID or their
 * number, edit what they wrote; wagate records the new text and emits message.edited with
 * editedAt as for a plain edit, also when the edit arrives after a restart (the secret is read
 * from the store). Over the TLS front, as in production; encrypted-edits-source.test.ts and
 * encrypted-edits-binary.test.ts run it against `bun src/main.ts serve` and the compiled executable.
 */

const ME = "+15550071111"

export function describeEncryptedEdits(label: string, run: ScenarioRun): void {
  let alice: SimContact
  let bob: SimContact
  const myJid = `${ME.slice(1)}@s.whatsapp.net`
  const live = liveScenarioWorld(run, {
    keyName: "edits",
    scopes: ["messages:send", "messages:read"],
    setUp: ({ sim }) => {
      alice = sim.contact({ phoneNumber: "+15550072222", name: "Alice", addressing: "lid", encryptedEdits: "lid" })
      bob = sim.contact({ phoneNumber: "+15550073333", name: "Bob", encryptedEdits: "pn" })
    },
    events: ["*"],
    pair: ME,
  })

  /** The inbound message with this text, once wagate recorded it. */
  async function inbound(text: string): Promise<any> {
    return poll(async () => {
      const res = await live.api.call("GET", "/messages/inbound?limit=100")
      return (res.body.data.data as any[]).find((m) => m.content === text)
    }, `inbound "${text}"`)
  }

  /** A contact edits its message `waId` (seen by wagate as `messageId`); resolves with the message.edited data. */
  async function edited(contact: SimContact, waId: string, messageId: string, text: string): Promise<any> {
    const atMs = Date.now() - 1_000
    await live.sim.sendInbound(contact, edit({ remoteJid: myJid, id: waId, fromMe: true }, text, atMs))
    const data = await live.hooks.next("message.edited", (d) => d.messageId === messageId, 15_000)
    expect(data).toEqual({ messageId, from: `+${contact.phoneNumber}`, content: text, editedAt: new Date(atMs).toISOString() })
    expect((await live.api.call("GET", `/messages/inbound/${messageId}`)).body.data.content).toBe(text)
    return data
  }

  describe(`encrypted edits over TLS, ${label}`, () => {
    test("a contact sealing with its LID edits its message: the new text, message.edited with editedAt, and no empty message beside it", async () => {
      const waId = await live.sim.sendInbound(alice, { text: "meet at 5" })
      const original = await inbound("meet at 5")
      await edited(alice, waId, original.id, "meet at 6")
      const all = (await live.api.call("GET", "/messages/inbound?limit=100")).body.data.data as any[]
      expect(all.filter((m) => m.type === "other")).toEqual([])
    })

    test("a contact sealing with its number edits a message it wrote before wagate restarted: the secret comes from the store", async () => {
      const waId = await live.sim.sendInbound(bob, { text: "the invoice is 40" })
      const original = await inbound("the invoice is 40")
      await live.wagate.restart()
      await live.api.phoneWithStatus(live.phoneId, "connected", 15_000)
      await edited(bob, waId, original.id, "the invoice is 45")
      const metrics = await live.wagate.request(live.wagate.adminToken, "GET", "/metrics")
      expect(String(metrics.body)).toMatch(/wagate_encrypted_edits_total\{[^}]*result="decrypted"[^}]*\} 1/)
    })
  })
}
