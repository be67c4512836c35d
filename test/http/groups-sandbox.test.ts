import { afterEach, describe, expect, test } from "bun:test"
import { createEndpoint } from "../../src/domain/webhook-endpoints"
import { createHarness, expectErrorEnvelope, type Harness } from "../helpers/harness"
import { eventsOf } from "../live/live-helpers"

/* The groups API with test keys (docs/api.md § "Groups"): sandbox groups kept in the store. Success, errors, security. */

let h: Harness
afterEach(() => h.close())

const TEAM = "120363000000000001@g.us"
const ANNOUNCEMENTS = "120363000000000002@g.us"
const at = (id: string) => `/v1/groups/${encodeURIComponent(id)}`

async function tenant() {
  h = await createHarness()
  const t = await h.seedTenant()
  const from = t.phone.phoneNumber
  const call = (method: string, path: string, body?: unknown) => h.request(method, path, { key: t.key, body })
  return { ...t, from, call }
}

describe("sandbox groups: success", () => {
  test("a create answers 201 with the group and one result per participant: the magic numbers are not_on_whatsapp and invited", async () => {
    const { from, call } = await tenant()
    const res = await call("POST", "/v1/groups", { fromPhoneId: from, subject: "Volunteers", participants: ["+14155550199", "+12025550101", "+12025550106"] })
    expect(res.status).toBe(201)
    const { group, results } = res.body.data
    expect(group.id).toMatch(/^120363\d{12}@g\.us$/)
    expect(results).toEqual([
      { participant: "+14155550199", result: "added" },
      { participant: "+12025550101", result: "not_on_whatsapp" },
      { participant: "+12025550106", result: "invited" },
    ])
    expect(group.participants.map((p: { id: string; isSuperAdmin: boolean }) => [p.id, p.isSuperAdmin])).toEqual([
      [from, true],
      ["+14155550199", false],
    ])
    expect(group.settings).toEqual({ announce: false, locked: false, memberAddMode: "admins", approvalMode: false, ephemeralSeconds: 0 })
    const listed = await call("GET", `/v1/groups?fromPhoneId=${encodeURIComponent(from)}`)
    expect(listed.body.data.map((g: { id: string }) => g.id)).toEqual([TEAM, ANNOUNCEMENTS, group.id])
    const detail = await call("GET", `${at(group.id)}?fromPhoneId=${encodeURIComponent(from)}`)
    expect(detail.body.data).toEqual(group)
  })

  test("a create with the same idempotency key answers the same group, replayed, and creates no second one", async () => {
    const { from, call } = await tenant()
    const body = { fromPhoneId: from, subject: "Once", participants: ["+14155550199"], idempotencyKey: "create-1" }
    const first = await call("POST", "/v1/groups", body)
    const again = await call("POST", "/v1/groups", body)
    expect(again.status).toBe(201)
    expect(again.headers.get("idempotent-replayed")).toBe("true")
    expect(again.body.data.group.id).toBe(first.body.data.group.id)
    expect(expectErrorEnvelope(await call("POST", "/v1/groups", { ...body, subject: "Other" }), 400, "Bad Request")).toEqual([
      "idempotencyKey was already used with different parameters",
    ])
  })

  test("settings, participants, invite revoke, join and leave apply to the stored group and emit the group events", async () => {
    const { from, call, phone, account } = await tenant()
    await createEndpoint(h.services.ctx, { accountId: account.id, env: "test", url: "http://127.0.0.1:9/unused", events: ["*"] })
    const group = (await call("POST", "/v1/groups", { fromPhoneId: from, subject: "Club", participants: ["+14155550199"] })).body.data.group
    const patched = await call("PATCH", at(group.id), { fromPhoneId: from, subject: "Book club", announce: true, ephemeralSeconds: 604800, memberAddMode: "all" })
    expect(patched.status).toBe(200)
    expect(patched.body.data.name).toBe("Book club")
    expect(patched.body.data.settings).toMatchObject({ announce: true, ephemeralSeconds: 604800, memberAddMode: "all" })
    const promoted = await call("POST", `${at(group.id)}/participants`, { fromPhoneId: from, action: "promote", participants: ["+14155550199", "+14155550177"] })
    expect(promoted.body.data.results).toEqual([
      { participant: "+14155550199", result: "promoted" },
      { participant: "+14155550177", result: "not_in_group" },
    ])
    const invite = (await call("GET", `${at(group.id)}/invite?fromPhoneId=${encodeURIComponent(from)}`)).body.data
    expect(invite.url).toBe(`https://chat.whatsapp.com/${invite.code}`)
    const revoked = (await call("DELETE", `${at(group.id)}/invite`, { fromPhoneId: from })).body.data
    expect(revoked.code).not.toBe(invite.code)
    expect((await call("POST", `${at(group.id)}/leave`, { fromPhoneId: from })).status).toBe(204)
    expect((await call("GET", `${at(group.id)}?fromPhoneId=${encodeURIComponent(from)}`)).status).toBe(404)
    // The new link brings the phone back; the old one no longer works.
    expect((await call("POST", "/v1/groups/join", { fromPhoneId: from, invite: invite.url })).status).toBe(404)
    const joined = await call("POST", "/v1/groups/join", { fromPhoneId: from, invite: revoked.url })
    expect(joined.status).toBe(200)
    expect(joined.body.data.id).toBe(group.id)
    const events = eventsOf(h).filter((e) => e.event.startsWith("group."))
    expect(events.map((e) => [e.event, e.data.action ?? null])).toEqual([
      ["group.joined", null],
      ["group.participants", "added"],
      ["group.updated", null],
      ["group.updated", null],
      ["group.updated", null],
      ["group.updated", null],
      ["group.participants", "promoted"],
      ["group.participants", "left"],
      ["group.joined", null],
      ["group.participants", "added"],
    ])
    // One group.updated per field the PATCH changed, as WhatsApp tells them live.
    expect(events.slice(2, 6).map((e) => e.data)).toEqual(
      [{ subject: "Book club" }, { announce: true }, { memberAddMode: "all" }, { ephemeralSeconds: 604800 }].map((changes) => ({ phoneId: phone.id, groupId: group.id, changes, by: from, at: expect.any(String) })),
    )
  })

  test("a join to a group whose admins approve joins answers 202 requested, and the admin's approve adds the phone", async () => {
    h = await createHarness()
    const admin = await h.seedTenant()
    const other = await h.seedPhone(admin.account.id, "+14155550188")
    const call = (method: string, path: string, body?: unknown) => h.request(method, path, { key: admin.key, body })
    const group = (await call("POST", "/v1/groups", { fromPhoneId: admin.phone.phoneNumber, subject: "Gated", participants: ["+14155550199"] })).body.data.group
    await call("PATCH", at(group.id), { fromPhoneId: admin.phone.phoneNumber, approvalMode: true })
    const code = (await call("GET", `${at(group.id)}/invite?fromPhoneId=${encodeURIComponent(admin.phone.phoneNumber)}`)).body.data.code
    const asked = await call("POST", "/v1/groups/join", { fromPhoneId: other.phoneNumber, invite: code })
    expect(asked.status).toBe(202)
    expect(asked.body.data).toEqual({ status: "requested" })
    const detail = (await call("GET", `${at(group.id)}?fromPhoneId=${encodeURIComponent(admin.phone.phoneNumber)}`)).body.data
    expect(detail.pendingRequests).toEqual([{ id: other.phoneNumber, phoneNumber: other.phoneNumber, lid: null }])
    const approved = await call("POST", `${at(group.id)}/participants`, { fromPhoneId: admin.phone.phoneNumber, action: "approve", participants: [other.phoneNumber] })
    expect(approved.body.data.results).toEqual([{ participant: other.phoneNumber, result: "approved" }])
    expect((await call("GET", `${at(group.id)}?fromPhoneId=${encodeURIComponent(other.phoneNumber)}`)).status).toBe(200)
  })

  test("the seed groups' documented invite codes work until revoked", async () => {
    const { from, call } = await tenant()
    const invite = (await call("GET", `${at(TEAM)}/invite?fromPhoneId=${encodeURIComponent(from)}`)).body.data
    expect(invite).toEqual({ code: "Sandbox0001Invite0000", url: "https://chat.whatsapp.com/Sandbox0001Invite0000" })
    await call("POST", `${at(TEAM)}/leave`, { fromPhoneId: from })
    const back = await call("POST", "/v1/groups/join", { fromPhoneId: from, invite: invite.url })
    expect(back.status).toBe(200)
    expect(back.body.data.id).toBe(TEAM)
  })

  test("a text sent to a group the sandbox created is sent, not refused as a group the phone cannot post to", async () => {
    const { from, call } = await tenant()
    const group = (await call("POST", "/v1/groups", { fromPhoneId: from, subject: "Posts", participants: ["+14155550199"] })).body.data.group
    const sent = await call("POST", "/v1/messages/send", { fromPhoneId: from, to: group.id, content: "hello" })
    expect(sent.body.data.status).toBe("sent")
  })
})

