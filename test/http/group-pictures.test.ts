import { afterEach, describe, expect, test } from "bun:test"
import { readdirSync } from "node:fs"
import { addPhone } from "../../src/domain/phones"
import { createHarness, expectErrorEnvelope, type Harness } from "../helpers/harness"
import { PictureFetch } from "../helpers/picture-fetch"
import { bandedPicture } from "../helpers/pictures"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

/*
 * PUT / DELETE /v1/groups/{groupId}/picture (docs/api.md § "Pictures and the phone's own profile") with test keys on the sandbox's
 * groups: success, errors, security. The live path is covered against the simulator
 * (test/whatsapp/own-profile-sim.test.ts) and end to end (test/e2e-live/pictures-scenario.ts).
 */

let h: Harness
let pictures: PictureFetch
afterEach(() => {
  h.close()
  pictures.close()
})

const TEAM = "120363000000000001@g.us"
const PNG_URL = "https://images.example.com/team.png"

async function setUp() {
  pictures = new PictureFetch()
  h = await createHarness({ fetchMedia: pictures.fetch })
  const tenant = await h.seedTenant()
  pictures.answers.set(PNG_URL, { kind: "image", bytes: await bandedPicture("png", 400, 300) })
  return tenant
}

const path = (groupId: string) => `/v1/groups/${encodeURIComponent(groupId)}/picture`

describe("group pictures: success", () => {
  test("a test key sets a sandbox group's picture: the image is fetched and converted, the group's detail comes back, nothing reaches WhatsApp", async () => {
    const { key, phone } = await setUp()
    const res = await h.request("PUT", path(TEAM), { key, body: { fromPhoneId: phone.phoneNumber, mediaUrl: PNG_URL } })
    expect(res.status).toBe(200)
    expect(res.body.data).toMatchObject({ id: TEAM, name: "Sandbox Team" })
    expect(pictures.asked).toEqual([PNG_URL])
    expect(h.gateway.profileActions).toEqual([])
    expect(readdirSync(pictures.dir)).toEqual([])
  }, SLOW_TEST_TIMEOUT_MS)

  test("DELETE answers with the group's detail", async () => {
    const { key, phone } = await setUp()
    const res = await h.request("DELETE", path(TEAM), { key, body: { fromPhoneId: phone.id } })
    expect(res.status).toBe(200)
    expect(res.body.data.id).toBe(TEAM)
  })
})

describe("group pictures: errors", () => {
  test("a group the phone is not in: 404 before anything is fetched", async () => {
    const { key, phone } = await setUp()
    const res = await h.request("PUT", path("120363000000000009@g.us"), { key, body: { fromPhoneId: phone.phoneNumber, mediaUrl: PNG_URL } })
    expect(res.status).toBe(404)
    expect(pictures.asked).toEqual([])
  })

  test("a locked group where the phone is a plain member: 403 with the groups API's sentence, nothing fetched", async () => {
    const { key, phone, account } = await setUp()
    const creator = await addPhone(h.services.ctx, account.id, "+14155550888")
    const created = await h.request("POST", "/v1/groups", { key, body: { fromPhoneId: creator.phoneNumber, subject: "Locked", participants: [phone.phoneNumber] } })
    const groupId: string = created.body.data.group.id
    expect((await h.request("PATCH", `/v1/groups/${encodeURIComponent(groupId)}`, { key, body: { fromPhoneId: creator.phoneNumber, locked: true } })).status).toBe(200)
    const res = await h.request("PUT", path(groupId), { key, body: { fromPhoneId: phone.phoneNumber, mediaUrl: PNG_URL } })
    expect(expectErrorEnvelope(res, 403, "Forbidden")).toEqual([`Phone ${phone.phoneNumber} is not an admin of group ${groupId}: this action needs admin rights`])
    expect(pictures.asked).toEqual([])
  })

  test("a file that is not an image: 400 with a readable sentence", async () => {
    const { key, phone } = await setUp()
    pictures.answers.set("https://x.example.com/doc", { kind: "document", bytes: new TextEncoder().encode("%PDF-1.4") })
    const res = await h.request("PUT", path(TEAM), { key, body: { fromPhoneId: phone.phoneNumber, mediaUrl: "https://x.example.com/doc" } })
    expect(expectErrorEnvelope(res, 400, "Bad Request")).toEqual(["mediaUrl: the file is not a JPEG, PNG or WebP image"])
  })

  test("no fromPhoneId: 400", async () => {
    const { key } = await setUp()
    expect((await h.request("PUT", path(TEAM), { key, body: { mediaUrl: PNG_URL } })).status).toBe(400)
  })
})

describe("group pictures: security", () => {
  test("another account's phone cannot act: 404, nothing fetched", async () => {
    const { phone } = await setUp()
    const other = await h.seedTenant({ phoneNumber: "+14155550777" })
    const res = await h.request("PUT", path(TEAM), { key: other.key, body: { fromPhoneId: phone.id, mediaUrl: PNG_URL } })
    expect(res.status).toBe(404)
    expect(pictures.asked).toEqual([])
  })
})
