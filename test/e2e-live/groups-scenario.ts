import { describe, expect, test } from "bun:test"
import type { SimContact } from "../wa-sim"
import { groupBookOf, type AdminGroup } from "../wa-sim/group-admin"
import { liveScenarioWorld, type ScenarioRun } from "./live-scenario-world"

/*
 * Running groups (docs/api.md § "Groups") with wagate as a real process and real Baileys, through
 * the TLS front as in production, against the simulator's group administration
 * (test/wa-sim/README.md § "Group administration"): a create whose participants are added,
 * invited (privacy refused the add, and the person gets WhatsApp's group invite message with the
 * code WhatsApp handed back) or not on WhatsApp; changes WhatsApp really applies; an admin action
 * on a group where the phone is a plain member refused with 403; an invite link revoked; joins by
 * link, also where admins approve; leaving. The tests run in order on one simulator and one
 * wagate; groups-source.test.ts runs them against `bun src/main.ts serve`.
 */

const ME = "+15550081111"
const STEP_TIMEOUT_MS = 30_000

export function describeGroups(label: string, run: ScenarioRun): void {
  let alice: SimContact
  let shy: SimContact
  let absent: SimContact
  let boss: SimContact
  const made = { id: "" }
  const live = liveScenarioWorld(run, {
    keyName: "groups",
    scopes: ["groups:write", "groups:read", "messages:send"],
    setUp: ({ sim }) => {
      alice = sim.contact({ phoneNumber: "+15550082222", name: "Alice" })
      shy = sim.contact({ phoneNumber: "+15550083333", name: "Shy" })
      absent = sim.contact({ phoneNumber: "+15550084444", onWhatsApp: false })
      boss = sim.contact({ phoneNumber: "+15550085555", name: "Boss" })
      groupBookOf(sim.primary(ME).account).refuseAdds(shy)
    },
    pair: ME,
  })

  /** Calls the API and expects `status`, returning the envelope's data. */
  async function ok(method: string, path: string, body: unknown, status = 200): Promise<any> {
    const res = await live.api.call(method, path, body)
    expect({ path, status: res.status, body: res.status === status ? null : res.body }).toEqual({ path, status, body: null })
    return res.body?.data
  }

  /** The simulator's state of a group: what WhatsApp itself holds. */
  const onWhatsApp = (groupId: string): AdminGroup => groupBookOf(live.sim.primary(ME).account).get(groupId)!

  describe(`running groups against the WhatsApp simulator, over TLS, ${label}`, () => {
    test("create: Alice is added, Shy (privacy refuses adds) is invited and gets WhatsApp's group invite message, an absent number is not_on_whatsapp", async () => {
      const participants = [`+${alice.phoneNumber}`, `+${shy.phoneNumber}`, `+${absent.phoneNumber}`]
      const data = await ok("POST", "/groups", { fromPhoneId: ME, subject: "Customers", participants, description: "Orders and news" }, 201)
      made.id = data.group.id
      expect(made.id).toMatch(/^\d+@g\.us$/)
      expect(data.results).toEqual([
        { participant: `+${alice.phoneNumber}`, result: "added" },
        { participant: `+${shy.phoneNumber}`, result: "invited" },
        { participant: `+${absent.phoneNumber}`, result: "not_on_whatsapp" },
      ])
      const invite = (await live.sim.nextMessage(shy, { timeoutMs: 15_000 })).message?.groupInviteMessage
      const handedBack = onWhatsApp(made.id).addRequests.get(shy)!
      expect(invite).toMatchObject({ groupJid: made.id, groupName: "Customers", inviteCode: handedBack.code })
      expect(Number(invite?.inviteExpiration)).toBe(Number(handedBack.expiration))
      expect(onWhatsApp(made.id).seats.map((seat) => seat.who.pnJid)).toEqual([`${ME.slice(1)}@s.whatsapp.net`, alice.pnJid])
      expect(onWhatsApp(made.id).description?.body).toBe("Orders and news")
    }, STEP_TIMEOUT_MS)

    test("detail: participants as E.164 with their roles, and the settings WhatsApp reports", async () => {
      const detail = await ok("GET", `/groups/${made.id}?fromPhoneId=${encodeURIComponent(ME)}`, undefined)
      expect(detail).toMatchObject({ id: made.id, name: "Customers", description: "Orders and news" })
      expect(detail.settings).toEqual({ announce: false, locked: false, memberAddMode: "admins", approvalMode: false, ephemeralSeconds: 0 })
      const byId = Object.fromEntries((detail.participants as { id: string; isAdmin: boolean; isSuperAdmin: boolean }[]).map((p) => [p.id, [p.isAdmin, p.isSuperAdmin]]))
      expect(byId).toEqual({ [ME]: [true, true], [`+${alice.phoneNumber}`]: [false, false] })
    }, STEP_TIMEOUT_MS)

    test("PATCH: the subject, announce-only, member add mode and a 7-day timer are applied on WhatsApp and read back", async () => {
      const patch = { fromPhoneId: ME, subject: "Customers (EU)", announce: true, memberAddMode: "all", ephemeralSeconds: 604_800 }
      const detail = await ok("PATCH", `/groups/${made.id}`, patch)
      expect(detail).toMatchObject({ name: "Customers (EU)", settings: { announce: true, memberAddMode: "all", ephemeralSeconds: 604_800 } })
      const held = onWhatsApp(made.id)
      expect([held.subject, held.announce, held.memberAddMode, held.ephemeralSeconds]).toEqual(["Customers (EU)", true, "all_member_add", 604_800])
    }, STEP_TIMEOUT_MS)

    test("participants: promote Alice; then remove one who is not in the group is not_in_group", async () => {
      expect(await ok("POST", `/groups/${made.id}/participants`, { fromPhoneId: ME, action: "promote", participants: [`+${alice.phoneNumber}`] })).toEqual({
        results: [{ participant: `+${alice.phoneNumber}`, result: "promoted" }],
      })
      expect(onWhatsApp(made.id).seatOf(alice)?.rank).toBe("admin")
      const removed = await ok("POST", `/groups/${made.id}/participants`, { fromPhoneId: ME, action: "remove", participants: [`+${boss.phoneNumber}`] })
      expect(removed).toEqual({ results: [{ participant: `+${boss.phoneNumber}`, result: "not_in_group" }] })
    }, STEP_TIMEOUT_MS)

    test("a group where the phone is a plain member: admin actions answer 403 saying so, and WhatsApp's group is unchanged", async () => {
      const theirs = live.sim.group({ subject: "Theirs", members: [boss, alice], admins: [boss] })
      const res = await live.api.call("POST", `/groups/${theirs.jid}/participants`, { fromPhoneId: ME, action: "remove", participants: [`+${alice.phoneNumber}`] })
      expect(res.status).toBe(403)
      expect(res.body.message).toEqual([`Phone ${ME} is not an admin of group ${theirs.jid}: this action needs admin rights`])
      const settings = await live.api.call("PATCH", `/groups/${theirs.jid}`, { fromPhoneId: ME, locked: true })
      expect(settings.status).toBe(403)
      const invite = await live.api.call("GET", `/groups/${theirs.jid}/invite?fromPhoneId=${encodeURIComponent(ME)}`)
      expect(invite.status).toBe(403)
      expect(onWhatsApp(theirs.jid).seats.map((seat) => seat.who)).toContain(alice)
      expect(onWhatsApp(theirs.jid).locked).toBe(false)
    }, STEP_TIMEOUT_MS)

    test("invite: the link WhatsApp holds; DELETE revokes it, the old code stops working and the new one is returned", async () => {
      const first = await ok("GET", `/groups/${made.id}/invite?fromPhoneId=${encodeURIComponent(ME)}`, undefined)
      expect(first).toEqual({ code: onWhatsApp(made.id).code, url: `https://chat.whatsapp.com/${onWhatsApp(made.id).code}` })
      const renewed = await ok("DELETE", `/groups/${made.id}/invite`, { fromPhoneId: ME })
      expect(renewed.code).not.toBe(first.code)
      expect(renewed).toEqual({ code: onWhatsApp(made.id).code, url: `https://chat.whatsapp.com/${renewed.code}` })
      expect(onWhatsApp(made.id).revokedCodes.has(first.code)).toBe(true)
    }, STEP_TIMEOUT_MS)

    test("join: by a chat.whatsapp.com link (GroupDetail); where admins approve, 202 requested; a revoked link is refused", async () => {
      const book = groupBookOf(live.sim.primary(ME).account)
      const open = book.host({ subject: "Open club", admin: boss, members: [alice], nowMs: Date.now() })
      const joined = await ok("POST", "/groups/join", { fromPhoneId: ME, invite: `https://chat.whatsapp.com/${open.code}` })
      expect(joined).toMatchObject({ id: open.jid, name: "Open club" })
      expect(open.seatOf(live.sim.primary(ME).account)?.rank).toBe("member")
      const strict = book.host({ subject: "Approved only", admin: boss, approval: true, nowMs: Date.now() })
      expect(await ok("POST", "/groups/join", { fromPhoneId: ME, invite: strict.code }, 202)).toEqual({ status: "requested" })
      expect(strict.mePending).toBe(true)
      const revoked = open.code
      open.revokedCodes.add(revoked)
      open.code = "R".repeat(22)
      const refused = await live.api.call("POST", "/groups/join", { fromPhoneId: ME, invite: revoked })
      expect(refused.status).toBe(404)
    }, STEP_TIMEOUT_MS)

    test("leave: 204, WhatsApp no longer counts the phone in, and the group's detail is then 404", async () => {
      const res = await live.api.call("POST", `/groups/${made.id}/leave`, { fromPhoneId: ME })
      expect(res.status).toBe(204)
      expect(onWhatsApp(made.id).seatOf(live.sim.primary(ME).account)).toBeUndefined()
      const after = await live.api.call("GET", `/groups/${made.id}?fromPhoneId=${encodeURIComponent(ME)}`)
      expect(after.status).toBe(404)
    }, STEP_TIMEOUT_MS)
  })
}
