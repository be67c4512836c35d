import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import type { SimContact, SimGroup, WaSim } from "../wa-sim"
import { SLOW_HOOK_TIMEOUT_MS } from "../helpers/timeouts"
import { Hooks, WagateProcess } from "./live-world"
import { pairedPhone, startTlsWorld, type TlsWorld } from "./tls-world"

/*
 * Group events (docs/webhooks.md § "Group events"): other admins change a group of a live phone
 * and add the phone to new groups; WhatsApp tells the phone in `w:gp2` notifications and wagate's
 * webhook receives group.updated, group.participants and group.joined, each once, with who acted
 * as `by`. Over the TLS front, as in production; group-events-source.test.ts runs it against
 * `bun src/main.ts serve`, group-events-binary.test.ts against the compiled executable.
 */

const ME = "+15550081111"

export function describeGroupEvents(label: string, options: { prepare: () => Promise<string[] | undefined>; prepareTimeoutMs: number }): void {
  let world: TlsWorld
  let sim: WaSim
  let wagate: WagateProcess
  let hooks: Hooks
  let phoneId: string
  let alice: SimContact
  let bob: SimContact
  let carol: SimContact
  let club: SimGroup

  beforeAll(async () => {
    world = await startTlsWorld({ command: await options.prepare(), keyName: "groups", scopes: ["groups:read", "phone_numbers:read"] })
    ;({ sim, wagate } = world)
    alice = sim.contact({ phoneNumber: "+15550082222", name: "Alice" })
    bob = sim.contact({ phoneNumber: "+15550083333", name: "Bob" })
    carol = sim.contact({ phoneNumber: "+15550084444", name: "Carol", addressing: "lid" })
    club = sim.group({ subject: "Running club", members: [alice, bob], admins: [alice] })
    hooks = new Hooks()
    const endpoint = await wagate.adminOk("POST", `/accounts/${wagate.accountId}/webhooks`, { url: hooks.url, environment: "live", events: ["group.joined", "group.participants", "group.updated"] })
    hooks.secret = endpoint.secret
    phoneId = await pairedPhone(world, ME)
  }, options.prepareTimeoutMs + SLOW_HOOK_TIMEOUT_MS)

  afterAll(async () => {
    await hooks?.stop()
    await world?.stop()
  }, SLOW_HOOK_TIMEOUT_MS)

  const e164 = (c: SimContact) => `+${c.phoneNumber}`
  const at = (data: { at: string }) => Date.parse(data.at)

  describe(`group events over TLS, ${label}`, () => {
    test("another admin renames the group, adds and removes someone, and promotes us: each event once, by that admin", async () => {
      sim.notifyGroup(club, alice, [{ kind: "subject", subject: "Running club 2027" }])
      const renamed = await hooks.next("group.updated", (d) => d.groupId === club.jid, 15_000)
      expect(renamed).toEqual({ phoneId, groupId: club.jid, changes: { subject: "Running club 2027" }, by: e164(alice), at: renamed.at })
      expect(Number.isNaN(at(renamed))).toBe(false)

      sim.notifyGroup(club, alice, [{ kind: "add", participants: [carol] }])
      const added = await hooks.next("group.participants", (d) => d.action === "added", 15_000)
      expect(added).toMatchObject({ phoneId, groupId: club.jid, action: "added", participants: [e164(carol)], by: e164(alice) })
      sim.notifyGroup(club, alice, [{ kind: "remove", participants: [bob] }])
      expect(await hooks.next("group.participants", (d) => d.action === "removed", 15_000)).toMatchObject({ participants: [e164(bob)], by: e164(alice) })
      sim.notifyGroup(club, alice, [{ kind: "promote", participants: ["me"] }])
      expect(await hooks.next("group.participants", (d) => d.action === "promoted", 15_000)).toMatchObject({ participants: [ME], by: e164(alice) })
      // Baileys also surfaces each change as a stub message and its own events: none became a second webhook.
      expect(hooks.matching("group.updated", (d) => d.changes.subject === "Running club 2027")).toHaveLength(1)
      expect(hooks.matching("group.participants", (d) => d.action === "added")).toHaveLength(1)
    })

    test("we are added to a new group: group.joined with its subject and who added us", async () => {
      const trip = sim.group({ subject: "Ski trip", members: [carol, alice], admins: [carol] })
      sim.notifyGroup(trip, carol, [{ kind: "create" }])
      const joined = await hooks.next("group.joined", (d) => d.groupId === trip.jid, 15_000)
      expect(joined).toEqual({ phoneId, groupId: trip.jid, subject: "Ski trip", by: e164(carol), at: joined.at })
    })
  })
}
