import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import type { BinaryNode } from "@whiskeysockets/baileys"
import { pairWithQr, type TestClient } from "./baileys-client"
import { groupBookOf } from "./group-admin"
import { startWaSim, type WaSim } from "./sim"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Runs the simulator: see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * The simulator's group administration (README.md § "Group administration") against real,
 * unmodified Baileys 7 with no wagate involved: what Baileys' own group functions get back.
 */

const ME = "+15550071111"

let stops: (() => unknown)[] = []
afterEach(async () => {
  for (const stop of stops.reverse()) await stop()
  stops = []
}, SLOW_HOOK_TIMEOUT_MS)

async function world(): Promise<{ sim: WaSim; client: TestClient }> {
  const sim = await startWaSim({ advSecretRotation: false })
  stops.push(() => sim.stop())
  const { first, client } = await pairWithQr(sim, ME)
  stops.push(() => first.end(), () => client.end())
  return { sim, client }
}

/** The IQ error code a rejected Baileys query carries. */
async function refusal(query: Promise<unknown>): Promise<number | undefined> {
  try {
    await query
  } catch (err) {
    return (err as { data?: number }).data
  }
  return undefined
}

const groupSet = (client: TestClient, to: string, content: BinaryNode[]) =>
  client.sock.query({ tag: "iq", attrs: { type: "set", xmlns: "w:g2", to }, content })

describe("wa-sim group administration: create and settings", () => {
  test("a create answers the group with the phone as superadmin, added members, and per-participant errors (403 + add_request for privacy, 404 not on WhatsApp)", async () => {
    const { sim, client } = await world()
    const alice = sim.contact({ phoneNumber: "+15550072222" })
    const shy = sim.contact({ phoneNumber: "+15550072223" })
    const absent = sim.contact({ phoneNumber: "+15550072224", onWhatsApp: false })
    groupBookOf(sim.primary(ME).account).refuseAdds(shy)
    const answer = await groupSet(client, "@g.us", [
      { tag: "create", attrs: { subject: "Club", key: "k1" }, content: [alice, shy, absent].map((c) => ({ tag: "participant", attrs: { jid: c.pnJid } })) },
    ])
    const group = (answer.content as BinaryNode[])[0]!
    const participants = (group.content as BinaryNode[]).filter((n) => n.tag === "participant")
    expect(participants.map((p) => [p.attrs.jid, p.attrs.type ?? p.attrs.error ?? "member"])).toEqual([
      ["15550071111@s.whatsapp.net", "superadmin"],
      [alice.pnJid, "member"],
      [shy.pnJid, "403"],
      [absent.pnJid, "404"],
    ])
    const addRequest = (participants[2]!.content as BinaryNode[])[0]!
    expect(addRequest.tag).toBe("add_request")
    expect(addRequest.attrs.code).toMatch(/^[A-Za-z0-9]{22}$/)
    expect(groupBookOf(sim.primary(ME).account).get(group.attrs.id!)!.addRequests.get(shy)).toEqual({ code: addRequest.attrs.code!, expiration: addRequest.attrs.expiration! })
    expect(Number(addRequest.attrs.expiration)).toBeGreaterThan(Date.now() / 1000)
    const meta = await client.sock.groupMetadata(`${group.attrs.id}@g.us`)
    expect(meta).toMatchObject({ subject: "Club", size: 2, announce: false, restrict: false, joinApprovalMode: false, memberAddMode: false })
  })

  test("subject, description, announce, locked, member add mode, approval and ephemeral read back through Baileys' groupMetadata", async () => {
    const { sim, client } = await world()
    const alice = sim.contact({ phoneNumber: "+15550072232" })
    const made = await client.sock.groupCreate("Before", [alice.pnJid])
    await client.sock.groupUpdateSubject(made.id, "After")
    await client.sock.groupUpdateDescription(made.id, "Rules: be kind")
    await client.sock.groupSettingUpdate(made.id, "announcement")
    await client.sock.groupSettingUpdate(made.id, "locked")
    await client.sock.groupMemberAddMode(made.id, "all_member_add")
    await client.sock.groupJoinApprovalMode(made.id, "on")
    await client.sock.groupToggleEphemeral(made.id, 604_800)
    const meta = await client.sock.groupMetadata(made.id)
    expect(meta).toMatchObject({ subject: "After", desc: "Rules: be kind", announce: true, restrict: true, memberAddMode: true, joinApprovalMode: true, ephemeralDuration: 604_800 })
    await client.sock.groupToggleEphemeral(made.id, 0)
    await client.sock.groupUpdateDescription(made.id, undefined)
    await client.sock.groupSettingUpdate(made.id, "not_announcement")
    expect(await client.sock.groupMetadata(made.id)).toMatchObject({ desc: undefined, announce: false, ephemeralDuration: undefined })
  })
})

