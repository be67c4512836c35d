import { afterEach, describe, expect, test } from "bun:test"
import { GroupRefusedError } from "../../src/whatsapp/gateway"
import { detailFixture } from "../fakes/fake-groups"
import { createHarness, expectErrorEnvelope, type Harness } from "../helpers/harness"

/* The groups API with live keys against the fake gateway (docs/api.md § "Groups"): success, errors, security. */

let h: Harness
afterEach(() => h.close())

const GROUP = "120363111111111111@g.us"
const at = (id: string) => `/v1/groups/${encodeURIComponent(id)}`
const person = (e164: string) => ({ jid: `${e164.slice(1)}@s.whatsapp.net`, phoneNumber: e164, lid: null })

async function livePhone() {
  h = await createHarness()
  const t = await h.seedTenant({ env: "live" })
  await h.connectPhone(t.phone)
  const from = t.phone.phoneNumber
  const call = (method: string, path: string, body?: unknown) => h.request(method, path, { key: t.key, body })
  return { ...t, from, call, world: h.gateway.groupWorld }
}

describe("live groups: success", () => {
  test("a create asks WhatsApp with each number's JID; a privacy-refused add is sent WhatsApp's invite message and reads invited", async () => {
    const { from, call, world, phone } = await livePhone()
    h.gateway.numbers.set("+14155550100", null)
    world.nextOutcomes = (jids) => [
      { jid: jids[0]!, outcome: "done" },
      { jid: jids[1]!, outcome: "privacy_refused", invite: { code: "InviteFromWhatsApp01", expiresAtMs: 1_900_000_000_000 } },
    ]
    const res = await call("POST", "/v1/groups", { fromPhoneId: from, subject: "Shop", participants: ["+14155550199", "+14155550188", "+14155550100"] })
    expect(res.status).toBe(201)
    expect(res.body.data.results).toEqual([
      { participant: "+14155550199", result: "added" },
      { participant: "+14155550188", result: "invited" },
      { participant: "+14155550100", result: "not_on_whatsapp" },
    ])
    const calls = world.calls.filter((c) => c.phoneId === phone.id)
    expect(calls[0]).toEqual({ phoneId: phone.id, op: "create", args: ["Shop", ["14155550199@s.whatsapp.net", "14155550188@s.whatsapp.net"]] })
    expect(calls[1]).toEqual({
      phoneId: phone.id,
      op: "sendInvite",
      args: ["14155550188@s.whatsapp.net", { groupJid: "120363999999999999@g.us", subject: "Shop", code: "InviteFromWhatsApp01", expiresAtMs: 1_900_000_000_000 }],
    })
  })

  test("a create retried with its idempotency key answers the same group and results, replayed, and WhatsApp creates one group", async () => {
    const { from, call, world } = await livePhone()
    const body = { fromPhoneId: from, subject: "Once", participants: ["+14155550199"], idempotencyKey: "live-create-1" }
    const first = await call("POST", "/v1/groups", body)
    const again = await call("POST", "/v1/groups", body)
    expect(again.status).toBe(201)
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect(again.body.data).toEqual(first.body.data)
    expect(world.calls.filter((c) => c.op === "create")).toHaveLength(1)
    expect((await call("POST", "/v1/groups", { ...body, subject: "Other" })).status).toBe(400)
  })

  test("a group just created is listed at once (and so postable): the phone's cached group list is dropped, not served for 5 minutes", async () => {
    const { from, call, phone } = await livePhone()
    h.gateway.groups.set(phone.id, [])
    expect((await call("GET", `/v1/groups?fromPhoneId=${encodeURIComponent(from)}`)).body.data).toEqual([])
    const created = (await call("POST", "/v1/groups", { fromPhoneId: from, subject: "New", participants: ["+14155550199"] })).body.data.group
    h.gateway.groups.set(phone.id, [{ id: created.id, name: "New", announcementOnly: false, selfIsMember: true, selfIsAdmin: true }])
    expect((await call("GET", `/v1/groups?fromPhoneId=${encodeURIComponent(from)}`)).body.data.map((g: { id: string }) => g.id)).toEqual([created.id])
  })

  test("the detail writes participants as E.164 when WhatsApp told the number, else as …@lid, bounds and escapes WhatsApp's text, and links the picture", async () => {
    const { from, call, world } = await livePhone()
    world.details.set(
      GROUP,
      detailFixture(GROUP, {
        subject: "Team\u001b[2J",
        hasPicture: true,
        participants: [
          { ...person(from), isAdmin: true, isSuperAdmin: true },
          { jid: "123456789012345@lid", phoneNumber: null, lid: "123456789012345@lid", isAdmin: false, isSuperAdmin: false },
        ],
      }),
    )
    const res = await call("GET", `${at(GROUP)}?fromPhoneId=${encodeURIComponent(from)}`)
    expect(res.status).toBe(200)
    expect(res.body.data.name).toBe("Team\\x1b[2J")
    expect(res.body.data.participants.map((p: { id: string }) => p.id)).toEqual([from, "123456789012345@lid"])
    expect(res.body.data.pictureUrl).toBe(`/v1/groups/${encodeURIComponent(GROUP)}/picture?fromPhoneId=${encodeURIComponent(from)}`)
  })

  test("a join by link that waits for the admins answers 202 requested; one that joins answers the group", async () => {
    const { from, call, world } = await livePhone()
    const asked = await call("POST", "/v1/groups/join", { fromPhoneId: from, invite: "https://chat.whatsapp.com/AbCdEfGhIjKlMnOp" })
    expect(asked.status).toBe(202)
    expect(world.calls.at(-1)).toMatchObject({ op: "join", args: ["AbCdEfGhIjKlMnOp"] })
    world.joinOutcome = { joined: true, groupJid: GROUP }
    const joined = await call("POST", "/v1/groups/join", { fromPhoneId: from, invite: "AbCdEfGhIjKlMnOp" })
    expect(joined.status).toBe(200)
    expect(joined.body.data.id).toBe(GROUP)
  })
})

