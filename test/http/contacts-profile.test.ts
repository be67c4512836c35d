import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SANDBOX_PICTURE_JPEG } from "../../src/domain/contact-sandbox"
import { MEDIA_CACHE_FOLDER } from "../../src/lib/media-cache"
import { createHarness, expectErrorEnvelope, type Harness } from "../helpers/harness"

/*
 * GET /v1/contacts/{contact}/profile, …/picture and GET /v1/groups/{groupId}/picture
 * (docs/api.md § "Contact profiles"): success, errors, security, the budget.
 */

let h: Harness
let dataDir: string
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "wagate-profiles-"))
})
afterEach(async () => {
  await h.close()
  rmSync(dataDir, { recursive: true, force: true })
})

const harness = (env: Record<string, string> = {}) => createHarness({ env: { WAGATE_DATA_DIR: dataDir, ...env } })
const profile = (key: string, contact: string, phone: string) =>
  h.request("GET", `/v1/contacts/${encodeURIComponent(contact)}/profile?fromPhoneId=${encodeURIComponent(phone)}`, { key })
const raw = (key: string, path: string) => h.app.handle(new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${key}` } }))
const cacheFiles = () => (existsSync(join(dataDir, MEDIA_CACHE_FOLDER)) ? readdirSync(join(dataDir, MEDIA_CACHE_FOLDER)) : [])
const JPEG = new Uint8Array([0xff, 0xd8, 0xff, 0xe0, 1, 2, 3, 4, 5, 0xff, 0xd9])

describe("contact profiles: success", () => {
  test("test keys answer the sandbox's profiles: an ordinary number, the business account, the private account", async () => {
    h = await harness()
    const { key, phone } = await h.seedTenant()
    const ordinary = await profile(key, "+14155550199", phone.phoneNumber)
    expect(ordinary.status).toBe(200)
    expect(ordinary.body.data).toEqual({
      contact: "+14155550199",
      phoneNumber: "+14155550199",
      lid: null,
      name: "Sandbox 0199",
      about: "Hey there! I am using WhatsApp.",
      aboutSetAt: "2024-01-01T00:00:00.000Z",
      isBusiness: false,
      business: null,
      pictureUrl: `/v1/contacts/%2B14155550199/picture?fromPhoneId=${encodeURIComponent(phone.phoneNumber)}`,
    })
    const business = (await profile(key, "+12025550120", phone.id)).body.data
    expect(business.isBusiness).toBe(true)
    expect(business.business).toEqual({ description: "A bakery that answers on WhatsApp", category: "Bakery", email: "hello@example.com", websites: ["https://example.com"], address: "1 Example Street" })
    const hidden = (await profile(key, "+12025550121", phone.id)).body.data
    expect([hidden.about, hidden.pictureUrl]).toEqual([null, null])
  })

  test("test keys: the picture is the sandbox JPEG, served from the media cache as a 0600 file", async () => {
    h = await harness()
    const { key, phone } = await h.seedTenant()
    const res = await raw(key, `/v1/contacts/%2B14155550199/picture?fromPhoneId=${phone.id}`)
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toBe("image/jpeg")
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(new Uint8Array(SANDBOX_PICTURE_JPEG))
    expect(cacheFiles()).toHaveLength(1)
    expect(statSync(join(dataDir, MEDIA_CACHE_FOLDER, cacheFiles()[0]!)).mode & 0o777).toBe(0o600)
    expect((await raw(key, `/v1/groups/120363000000000001@g.us/picture?fromPhoneId=${phone.id}`)).status).toBe(200)
  })

  test("live keys: about, business profile and picture come from WhatsApp; the name is the push name wagate heard; outside text is bounded and escaped", async () => {
    h = await harness({ WAGATE_ENV: "live" })
    const { key, phone } = await h.seedTenant({ env: "live" })
    await h.connectPhone(phone)
    const jid = "14155550199@s.whatsapp.net"
    h.gateway.contacts.profiles.set(jid, {
      about: { text: `at work\u0007${"x".repeat(400)}`, setAtMs: Date.UTC(2025, 4, 1) },
      business: { description: "Shoes", category: "Retail", email: null, websites: ["https://shoes.example"], address: null },
      picture: { pictureId: "1700000001", bytes: JPEG },
    })
    await h.services.ctx.store.write(async (q) =>
      q.upsertWaContact({ phoneId: phone.id, address: "+14155550199", lid: "99887766554433@lid", phoneNumber: "+14155550199", username: null, pushName: "Ana", updatedAtMs: 1 }),
    )
    const res = await profile(key, "+14155550199", phone.id)
    expect(res.status).toBe(200)
    const data = res.body.data
    expect([data.contact, data.lid, data.name, data.isBusiness, data.aboutSetAt]).toEqual(["+14155550199", "99887766554433@lid", "Ana", true, "2025-05-01T00:00:00.000Z"])
    expect(data.about.startsWith("at work\\x07x")).toBe(true)
    expect(data.about.length).toBe(256)
    expect(data.business.websites).toEqual(["https://shoes.example"])
    expect(data.pictureUrl).toBe(`/v1/contacts/%2B14155550199/picture?fromPhoneId=${phone.id}`)
  })

  test("live keys: the picture is downloaded once per picture id, served from the cache, and downloaded again when WhatsApp's id changes", async () => {
    h = await harness()
    const { key, phone } = await h.seedTenant({ env: "live" })
    await h.connectPhone(phone)
    const jid = "14155550199@s.whatsapp.net"
    h.gateway.contacts.profiles.set(jid, { picture: { pictureId: "p1", bytes: JPEG } })
    const path = `/v1/contacts/%2B14155550199/picture?fromPhoneId=${phone.id}`
    expect(new Uint8Array(await (await raw(key, path)).arrayBuffer())).toEqual(JPEG)
    expect(new Uint8Array(await (await raw(key, path)).arrayBuffer())).toEqual(JPEG)
    const downloads = () => h.gateway.contacts.calls.filter((c) => c.op === "download").length
    expect(downloads()).toBe(1)
    const changed = new Uint8Array([0xff, 0xd8, 9, 9, 0xff, 0xd9])
    h.gateway.contacts.profiles.set(jid, { picture: { pictureId: "p2", bytes: changed } })
    expect(new Uint8Array(await (await raw(key, path)).arrayBuffer())).toEqual(changed)
    expect(downloads()).toBe(2)
  })
})

describe("contact profiles: errors", () => {
  test("+12025550101 is not on WhatsApp: its profile and picture are 404 for test keys", async () => {
    h = await harness()
    const { key, phone } = await h.seedTenant()
    expect(expectErrorEnvelope(await profile(key, "+12025550101", phone.id), 404, "Not Found")).toEqual(["+12025550101 is not on WhatsApp"])
    expect((await raw(key, `/v1/contacts/%2B12025550101/picture?fromPhoneId=${phone.id}`)).status).toBe(404)
  })

  test("no picture, or privacy hides it: 404 with that sentence (sandbox and live)", async () => {
    h = await harness()
    const test = await h.seedTenant()
    const hidden = await raw(test.key, `/v1/contacts/%2B12025550121/picture?fromPhoneId=${test.phone.id}`)
    expect(hidden.status).toBe(404)
    expect((await hidden.json()).message).toEqual(["+12025550121 has no profile picture, or its privacy settings hide it"])
    expect((await raw(test.key, `/v1/groups/120363000000000002@g.us/picture?fromPhoneId=${test.phone.id}`)).status).toBe(404)
    const live = await h.seedTenant({ env: "live" })
    await h.connectPhone(live.phone)
    expect((await raw(live.key, `/v1/contacts/%2B14155550199/picture?fromPhoneId=${live.phone.id}`)).status).toBe(404)
  })

  test("a contact that is neither E.164 nor a LID, or a group id that is not a group JID: 400", async () => {
    h = await harness()
    const { key, phone } = await h.seedTenant()
    expect(expectErrorEnvelope(await profile(key, "alice", phone.id), 400, "Bad Request")).toEqual(["contact must be an E.164 number (+ and 8–15 digits) or a …@lid JID"])
    expect((await raw(key, `/v1/groups/nope/picture?fromPhoneId=${phone.id}`)).status).toBe(400)
  })

  test("live keys: a number not on WhatsApp is 404; WhatsApp not answering is 502; a phone not connected is 400", async () => {
    h = await harness()
    const { key, phone } = await h.seedTenant({ env: "live" })
    expect((await profile(key, "+14155550199", phone.id)).status).toBe(400)
    await h.connectPhone(phone)
    h.gateway.numbers.set("+14155550100", null)
    expect((await profile(key, "+14155550100", phone.id)).status).toBe(404)
    h.gateway.contacts.error = new Error("timed out")
    expect(expectErrorEnvelope(await profile(key, "+14155550199", phone.id), 502, "Bad Gateway")).toEqual(["Reading the about text from WhatsApp failed; retry after a moment"])
  })

  test("past the phone's hourly lookup budget (shared with number checks): 429 with retryAfter", async () => {
    h = await harness({ WAGATE_CHECKS_PER_PHONE_PER_HOUR: "2" })
    const { key, phone } = await h.seedTenant()
    expect((await h.request("POST", "/v1/contacts/check", { key, body: { fromPhoneId: phone.id, numbers: ["+14155550101"] } })).status).toBe(200)
    expect((await profile(key, "+14155550199", phone.id)).status).toBe(200)
    const over = await profile(key, "+14155550198", phone.id)
    // One lookup refills every 1800 s; the test clock may have moved a millisecond since the last one was taken.
    const retryAfter: number = over.body.retryAfter
    expect(retryAfter === 1800 || retryAfter === 1801).toBe(true)
    expect(expectErrorEnvelope(over, 429, "Rate limit exceeded")).toEqual([`Phone ${phone.phoneNumber} has used its 2 lookups (number checks and profiles) for this hour; retry after ${retryAfter} s`])
    expect(over.headers.get("retry-after")).toBe(String(over.body.retryAfter))
    expect((await raw(key, `/v1/contacts/%2B14155550199/picture?fromPhoneId=${phone.id}`)).status).toBe(429)
  })
})

describe("contact profiles: security", () => {
  test("a key without contacts:read gets 403 for profiles and pictures; groups pictures need a group read scope", async () => {
    h = await harness()
    const { account, phone } = await h.seedTenant()
    const key = await h.seedKey(account.id, { scopes: ["messages:send"] })
    expect((await profile(key, "+14155550199", phone.id)).status).toBe(403)
    expect((await raw(key, `/v1/contacts/%2B14155550199/picture?fromPhoneId=${phone.id}`)).status).toBe(403)
    const groupsOnly = await h.seedKey(account.id, { scopes: ["groups:read"] })
    expect((await raw(groupsOnly, `/v1/groups/120363000000000001@g.us/picture?fromPhoneId=${phone.id}`)).status).toBe(200)
  })

  test("another account's phone is 404: a key never looks up through a phone it does not own", async () => {
    h = await harness()
    const mine = await h.seedTenant()
    const theirs = await h.seedTenant()
    expect((await profile(mine.key, "+14155550199", theirs.phone.id)).status).toBe(404)
    expect((await raw(mine.key, `/v1/contacts/%2B14155550199/picture?fromPhoneId=${theirs.phone.id}`)).status).toBe(404)
  })
})
