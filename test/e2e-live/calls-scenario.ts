import { describe, expect, test } from "bun:test"
import type { SimContact } from "../wa-sim"
import { poll } from "./live-world"
import { liveScenarioWorld, type ScenarioRun } from "./live-scenario-world"

/*
 * Calls (docs/api.md § "Calls") over the TLS front, as in production: a call arrives and emits
 * call.received; a reject by API reaches WhatsApp as its reject stanza and emits call.ended
 * rejected; with the phone's call policy on (set with the CLI), every call is rejected by wagate
 * itself and the caller gets the reply text once, not again for a second call within the hour.
 * calls-source.test.ts runs it against `bun src/main.ts serve`.
 */

const ME = "+15550091111"

export function describeCalls(label: string, run: ScenarioRun): void {
  let alice: SimContact
  let bob: SimContact
  let carol: SimContact
  const live = liveScenarioWorld(run, {
    keyName: "calls",
    scopes: ["messages:send"],
    setUp: ({ sim }) => {
      alice = sim.contact({ phoneNumber: "+15550092222", name: "Alice" })
      bob = sim.contact({ phoneNumber: "+15550093333", name: "Bob", addressing: "lid" })
      carol = sim.contact({ phoneNumber: "+15550094444", name: "Carol" })
    },
    events: ["call.received", "call.ended"],
    pair: ME,
  })

  const ended = (callId: string) => live.hooks.next("call.ended", (d) => d.callId === callId, 15_000)
  const messagesTo = (contact: SimContact) => live.sim.outbox.all.filter((m) => m.contact === contact)

  describe(`calls over TLS, ${label}`, () => {
    test("a video call arrives as call.received; rejected by API, WhatsApp gets the reject and call.ended says rejected; a second reject is 409", async () => {
      const callId = live.sim.calls.offer(alice, { video: true })
      expect(await live.hooks.next("call.received", (d) => d.callId === callId, 15_000)).toMatchObject({ callId, phoneId: live.phoneId, from: "+15550092222", isVideo: true, isGroup: false })
      const res = await live.api.call("POST", `/calls/${callId}/reject`, { fromPhoneId: ME })
      expect(res.status).toBe(204)
      expect(live.sim.calls.rejects.map((r) => r.callId)).toEqual([callId])
      expect(await ended(callId)).toMatchObject({ callId, phoneId: live.phoneId, from: "+15550092222", outcome: "rejected" })
      const again = await live.api.call("POST", `/calls/${callId}/reject`, { fromPhoneId: ME })
      expect(again.status).toBe(409)
    })

    test("a call the caller cancels ends missed", async () => {
      const callId = live.sim.calls.offer(carol)
      await live.hooks.next("call.received", (d) => d.callId === callId, 15_000)
      live.sim.calls.cancel(callId)
      expect(await ended(callId)).toMatchObject({ callId, outcome: "missed" })
    })

    test("with the policy on (set by the CLI), wagate rejects each call; the caller gets the reply once, not for a second call within the hour", async () => {
      const set = await live.wagate.cli(["phones", "call-policy", ME, "--reject", "on", "--reply", "We cannot take calls here; please write to us."])
      expect(set.code).toBe(0)
      const first = live.sim.calls.offer(bob)
      expect(await ended(first)).toMatchObject({ callId: first, from: "+15550093333", outcome: "rejected" })
      const reply = await live.sim.nextMessage(bob, { timeoutMs: 15_000 })
      expect(reply.text).toBe("We cannot take calls here; please write to us.")

      const second = live.sim.calls.offer(bob, { video: true })
      expect(await ended(second)).toMatchObject({ callId: second, outcome: "rejected" })
      // Calls of a phone are handled one after the other: once Carol's reply is out, Bob's second call is done.
      const third = live.sim.calls.offer(carol)
      expect(await ended(third)).toMatchObject({ callId: third, outcome: "rejected" })
      expect((await live.sim.nextMessage(carol, { timeoutMs: 15_000 })).text).toBe("We cannot take calls here; please write to us.")
      expect(messagesTo(bob)).toHaveLength(1)
      expect(live.sim.calls.rejects.map((r) => r.callId).slice(-3)).toEqual([first, second, third])
      await poll(async () => (live.hooks.matching("call.received").length >= 5 ? true : undefined), "five call.received events")
    })
  })
}
