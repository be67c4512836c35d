import { afterEach, describe, expect, test } from "bun:test"
import { createEndpoint } from "../../src/domain/webhook-endpoints"
import { createHarness, type Harness } from "../helpers/harness"
import { PictureFetch } from "../helpers/picture-fetch"
import { bandedPicture } from "../helpers/pictures"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { eventsOf } from "../live/live-helpers"

/*
 * The group events a test key's own group changes emit (docs/webhooks.md § "Group events"): the
 * same events, in the same order, as the live changes WhatsApp tells the phone that made them
 * (test/e2e-live/group-echo-scenario.ts), each once, made by the phone.
 */

let h: Harness
let pictures: PictureFetch
afterEach(() => {
  h.close()
  pictures.close()
})

const PNG_URL = "https://images.example.com/club.png"
const ALICE = "+14155550199"
const BOB = "+14155550177"

async function tenant() {
  pictures = new PictureFetch()
  h = await createHarness({ fetchMedia: pictures.fetch })
  const t = await h.seedTenant()
  pictures.answers.set(PNG_URL, { kind: "image", bytes: await bandedPicture("png", 400, 300) })
  await createEndpoint(h.services.ctx, { accountId: t.account.id, env: "test", url: "http://127.0.0.1:9/unused", events: ["*"] })
  const from = t.phone.phoneNumber
  const call = async (method: string, path: string, body?: unknown, status = 200) => {
    const res = await h.request(method, `/v1${path}`, { key: t.key, body })
    expect({ path, status: res.status }).toEqual({ path, status })
    return res.body?.data
  }
  /** The group events recorded since the last look, as `[event, data without phoneId, groupId and at]`. */
  let seen = 0
  const newEvents = () => {
    const all = eventsOf(h).filter((e) => e.event.startsWith("group."))
    const fresh = all.slice(seen)
    seen = all.length
    for (const e of fresh) expect(e.data).toMatchObject({ phoneId: t.phone.id, by: from, at: expect.any(String) })
    return fresh.map((e) => {
      const { phoneId: _p, groupId: _g, at: _a, by: _b, ...rest } = e.data
      return [e.event, rest]
    })
  }
  return { from, call, newEvents }
}

describe("sandbox group events for the phone's own changes", () => {
  test("a create with a description: group.joined, the members it added, then the description, each once", async () => {
    const { from, call, newEvents } = await tenant()
    await call("POST", "/groups", { fromPhoneId: from, subject: "Club", participants: [ALICE, "+12025550106"], description: "Weekly runs" }, 201)
    expect(newEvents()).toEqual([
      ["group.joined", { subject: "Club" }],
      ["group.participants", { action: "added", participants: [ALICE] }],
      ["group.updated", { changes: { description: "Weekly runs" } }],
    ])
  })

  test("a PATCH emits one group.updated per field it changes, and none for a field that already had its value", async () => {
    const { from, call, newEvents } = await tenant()
    const group = (await call("POST", "/groups", { fromPhoneId: from, subject: "Club", participants: [ALICE] }, 201)).group
    newEvents()
    await call("PATCH", `/groups/${group.id}`, { fromPhoneId: from, subject: "Club", announce: true, locked: true, approvalMode: true, ephemeralSeconds: 86_400 })
    expect(newEvents()).toEqual([
      ["group.updated", { changes: { announce: true } }],
      ["group.updated", { changes: { locked: true } }],
      ["group.updated", { changes: { approvalMode: true } }],
      ["group.updated", { changes: { ephemeralSeconds: 86_400 } }],
    ])
    await call("PATCH", `/groups/${group.id}`, { fromPhoneId: from, announce: true })
    expect(newEvents()).toEqual([])
  })

  test("participant actions, the picture and a leave each emit their event once; a reject emits none", async () => {
    const { from, call, newEvents } = await tenant()
    const group = (await call("POST", "/groups", { fromPhoneId: from, subject: "Club", participants: [ALICE] }, 201)).group
    newEvents()
    const act = (action: string, participants: string[]) => call("POST", `/groups/${group.id}/participants`, { fromPhoneId: from, action, participants })
    await act("add", [BOB, "+12025550101"])
    await act("promote", [BOB])
    await act("demote", [BOB])
    await act("remove", [BOB])
    await call("PUT", `/groups/${group.id}/picture`, { fromPhoneId: from, mediaUrl: PNG_URL })
    await call("DELETE", `/groups/${group.id}/picture`, { fromPhoneId: from })
    await call("POST", `/groups/${group.id}/leave`, { fromPhoneId: from }, 204)
    expect(newEvents()).toEqual([
      ["group.participants", { action: "added", participants: [BOB] }],
      ["group.participants", { action: "promoted", participants: [BOB] }],
      ["group.participants", { action: "demoted", participants: [BOB] }],
      ["group.participants", { action: "removed", participants: [BOB] }],
      ["group.updated", { changes: { picture: "set" } }],
      ["group.updated", { changes: { picture: "removed" } }],
      ["group.participants", { action: "left", participants: [from] }],
    ])
  }, SLOW_TEST_TIMEOUT_MS)

  test("a join by link: group.joined and this phone added, once", async () => {
    const { from, call, newEvents } = await tenant()
    const group = (await call("POST", "/groups", { fromPhoneId: from, subject: "Club", participants: [ALICE] }, 201)).group
    const { url } = await call("GET", `/groups/${group.id}/invite?fromPhoneId=${encodeURIComponent(from)}`)
    await call("POST", `/groups/${group.id}/leave`, { fromPhoneId: from }, 204)
    newEvents()
    await call("POST", "/groups/join", { fromPhoneId: from, invite: url })
    expect(newEvents()).toEqual([
      ["group.joined", { subject: "Club" }],
      ["group.participants", { action: "added", participants: [from] }],
    ])
  })
})
