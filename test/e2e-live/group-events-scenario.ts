import { describe, expect, test } from "bun:test"
import type { SimContact, SimGroup } from "../wa-sim"
import { liveScenarioWorld, type ScenarioRun } from "./live-scenario-world"

/*
 * Group events (docs/webhooks.md § "Group events"): other admins change a group of a live phone
 * and add the phone to new groups; WhatsApp tells the phone in `w:gp2` notifications and wagate's
 * webhook receives group.updated, group.participants and group.joined, each once, with who acted
 * as `by`. Over the TLS front, as in production; group-events-source.test.ts runs it against
 * `bun src/main.ts serve`, group-events-binary.test.ts against the compiled executable.
 */

const ME = "+15550081111"

export function describeGroupEvents(label: string, run: ScenarioRun): void {
  let alice: SimContact
  let bob: SimContact
  let carol: SimContact
  let club: SimGroup
  const live = liveScenarioWorld(run, {
    keyName: "groups",
    scopes: ["groups:read", "phone_numbers:read"],
    setUp: ({ sim }) => {
      alice = sim.contact({ phoneNumber: "+15550082222", name: "Alice" })
      bob = sim.contact({ phoneNumber: "+15550083333", name: "Bob" })
      carol = sim.contact({ phoneNumber: "+15550084444", name: "Carol", addressing: "lid" })
      club = sim.group({ subject: "Running club", members: [alice, bob], admins: [alice] })
    },
    events: ["group.joined", "group.participants", "group.updated"],
    pair: ME,
  })

  const e164 = (c: SimContact) => `+${c.phoneNumber}`
  const at = (data: { at: string }) => Date.parse(data.at)

  describe(`group events over TLS, ${label}`, () => {
    test("another admin renames the group, adds and removes someone, and promotes us: each event once, by that admin", async () => {
      live.sim.notifyGroup(club, alice, [{ kind: "subject", subject: "Running club 2027" }])
      const renamed = await live.hooks.next("group.updated", (d) => d.groupId === club.jid, 15_000)
      expect(renamed).toEqual({ phoneId: live.phoneId, groupId: club.jid, changes: { subject: "Running club 2027" }, by: e164(alice), at: renamed.at })
      expect(Number.isNaN(at(renamed))).toBe(false)

      live.sim.notifyGroup(club, alice, [{ kind: "add", participants: [carol] }])
      const added = await live.hooks.next("group.participants", (d) => d.action === "added", 15_000)
      expect(added).toMatchObject({ phoneId: live.phoneId, groupId: club.jid, action: "added", participants: [e164(carol)], by: e164(alice) })
      live.sim.notifyGroup(club, alice, [{ kind: "remove", participants: [bob] }])
      expect(await live.hooks.next("group.participants", (d) => d.action === "removed", 15_000)).toMatchObject({ participants: [e164(bob)], by: e164(alice) })
      live.sim.notifyGroup(club, alice, [{ kind: "promote", participants: ["me"] }])
      expect(await live.hooks.next("group.participants", (d) => d.action === "promoted", 15_000)).toMatchObject({ participants: [ME], by: e164(alice) })
      // Baileys also surfaces each change as a stub message and its own events: none became a second webhook.
      expect(live.hooks.matching("group.updated", (d) => d.changes.subject === "Running club 2027")).toHaveLength(1)
      expect(live.hooks.matching("group.participants", (d) => d.action === "added")).toHaveLength(1)
    })

    test("we are added to a new group: group.joined with its subject and who added us", async () => {
      const trip = live.sim.group({ subject: "Ski trip", members: [carol, alice], admins: [carol] })
      live.sim.notifyGroup(trip, carol, [{ kind: "create" }])
      const joined = await live.hooks.next("group.joined", (d) => d.groupId === trip.jid, 15_000)
      expect(joined).toEqual({ phoneId: live.phoneId, groupId: trip.jid, subject: "Ski trip", by: e164(carol), at: joined.at })
    })
  })
}
