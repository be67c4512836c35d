import { storeOver } from "../helpers/sqlite-store"
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { silentLogger } from "../../src/lib/logger"
import { migrate, openDatabase, type Database } from "../../src/store/sqlite/db"
import { createWriter, type Writer } from "../../src/store/sqlite/writer"
import type { GroupNotice } from "../../src/whatsapp/gateway"
import { createBaileysGateway } from "../../src/whatsapp/baileys/gateway"
import { openSimSession, type SimSession } from "../helpers/sim-session"
import { TestClock } from "../helpers/test-clock"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { waitUntil } from "../helpers/webhook-receiver"
import { groupBookOf } from "../wa-sim/group-admin"
import type { GroupActor, GroupNotificationChange } from "../wa-sim/group-notifications"
import { startWaSim, type SimContact, type SimGroup, type WaSim } from "../wa-sim"

// Runs the simulator: see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * WhatsApp's group notifications (src/whatsapp/baileys/group-notices.ts) in process: wagate's
 * Baileys gateway against the simulator, whose admins change groups of the paired phone. Each
 * notification reaches the port's groupChanged once, in wagate's words, with who made it; Baileys
 * surfaces the same change again as events and a stub message, and wagate tells it once.
 */

const ME = "+15550071111"

let sim: WaSim
let db: Database
let writer: Writer
const clock = new TestClock()
const notices: GroupNotice[] = []
let phone: SimSession
let alice: SimContact
let bob: SimContact
let carol: SimContact
let dave: SimContact
let club: SimGroup
let lidGroup: SimGroup

beforeAll(async () => {
  sim = await startWaSim({ advSecretRotation: false })
  db = openDatabase(":memory:")
  migrate(db, clock.nowMs())
  writer = createWriter(db)
  alice = sim.contact({ phoneNumber: "+15550072222", name: "Alice" })
  bob = sim.contact({ phoneNumber: "+15550073333", name: "Bob" })
  carol = sim.contact({ phoneNumber: "+15550074444", name: "Carol", addressing: "lid" })
  dave = sim.contact({ phoneNumber: "+15550075555", name: "Dave", addressing: "lid", hidesNumber: true })
  club = sim.group({ subject: "Book club", members: [alice, bob], admins: [alice] })
  lidGroup = sim.group({ subject: "Neighbours", members: [carol, dave], admins: [carol], addressing: "lid" })
  const gateway = createBaileysGateway({ store: storeOver(db, writer), clock, logger: silentLogger, wsUrl: sim.wsUrl })
  phone = await openSimSession(gateway, sim, ME, { pair: true, events: { groupChanged: (notice) => void notices.push(notice) } })
}, SLOW_HOOK_TIMEOUT_MS)

afterAll(async () => {
  await phone?.session.close()
  await sim?.stop()
}, SLOW_HOOK_TIMEOUT_MS)

/** Sends one notification and resolves with the notice it became. */
async function notify(group: SimGroup, by: GroupActor, changes: GroupNotificationChange[] | { picture: boolean }): Promise<GroupNotice> {
  const before = notices.length
  sim.notifyGroup(group, by, changes)
  await waitUntil(() => notices.length > before, 10_000, "the group notice")
  return notices[before]!
}

const e164 = (c: SimContact) => `+${c.phoneNumber}`

