import { describe, expect, test } from "bun:test"
import { bandedPicture } from "../helpers/pictures"
import type { SimContact, SimGroup } from "../wa-sim"
import { groupBookOf, type GroupBook } from "../wa-sim/group-admin"
import { liveScenarioWorld, type ScenarioRun } from "./live-scenario-world"

/*
 * The group events of the phone's own changes made through wagate's API (docs/webhooks.md
 * § "Group events"): WhatsApp tells every device of the account, the one that made the change
 * included (test/wa-sim/README.md § "Group notifications"), and wagate turns each notification
 * into its events once, with this phone as `by`. Over the TLS front, as in production, with real
 * Baileys; group-echo-source.test.ts runs it against `bun src/main.ts serve`. The steps run in
 * order on one simulator and one wagate; the last one counts every event.
 */

const ME = "+15550091111"
const STEP_TIMEOUT_MS = 30_000
const WAIT_MS = 15_000

export function describeGroupEcho(label: string, run: ScenarioRun): void {
  let book: GroupBook
  let alice: SimContact
  let bob: SimContact
  let carol: SimContact
  let dave: SimContact
  let team: SimGroup
  /** Every group event the steps expect, as `event data` strings without `at`. */
  const expected: string[] = []
  const made = { id: "", joined: "" }
  const live = liveScenarioWorld(run, {
    keyName: "echo",
    scopes: ["groups:write", "groups:read", "phone_numbers:read"],
    files: true,
    setUp: ({ sim }) => {
      alice = sim.contact({ phoneNumber: "+15550092222", name: "Alice" })
      bob = sim.contact({ phoneNumber: "+15550093333", name: "Bob" })
      carol = sim.contact({ phoneNumber: "+15550094444", name: "Carol" })
      dave = sim.contact({ phoneNumber: "+15550095555", name: "Dave" })
      team = sim.group({ subject: "Team", members: [alice], admins: ["me", alice] })
      book = groupBookOf(sim.primary(ME).account)
    },
    events: ["group.joined", "group.participants", "group.updated"],
    pair: ME,
  })

  const e164 = (c: SimContact) => `+${c.phoneNumber}`

  /** Calls the API and expects `status`, returning the envelope's data. */
  async function ok(method: string, path: string, body: unknown, status = 200): Promise<any> {
    const res = await live.api.call(method, path, body)
    expect({ path, status: res.status, body: res.status === status ? null : res.body }).toEqual({ path, status, body: null })
    return res.body?.data
  }

  const key = (event: string, data: Record<string, unknown>) => `${event} ${JSON.stringify({ ...data, at: undefined })}`

  /** Waits for each event (in any order) with this phone as `by`, and remembers it for the final count. */
  async function expectEvents(groupId: string, events: [string, Record<string, unknown>][]): Promise<void> {
    for (const [event, fields] of events) {
      const data = { phoneId: live.phoneId, groupId, ...fields, by: ME }
      const wanted = key(event, data)
      const got = await live.hooks.next(event, (d) => key(event, d) === wanted, WAIT_MS)
      expect(Number.isNaN(Date.parse(got.at))).toBe(false)
      expected.push(wanted)
    }
  }

  describe(`group events of the phone's own changes, over TLS, ${label}`, () => {
    test("create with a description: group.joined, the members added and the description, by this phone", async () => {
      const data = await ok("POST", "/groups", { fromPhoneId: ME, subject: "Echo club", participants: [e164(alice)], description: "Our runs" }, 201)
      made.id = data.group.id
      await expectEvents(made.id, [
        ["group.joined", { subject: "Echo club" }],
        ["group.participants", { action: "added", participants: [e164(alice)] }],
        ["group.updated", { changes: { description: "Our runs" } }],
      ])
    }, STEP_TIMEOUT_MS)

    test("PATCH: one group.updated per field that changed; a field already so sends nothing", async () => {
      const patch = { fromPhoneId: ME, subject: "Echo club 2", description: "Our runs", announce: true, locked: true, memberAddMode: "all", approvalMode: true, ephemeralSeconds: 86_400 }
      await ok("PATCH", `/groups/${made.id}`, patch)
      await expectEvents(made.id, [
        ["group.updated", { changes: { subject: "Echo club 2" } }],
        ["group.updated", { changes: { announce: true } }],
        ["group.updated", { changes: { locked: true } }],
        ["group.updated", { changes: { memberAddMode: "all" } }],
        ["group.updated", { changes: { approvalMode: true } }],
        ["group.updated", { changes: { ephemeralSeconds: 86_400 } }],
      ])
      await ok("PATCH", `/groups/${made.id}`, { fromPhoneId: ME, ephemeralSeconds: 0 })
      await expectEvents(made.id, [["group.updated", { changes: { ephemeralSeconds: 0 } }]])
    }, STEP_TIMEOUT_MS)

    test("participants: add, promote, demote, remove, approve each emit group.participants; a reject emits nothing", async () => {
      const act = (action: string, who: SimContact) => ok("POST", `/groups/${made.id}/participants`, { fromPhoneId: ME, action, participants: [e164(who)] })
      for (const [action, done] of [["add", "added"], ["promote", "promoted"], ["demote", "demoted"], ["remove", "removed"]] as const) {
        await act(action, bob)
        await expectEvents(made.id, [["group.participants", { action: done, participants: [e164(bob)] }]])
      }
      book.get(made.id)!.pending.push(carol, dave)
      await act("approve", carol)
      await expectEvents(made.id, [["group.participants", { action: "added", participants: [e164(carol)] }]])
      expect(await act("reject", dave)).toEqual({ results: [{ participant: e164(dave), result: "rejected" }] })
    }, STEP_TIMEOUT_MS)

    test("a group's picture set and removed: group.updated picture set, then removed", async () => {
      const url = live.files.put("/team.png", await bandedPicture("png", 500, 500), "image/png")
      await ok("PUT", `/groups/${team.jid}/picture`, { fromPhoneId: ME, mediaUrl: url })
      await expectEvents(team.jid, [["group.updated", { changes: { picture: "set" } }]])
      await ok("DELETE", `/groups/${team.jid}/picture`, { fromPhoneId: ME })
      await expectEvents(team.jid, [["group.updated", { changes: { picture: "removed" } }]])
    }, STEP_TIMEOUT_MS)

    test("join by link and leave: group.joined with this phone added; then this phone left", async () => {
      const open = book.host({ subject: "Open club", admin: bob, members: [alice], nowMs: Date.now() })
      made.joined = open.jid
      await ok("POST", "/groups/join", { fromPhoneId: ME, invite: `https://chat.whatsapp.com/${open.code}` })
      await expectEvents(open.jid, [
        ["group.joined", { subject: "Open club" }],
        ["group.participants", { action: "added", participants: [ME] }],
      ])
      await ok("POST", `/groups/${made.id}/leave`, { fromPhoneId: ME }, 204)
      await expectEvents(made.id, [["group.participants", { action: "left", participants: [ME] }]])
    }, STEP_TIMEOUT_MS)

    test("each of those changes emitted its events exactly once, and nothing else came", async () => {
      // A change another admin makes last: WhatsApp's notifications are told in order, so once it is here every earlier one was told.
      live.sim.notifyGroup(team, alice, [{ kind: "subject", subject: "Last" }])
      await live.hooks.next("group.updated", (d) => d.changes.subject === "Last", WAIT_MS)
      const ours = [made.id, made.joined, team.jid]
      // Counted by event id: a delivery wagate retried (the receiver slow to answer) is one event.
      const byId = new Map(live.hooks.events().map((hook) => [hook.headers["x-service-event-id"], hook.json]))
      const received = [...byId.values()].filter((json) => ours.includes(json.data.groupId) && json.data.by === ME).map((json) => key(json.event, json.data))
      expect(received.toSorted()).toEqual(expected.toSorted())
    }, STEP_TIMEOUT_MS)
  })
}
