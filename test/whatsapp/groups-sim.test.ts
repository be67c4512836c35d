import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { baileysGroups } from "../../src/whatsapp/baileys/groups"
import { GroupRefusedError, type WhatsAppGroups } from "../../src/whatsapp/gateway"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { pairWithQr } from "../wa-sim/baileys-client"
import { groupBookOf, type GroupBook } from "../wa-sim/group-admin"
import { startWaSim, type SimContact, type WaSim } from "../wa-sim"

// Runs the simulator: see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * The Baileys adapter's group requests (src/whatsapp/baileys/groups.ts) on an unmodified Baileys
 * socket, against the simulator's group administration (test/wa-sim/README.md § "Group
 * administration"): what each request does on WhatsApp, and how each refusal WhatsApp answers
 * reads in wagate's words.
 */

const ME = "+15550091111"

let sim: WaSim
let book: GroupBook
let groups: WhatsAppGroups
let stops: (() => unknown)[] = []
let alice: SimContact
let shy: SimContact
let absent: SimContact
let boss: SimContact

beforeAll(async () => {
  sim = await startWaSim({ advSecretRotation: false })
  stops.push(() => sim.stop())
  alice = sim.contact({ phoneNumber: "+15550092222", name: "Alice" })
  shy = sim.contact({ phoneNumber: "+15550093333", name: "Shy" })
  absent = sim.contact({ phoneNumber: "+15550094444", onWhatsApp: false })
  boss = sim.contact({ phoneNumber: "+15550095555", name: "Boss" })
  book = groupBookOf(sim.primary(ME).account)
  book.refuseAdds(shy)
  const { first, client } = await pairWithQr(sim, ME)
  stops.push(() => first.end(), () => client.end())
  groups = baileysGroups(() => client.sock)
}, SLOW_HOOK_TIMEOUT_MS)

afterAll(async () => {
  for (const stop of stops.reverse()) await stop()
  stops = []
}, SLOW_HOOK_TIMEOUT_MS)

/** The reason of the GroupRefusedError a request rejects with. */
async function refusedWith(request: Promise<unknown>): Promise<string> {
  try {
    await request
  } catch (err) {
    if (err instanceof GroupRefusedError) return err.reason
    throw err
  }
  throw new Error("the request was not refused")
}