describe("group notifications from the simulator, in process", () => {
  test("another admin renames the group: one notice, by that admin, with the new subject", async () => {
    const notice = await notify(club, alice, [{ kind: "subject", subject: "Book club 2027" }])
    expect(notice).toMatchObject({ groupId: club.jid, by: e164(alice), changes: [{ kind: "updated", changes: { subject: "Book club 2027" } }] })
    // Baileys' stub message and groups.update for the same change add nothing.
    sim.notifyGroup(club, alice, [{ kind: "locked" }])
    await waitUntil(() => notices.length >= 2, 10_000, "the next notice")
    expect(notices.filter((n) => n.changes.some((c) => c.kind === "updated" && c.changes.subject === "Book club 2027"))).toHaveLength(1)
  })

  test("adds, removes, promotions and a member leaving name the participants and the admin who acted", async () => {
    expect(await notify(club, alice, [{ kind: "add", participants: [carol] }])).toMatchObject({ by: e164(alice), changes: [{ kind: "participants", action: "added", participants: [e164(carol)] }] })
    expect(await notify(club, alice, [{ kind: "remove", participants: [carol] }])).toMatchObject({ changes: [{ action: "removed", participants: [e164(carol)] }] })
    expect(await notify(club, alice, [{ kind: "promote", participants: ["me"] }])).toMatchObject({ by: e164(alice), changes: [{ action: "promoted", participants: [ME] }] })
    expect(await notify(club, "me", [{ kind: "demote", participants: [alice] }])).toMatchObject({ by: ME, changes: [{ action: "demoted", participants: [e164(alice)] }] })
    expect(await notify(club, bob, [{ kind: "remove", participants: [bob] }])).toMatchObject({ by: e164(bob), changes: [{ action: "left", participants: [e164(bob)] }] })
  })

  test("settings changed together become one update naming each; a removed description is empty", async () => {
    const notice = await notify(club, alice, [
      { kind: "announcement" },
      { kind: "unlocked" },
      { kind: "member_add_mode", mode: "admin_add" },
      { kind: "membership_approval_mode", on: true },
      { kind: "ephemeral", seconds: 604800 },
      { kind: "description", description: "Monthly\nmeetings" },
    ])
    expect(notice.changes).toEqual([
      { kind: "updated", changes: { announce: true, locked: false, memberAddMode: "admins", approvalMode: true, ephemeralSeconds: 604800, description: "Monthly\nmeetings" } },
    ])
    const off = await notify(club, alice, [{ kind: "not_announcement" }, { kind: "ephemeral", seconds: 0 }, { kind: "description", description: null }, { kind: "member_add_mode", mode: "all_member_add" }])
    expect(off.changes).toEqual([{ kind: "updated", changes: { announce: false, ephemeralSeconds: 0, description: "", memberAddMode: "all" } }])
    expect((await notify(club, alice, { picture: true })).changes).toEqual([{ kind: "updated", changes: { picture: "set" } }])
  })

  test("in a LID-addressed group the admin is named by number when WhatsApp tells it, by LID when the member hides it", async () => {
    expect(await notify(lidGroup, carol, [{ kind: "subject", subject: "Street" }])).toMatchObject({ groupId: lidGroup.jid, by: e164(carol) })
    const request = await notify(lidGroup, dave, [{ kind: "membership_request", requester: dave }])
    expect(request).toMatchObject({ by: `${dave.lid}@lid`, changes: [{ kind: "participants", action: "requested", participants: [`${dave.lid}@lid`] }] })
  })

  test("this phone added to a new group, or to an existing one, is a join with the group's subject", async () => {
    const party = sim.group({ subject: "Birthday party", members: [alice, bob], admins: [alice] })
    // Creating a group adds everyone in it but its creator.
    expect(await notify(party, alice, [{ kind: "create" }])).toEqual({
      groupId: party.jid,
      by: e164(alice),
      atMs: expect.any(Number),
      changes: [
        { kind: "joined", subject: "Birthday party" },
        { kind: "participants", action: "added", participants: [ME, e164(bob)] },
      ],
    })
    const choir = sim.group({ subject: "Choir", members: [bob], admins: [bob] })
    const added = await notify(choir, bob, [{ kind: "add", participants: ["me"] }])
    // The add names no subject: the adapter asks WhatsApp for the group's.
    expect(added).toMatchObject({ by: e164(bob), changes: [{ kind: "participants", action: "added", participants: [ME] }, { kind: "joined", subject: "Choir" }] })
  })

  test("the phone's own changes through the session come back from WhatsApp once each, made by this phone", async () => {
    const own = phone.session.groups
    const before = notices.length
    const { detail } = await own.create("Own group", [alice.pnJid])
    await waitUntil(() => notices.length > before, 10_000, "the create's notice")
    await own.update(detail.id, { subject: "Own group 2", locked: true })
    await own.participants(detail.id, "promote", [alice.pnJid])
    await own.leave(detail.id)
    await waitUntil(() => notices.length >= before + 5, 10_000, "every own change's notice")
    const mine = notices.slice(before)
    expect(mine.map((n) => [n.groupId, n.by])).toEqual(Array.from({ length: 5 }, () => [detail.id, ME]))
    expect(mine.map((n) => n.changes)).toEqual([
      [
        { kind: "joined", subject: "Own group" },
        { kind: "participants", action: "added", participants: [e164(alice)] },
      ],
      [{ kind: "updated", changes: { subject: "Own group 2" } }],
      [{ kind: "updated", changes: { locked: true } }],
      [{ kind: "participants", action: "promoted", participants: [e164(alice)] }],
      [{ kind: "participants", action: "left", participants: [ME] }],
    ])
  })

  test("a join by an invite link this phone used comes back as a join adding this phone", async () => {
    const open = groupBookOf(sim.primary(ME).account).host({ subject: "Open door", admin: bob, members: [alice], nowMs: Date.now() })
    const before = notices.length
    expect(await phone.session.groups.join(open.code)).toEqual({ joined: true, groupJid: open.jid })
    await waitUntil(() => notices.length > before, 10_000, "the join's notice")
    expect(notices.slice(before)).toEqual([
      {
        groupId: open.jid,
        by: ME,
        atMs: expect.any(Number),
        changes: [
          { kind: "joined", subject: "Open door" },
          { kind: "participants", action: "added", participants: [ME] },
        ],
      },
    ])
  })

  test("a notification WhatsApp sends again (same id) is told once", async () => {
    const before = notices.length
    const id = sim.notifyGroup(club, alice, [{ kind: "subject", subject: "Once" }])
    sim.notifyGroup(club, alice, [{ kind: "subject", subject: "Once" }], { id })
    sim.notifyGroup(club, alice, [{ kind: "subject", subject: "After" }])
    await waitUntil(() => notices.some((n) => n.changes.some((c) => c.kind === "updated" && c.changes.subject === "After")), 10_000, "the later notice")
    expect(notices.slice(before).map((n) => (n.changes[0] as { changes: { subject: string } }).changes.subject)).toEqual(["Once", "After"])
  })

  test("a notification sent again after a reconnect (its acknowledgement lost) is told once", async () => {
    const id = sim.notifyGroup(club, alice, [{ kind: "subject", subject: "Before the drop" }])
    await waitUntil(() => notices.some((n) => n.changes.some((c) => c.kind === "updated" && c.changes.subject === "Before the drop")), 10_000, "the first notice")
    const before = phone.connects
    sim.dropConnections()
    await waitUntil(() => phone.connects > before, 30_000, "the reconnect")
    sim.notifyGroup(club, alice, [{ kind: "subject", subject: "Before the drop" }], { id })
    sim.notifyGroup(club, alice, [{ kind: "subject", subject: "After the drop" }])
    await waitUntil(() => notices.some((n) => n.changes.some((c) => c.kind === "updated" && c.changes.subject === "After the drop")), 10_000, "the later notice")
    expect(notices.filter((n) => n.changes.some((c) => c.kind === "updated" && c.changes.subject === "Before the drop"))).toHaveLength(1)
  })
})