describe("sandbox groups: errors", () => {
  test("bad input gets one readable message per problem", async () => {
    const { from, call } = await tenant()
    const create = (body: Record<string, unknown>) => call("POST", "/v1/groups", { fromPhoneId: from, subject: "S", participants: ["+14155550199"], ...body })
    expect(expectErrorEnvelope(await create({ subject: "x".repeat(101) }), 400, "Bad Request")).toEqual(["subject must be 1 to 100 characters"])
    expect(expectErrorEnvelope(await create({ subject: "   " }), 400, "Bad Request")).toEqual(["subject must be 1 to 100 characters"])
    const many = Array.from({ length: 257 }, (_, i) => `+1415555${String(i).padStart(4, "0")}`)
    expect(expectErrorEnvelope(await create({ participants: many }), 400, "Bad Request")).toEqual(["participants must list 1 to 256 numbers (E.164) or …@lid ids"])
    const fiftyOne = many.slice(0, 51)
    const action = await call("POST", `${at(TEAM)}/participants`, { fromPhoneId: from, action: "add", participants: fiftyOne })
    expect(expectErrorEnvelope(action, 400, "Bad Request")).toEqual(["participants must list 1 to 50 numbers (E.164) or …@lid ids"])
    const join = await call("POST", "/v1/groups/join", { fromPhoneId: from, invite: "https://example.com/AbCdEfGhIjKl" })
    expect(expectErrorEnvelope(join, 400, "Bad Request")).toEqual(["invite must be an invite code or a https://chat.whatsapp.com/… link"])
    const timer = await call("PATCH", at(TEAM), { fromPhoneId: from, ephemeralSeconds: 3600 })
    expect(expectErrorEnvelope(timer, 400, "Bad Request")).toEqual(["ephemeralSeconds must be one WhatsApp offers: 0, 86400, 604800, 7776000"])
    expect(expectErrorEnvelope(await call("PATCH", at(TEAM), { fromPhoneId: from }), 400, "Bad Request")).toHaveLength(1)
    expect(expectErrorEnvelope(await call("GET", `/v1/groups/nogroup?fromPhoneId=${encodeURIComponent(from)}`), 400, "Bad Request")).toEqual([
      "groupId must be a group id (…@g.us), as GET /v1/groups lists them",
    ])
  })

  test("an admin action in a group where the phone is a plain member is 403 with that sentence; a group it is not in is 404", async () => {
    const { from, call, account } = await tenant()
    const member = (await h.seedPhone(account.id, "+14155550188")).phoneNumber
    const group = (await call("POST", "/v1/groups", { fromPhoneId: from, subject: "Run by one", participants: [member] })).body.data.group
    const res = await call("PATCH", at(group.id), { fromPhoneId: member, announce: true })
    expect(expectErrorEnvelope(res, 403, "Forbidden")).toEqual([`Phone ${member} is not an admin of group ${group.id}: this action needs admin rights`])
    const remove = await call("POST", `${at(group.id)}/participants`, { fromPhoneId: member, action: "remove", participants: [from] })
    expect(remove.status).toBe(403)
    expect((await call("GET", `${at(group.id)}/invite?fromPhoneId=${encodeURIComponent(member)}`)).status).toBe(403)
    // A plain member may still change the subject of a group that is not locked, as in WhatsApp.
    expect((await call("PATCH", at(group.id), { fromPhoneId: member, subject: "Renamed" })).status).toBe(200)
    const unknown = await call("GET", `${at("120363000000000009@g.us")}?fromPhoneId=${encodeURIComponent(from)}`)
    expect(expectErrorEnvelope(unknown, 404, "Not Found")).toEqual([`Phone ${from} is not in group 120363000000000009@g.us`])
  })
})