describe("wa-sim group administration: who may do what", () => {
  test("a plain member's admin action (or info edit in a locked group) is refused 401 not-authorized; a group the phone is not in answers 403; an unknown one 404", async () => {
    const { sim, client } = await world()
    const boss = sim.contact({ phoneNumber: "+15550072242" })
    const declared = sim.group({ subject: "Theirs", members: [boss], admins: [boss] })
    // Unlocked, every member may edit the group's info; locked, only admins.
    expect(await refusal(client.sock.groupUpdateSubject(declared.jid, "Anyone may"))).toBeUndefined()
    groupBookOf(sim.primary(ME).account).get(declared.id)!.locked = true
    expect(await refusal(client.sock.groupUpdateSubject(declared.jid, "Mine now"))).toBe(401)
    expect(await refusal(client.sock.groupSettingUpdate(declared.jid, "announcement"))).toBe(401)
    expect(await refusal(client.sock.groupInviteCode(declared.jid))).toBe(401)
    expect(await refusal(client.sock.groupParticipantsUpdate(declared.jid, [boss.pnJid], "remove"))).toBe(401)
    const hosted = groupBookOf(sim.primary(ME).account).host({ subject: "Elsewhere", admin: boss, nowMs: Date.now() })
    expect(await refusal(client.sock.groupMetadata(hosted.jid))).toBe(403)
    expect(await refusal(client.sock.groupMetadata("120363999999999999@g.us"))).toBe(404)
  })

  test("add, promote, demote and remove answer per participant (409 already in, 404 not in the group), and the metadata follows", async () => {
    const { sim, client } = await world()
    const alice = sim.contact({ phoneNumber: "+15550072252" })
    const bob = sim.contact({ phoneNumber: "+15550072253" })
    const made = await client.sock.groupCreate("Team", [alice.pnJid])
    expect(await client.sock.groupParticipantsUpdate(made.id, [bob.pnJid, alice.pnJid], "add")).toMatchObject([
      { jid: bob.pnJid, status: "200" },
      { jid: alice.pnJid, status: "409" },
    ])
    expect(await client.sock.groupParticipantsUpdate(made.id, [bob.pnJid], "promote")).toMatchObject([{ status: "200" }])
    expect((await client.sock.groupMetadata(made.id)).participants.find((p) => p.id === bob.pnJid)?.admin).toBe("admin")
    await client.sock.groupParticipantsUpdate(made.id, [bob.pnJid], "demote")
    expect(await client.sock.groupParticipantsUpdate(made.id, [bob.pnJid, "15550079999@s.whatsapp.net"], "remove")).toMatchObject([
      { status: "200" },
      { status: "404" },
    ])
    expect((await client.sock.groupMetadata(made.id)).participants.map((p) => p.id)).toEqual(["15550071111@s.whatsapp.net", alice.pnJid])
  })
})

describe("wa-sim group administration: invites, joins, requests and leaving", () => {
  test("an invite code revoked stops working (410); the new one joins; an unknown one is 406", async () => {
    const { sim, client } = await world()
    const boss = sim.contact({ phoneNumber: "+15550072262" })
    const made = await client.sock.groupCreate("Links", [boss.pnJid])
    const first = await client.sock.groupInviteCode(made.id)
    const second = await client.sock.groupRevokeInvite(made.id)
    expect(second).not.toBe(first)
    const hosted = groupBookOf(sim.primary(ME).account).host({ subject: "Open club", admin: boss, nowMs: Date.now() })
    expect(await refusal(client.sock.groupAcceptInvite("x".repeat(22)))).toBe(406)
    expect(await client.sock.groupAcceptInvite(hosted.code)).toBe(hosted.jid)
    expect((await client.sock.groupMetadata(hosted.jid)).participants.map((p) => p.id)).toContain("15550071111@s.whatsapp.net")
    const old = hosted.code
    hosted.revokedCodes.add(old)
    hosted.code = "y".repeat(22)
    expect(await refusal(client.sock.groupAcceptInvite(old))).toBe(410)
  })

  test("a join where admins approve answers membership_approval_request; approve and reject act on waiting contacts", async () => {
    const { sim, client } = await world()
    const boss = sim.contact({ phoneNumber: "+15550072272" })
    const waiting = sim.contact({ phoneNumber: "+15550072273" })
    const book = groupBookOf(sim.primary(ME).account)
    const hosted = book.host({ subject: "Approved only", admin: boss, approval: true, nowMs: Date.now() })
    const answer = await groupSet(client, "@g.us", [{ tag: "invite", attrs: { code: hosted.code } }])
    expect((answer.content as BinaryNode[])[0]).toMatchObject({ tag: "membership_approval_request", attrs: { jid: hosted.jid } })
    expect(hosted.mePending).toBe(true)
    const made = await client.sock.groupCreate("Mine", [boss.pnJid])
    book.get(made.id)!.pending.push(waiting)
    expect(await client.sock.groupRequestParticipantsList(made.id)).toMatchObject([{ jid: waiting.pnJid }])
    expect(await client.sock.groupRequestParticipantsUpdate(made.id, [waiting.pnJid], "approve")).toEqual([{ status: "200", jid: waiting.pnJid }])
    expect(await client.sock.groupRequestParticipantsUpdate(made.id, [waiting.pnJid], "reject")).toEqual([{ status: "404", jid: waiting.pnJid }])
    expect((await client.sock.groupMetadata(made.id)).participants.map((p) => p.id)).toContain(waiting.pnJid)
  })

  test("leaving takes the phone out: the metadata query answers 403 and the participating list drops the group", async () => {
    const { sim, client } = await world()
    const alice = sim.contact({ phoneNumber: "+15550072282" })
    const made = await client.sock.groupCreate("Bye", [alice.pnJid])
    expect(Object.keys(await client.sock.groupFetchAllParticipating())).toContain(made.id)
    await client.sock.groupLeave(made.id)
    expect(await refusal(client.sock.groupMetadata(made.id))).toBe(403)
    expect(Object.keys(await client.sock.groupFetchAllParticipating())).not.toContain(made.id)
  })
})