describe("live groups: a PATCH asks WhatsApp only for what changes", () => {
  test("fields that already have the value asked are not sent (WhatsApp would tell each as a group event); nothing new sends nothing", async () => {
    const { from, call, world, phone } = await livePhone()
    world.details.set(GROUP, detailFixture(GROUP, { subject: "Shop", description: "Open 9-5", announce: true }))
    const res = await call("PATCH", at(GROUP), { fromPhoneId: from, subject: "Shop", description: "Open 9-6", announce: true, locked: true })
    expect(res.status).toBe(200)
    const updates = () => world.calls.filter((c) => c.phoneId === phone.id && c.op === "update").map((c) => c.args)
    expect(updates()).toEqual([[GROUP, { description: "Open 9-6", locked: true }]])
    expect((await call("PATCH", at(GROUP), { fromPhoneId: from, subject: "Shop", announce: true })).status).toBe(200)
    expect(updates()).toHaveLength(1)
  })

  test("a PATCH that changes nothing still needs admin rights where WhatsApp would ask for them: 403 for a plain member", async () => {
    const { from, call, world } = await livePhone()
    const me = { ...person(from), isAdmin: false, isSuperAdmin: false }
    world.details.set(GROUP, detailFixture(GROUP, { announce: true, participants: [me] }))
    const res = await call("PATCH", at(GROUP), { fromPhoneId: from, announce: true })
    expect(expectErrorEnvelope(res, 403, "Forbidden")).toEqual([`Phone ${from} is not an admin of group ${GROUP}: this action needs admin rights`])
    world.details.set(GROUP, detailFixture(GROUP, { subject: "Shop", participants: [me] }))
    expect((await call("PATCH", at(GROUP), { fromPhoneId: from, subject: "Shop" })).status).toBe(200)
  })
})

describe("live groups: errors", () => {
  test("WhatsApp's not-authorized answer is 403 with the admin sentence when the metadata shows the phone in the group, 404 when not", async () => {
    const { from, call, world } = await livePhone()
    world.errors.set("update", new GroupRefusedError("not_admin", "401"))
    const res = await call("PATCH", at(GROUP), { fromPhoneId: from, announce: true })
    expect(expectErrorEnvelope(res, 403, "Forbidden")).toEqual([`Phone ${from} is not an admin of group ${GROUP}: this action needs admin rights`])
    world.errors.set("detail", new GroupRefusedError("not_found", "403"))
    expect((await call("PATCH", at(GROUP), { fromPhoneId: from, announce: true })).status).toBe(404)
  })

  test("a revoked or unknown invite is 404; a refusal wagate cannot name is 502 with WhatsApp's code, never a success", async () => {
    const { from, call, world } = await livePhone()
    world.errors.set("join", new GroupRefusedError("invite_invalid", "410"))
    expect(expectErrorEnvelope(await call("POST", "/v1/groups/join", { fromPhoneId: from, invite: "AbCdEfGhIjKl" }), 404, "Not Found")).toEqual([
      "The invite is not valid: it was revoked, or no group has it",
    ])
    world.errors.set("leave", new GroupRefusedError("refused", "500"))
    expect(expectErrorEnvelope(await call("POST", `${at(GROUP)}/leave`, { fromPhoneId: from }), 502, "Bad Gateway")).toEqual(["WhatsApp refused the group request (500)"])
    world.errors.set("inviteCode", new Error("timed out"))
    expect((await call("GET", `${at(GROUP)}/invite?fromPhoneId=${encodeURIComponent(from)}`)).status).toBe(502)
  })

  test("a participant WhatsApp answers with its own code is failed with that code; an invite that cannot be sent is failed, not invited", async () => {
    const { from, call, world } = await livePhone()
    world.nextOutcomes = (jids) => [
      { jid: jids[0]!, outcome: "failed", detail: "409" },
      { jid: jids[1]!, outcome: "privacy_refused", invite: { code: "InviteFromWhatsApp02", expiresAtMs: 1_900_000_000_000 } },
    ]
    world.errors.set("sendInvite", new Error("socket closed"))
    const res = await call("POST", `${at(GROUP)}/participants`, { fromPhoneId: from, action: "add", participants: ["+14155550199", "+14155550188"] })
    expect(res.body.data.results).toEqual([
      { participant: "+14155550199", result: "failed", errorCode: "409" },
      { participant: "+14155550188", result: "failed", errorCode: "invite_not_sent" },
    ])
  })

  test("a phone that is not connected is 400, and WhatsApp is not asked", async () => {
    h = await createHarness()
    const t = await h.seedTenant({ env: "live" })
    const res = await h.request("GET", `${at(GROUP)}?fromPhoneId=${encodeURIComponent(t.phone.phoneNumber)}`, { key: t.key })
    expect(res.status).toBe(400)
    expect(h.gateway.groupWorld.calls).toEqual([])
  })
})

describe("live groups: security", () => {
  test("a live key cannot act through another account's phone, and WhatsApp is not asked", async () => {
    const { from } = await livePhone()
    const other = await h.seedTenant({ env: "live", phoneNumber: "+14155550166" })
    const res = await h.request("POST", `${at(GROUP)}/leave`, { key: other.key, body: { fromPhoneId: from } })
    expect(res.status).toBe(404)
    expect(h.gateway.groupWorld.calls).toEqual([])
  })
})