describe("sandbox groups: security", () => {
  test("another account's sandbox group is 404 to it, and its key cannot join by the group's invite", async () => {
    const { from, call } = await tenant()
    const group = (await call("POST", "/v1/groups", { fromPhoneId: from, subject: "Private", participants: ["+14155550199"] })).body.data.group
    const code = (await call("GET", `${at(group.id)}/invite?fromPhoneId=${encodeURIComponent(from)}`)).body.data.code
    const stranger = await h.seedTenant({ phoneNumber: "+14155550166" })
    const as = (method: string, path: string, body?: unknown) => h.request(method, path, { key: stranger.key, body })
    expect((await as("GET", `${at(group.id)}?fromPhoneId=${encodeURIComponent(stranger.phone.phoneNumber)}`)).status).toBe(404)
    expect((await as("POST", "/v1/groups/join", { fromPhoneId: stranger.phone.phoneNumber, invite: code })).status).toBe(404)
    // Its own phone id is the only one it may name: the owner's phone is 404 to it.
    expect((await as("GET", `${at(group.id)}?fromPhoneId=${encodeURIComponent(from)}`)).status).toBe(404)
  })

  test("a key with groups:read only reads a group and cannot change it", async () => {
    const { from, account } = await tenant()
    const readOnly = await h.seedKey(account.id, { scopes: ["groups:read"] })
    expect((await h.request("GET", `${at(TEAM)}?fromPhoneId=${encodeURIComponent(from)}`, { key: readOnly })).status).toBe(200)
    const res = await h.request("PATCH", at(TEAM), { key: readOnly, body: { fromPhoneId: from, subject: "x" } })
    expect(res.status).toBe(403)
  })
})