describe("the Baileys adapter's group requests against the simulator", () => {
  test("create: one outcome per participant, the privacy-refused add with WhatsApp's invite; the detail names the phone superadmin", async () => {
    const { detail, outcomes } = await groups.create("Club", [alice.pnJid, shy.pnJid, absent.pnJid])
    const handedBack = book.get(detail.id)!.addRequests.get(shy)!
    expect(outcomes).toEqual([
      { jid: alice.pnJid, outcome: "done" },
      { jid: shy.pnJid, outcome: "privacy_refused", invite: { code: handedBack.code, expiresAtMs: Number(handedBack.expiration) * 1000 } },
      { jid: absent.pnJid, outcome: "not_on_whatsapp" },
    ])
    expect(detail.subject).toBe("Club")
    expect(detail.participants.map((p) => [p.phoneNumber, p.isAdmin, p.isSuperAdmin])).toEqual([
      [ME, true, true],
      [`+${alice.phoneNumber}`, false, false],
    ])
  })

  test("sendInvite: the person gets WhatsApp's group invite message with the group, its subject, the code and its expiry", async () => {
    const made = await groups.create("Invites", [shy.pnJid])
    const invite = made.outcomes[0]!
    if (invite.outcome !== "privacy_refused") throw new Error(`expected privacy_refused, got ${invite.outcome}`)
    await groups.sendInvite(shy.pnJid, { groupJid: made.detail.id, subject: "Invites", ...invite.invite })
    const received = (await sim.nextMessage(shy, { timeoutMs: 10_000 })).message?.groupInviteMessage
    expect(received).toMatchObject({ groupJid: made.detail.id, groupName: "Invites", inviteCode: invite.invite.code })
    expect(Number(received?.inviteExpiration)).toBe(Math.floor(invite.invite.expiresAtMs / 1000))
  })

  test("update and detail: every setting is applied on WhatsApp and read back", async () => {
    const { detail } = await groups.create("Settings", [alice.pnJid])
    await groups.update(detail.id, {
      subject: "Settings 2",
      description: "be kind",
      announce: true,
      locked: true,
      memberAddMode: "all",
      approvalMode: true,
      ephemeralSeconds: 86_400,
    })
    const after = await groups.detail(detail.id)
    expect(after).toMatchObject({ subject: "Settings 2", description: "be kind", announce: true, locked: true, memberAddMode: "all", approvalMode: true, ephemeralSeconds: 86_400 })
    await groups.update(detail.id, { description: "", announce: false, ephemeralSeconds: 0 })
    expect(await groups.detail(detail.id)).toMatchObject({ description: null, announce: false, ephemeralSeconds: 0 })
  })

  test("participants: added, already in (failed 409), promoted, removed, not in the group", async () => {
    const { detail } = await groups.create("Members", [alice.pnJid])
    expect(await groups.participants(detail.id, "add", [boss.pnJid, alice.pnJid])).toEqual([
      { jid: boss.pnJid, outcome: "done" },
      { jid: alice.pnJid, outcome: "failed", detail: "409" },
    ])
    expect(await groups.participants(detail.id, "promote", [boss.pnJid])).toEqual([{ jid: boss.pnJid, outcome: "done" }])
    expect(await groups.participants(detail.id, "remove", [boss.pnJid, absent.pnJid])).toEqual([
      { jid: boss.pnJid, outcome: "done" },
      { jid: absent.pnJid, outcome: "not_in_group" },
    ])
  })

  test("a plain member's admin actions are refused as not_admin; a group the phone is not in as not_found", async () => {
    const theirs = sim.group({ subject: "Theirs", members: [boss], admins: [boss] })
    expect(await refusedWith(groups.participants(theirs.jid, "remove", [boss.pnJid]))).toBe("not_admin")
    expect(await refusedWith(groups.update(theirs.jid, { announce: true }))).toBe("not_admin")
    expect(await refusedWith(groups.inviteCode(theirs.jid))).toBe("not_admin")
    const elsewhere = book.host({ subject: "Elsewhere", admin: boss, nowMs: Date.now() })
    expect(await refusedWith(groups.detail(elsewhere.jid))).toBe("not_found")
  })

  test("invite code, revoke, join (also where admins approve), an invalid code, and leave", async () => {
    const { detail } = await groups.create("Links", [alice.pnJid])
    const code = await groups.inviteCode(detail.id)
    expect(code).toBe(book.get(detail.id)!.code)
    const renewed = await groups.revokeInvite(detail.id)
    expect(renewed).not.toBe(code)
    const open = book.host({ subject: "Open", admin: boss, nowMs: Date.now() })
    expect(await groups.join(open.code)).toEqual({ joined: true, groupJid: open.jid })
    const strict = book.host({ subject: "Strict", admin: boss, approval: true, nowMs: Date.now() })
    expect(await groups.join(strict.code)).toEqual({ joined: false })
    expect(await refusedWith(groups.join(code))).toBe("invite_invalid")
    await groups.leave(open.jid)
    expect(open.seatOf(sim.primary(ME).account)).toBeUndefined()
    expect(await refusedWith(groups.detail(open.jid))).toBe("not_found")
  })

  test("approval: an admin's detail lists who waits, with both identities; approve lets them in, reject of one no longer waiting is not_in_group", async () => {
    const waiting = sim.contact({ phoneNumber: "+15550096666", name: "Waiting" })
    const { detail } = await groups.create("Approved", [alice.pnJid])
    await groups.update(detail.id, { approvalMode: true })
    book.get(detail.id)!.pending.push(waiting)
    expect((await groups.detail(detail.id)).pendingRequests).toEqual([{ jid: waiting.pnJid, phoneNumber: `+${waiting.phoneNumber}`, lid: waiting.lidJid }])
    expect(await groups.participants(detail.id, "approve", [waiting.pnJid])).toEqual([{ jid: waiting.pnJid, outcome: "done" }])
    expect(await groups.participants(detail.id, "reject", [waiting.pnJid])).toEqual([{ jid: waiting.pnJid, outcome: "not_in_group" }])
    expect((await groups.detail(detail.id)).participants.map((p) => p.phoneNumber)).toContain(`+${waiting.phoneNumber}`)
  })

  test("a failure that is not WhatsApp's answer (the socket is closed) goes on as it is, not as a refusal", async () => {
    const closed = baileysGroups(() => {
      throw new Error("not connected")
    })
    for (const request of [closed.detail("120363000000000009@g.us"), closed.leave("120363000000000009@g.us"), closed.join("x".repeat(22))]) {
      const err = await request.then(
        () => null,
        (e: unknown) => e,
      )
      expect(err).toBeInstanceOf(Error)
      expect(err).not.toBeInstanceOf(GroupRefusedError)
      expect((err as Error).message).toBe("not connected")
    }
  })
})
