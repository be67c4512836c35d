import { afterEach, describe, expect, test } from "bun:test"
import { readdirSync } from "node:fs"
import { readImageHeader } from "../../src/lib/image-dimensions"
import { createHarness, expectErrorEnvelope, type Harness } from "../helpers/harness"
import { PictureFetch } from "../helpers/picture-fetch"
import { bandedPicture, pngHeaderClaiming } from "../helpers/pictures"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

/*
 * The phone's own profile (docs/api.md § "Pictures and the phone's own profile"): PATCH /v1/phone-numbers/{id}/profile,
 * PUT / DELETE / GET /v1/phone-numbers/{id}/picture. Success, errors, security.
 */

let h: Harness
let pictures: PictureFetch
afterEach(() => {
  h.close()
  pictures.close()
})

const PNG_URL = "https://images.example.com/logo.png"

async function setUp(env: "test" | "live" = "test") {
  pictures = new PictureFetch()
  h = await createHarness({ fetchMedia: pictures.fetch })
  const tenant = await h.seedTenant({ env })
  if (env === "live") await h.connectPhone(tenant.phone)
  pictures.answers.set(PNG_URL, { kind: "image", bytes: await bandedPicture("png", 900, 300) })
  return tenant
}

async function pictureBytes(key: string, phoneId: string): Promise<{ status: number; type: string | null; bytes: Uint8Array }> {
  const res = await h.app.handle(new Request(`http://localhost/v1/phone-numbers/${phoneId}/picture`, { headers: { Authorization: `Bearer ${key}` } }))
  return { status: res.status, type: res.headers.get("content-type"), bytes: new Uint8Array(await res.arrayBuffer()) }
}

describe("own profile: success", () => {
  test("a live key sets the name and about on WhatsApp and gets the profile back", async () => {
    const { key, phone } = await setUp("live")
    const res = await h.request("PATCH", `/v1/phone-numbers/${phone.id}/profile`, { key, body: { name: " Acme Support ", about: "We answer within the hour" } })
    expect(res.status).toBe(200)
    expect(res.body.data).toMatchObject({ phoneId: phone.id, phoneNumber: phone.phoneNumber, name: "Acme Support", about: "We answer within the hour", pictureUrl: null })
    expect(h.gateway.profileActions).toEqual([
      { phoneId: phone.id, kind: "profile_name", name: "Acme Support" },
      { phoneId: phone.id, kind: "about", about: "We answer within the hour" },
    ])
  })

  test("a live key sets the picture: WhatsApp gets a 640 × 640 JPEG, the profile names where it is served, and the fetched file is removed", async () => {
    const { key, phone } = await setUp("live")
    const res = await h.request("PUT", `/v1/phone-numbers/${phone.id}/picture`, { key, body: { mediaUrl: PNG_URL } })
    expect(res.status).toBe(200)
    expect(res.body.data.pictureUrl).toBe(`/v1/phone-numbers/${phone.id}/picture`)
    const [action] = h.gateway.profileActions
    expect(action).toMatchObject({ kind: "set_picture", groupJid: null })
    const jpeg = (action as { jpeg: Uint8Array }).jpeg
    expect(readImageHeader(jpeg)).toEqual({ format: "jpeg", width: 640, height: 640 })
    const served = await pictureBytes(key, phone.id)
    expect({ status: served.status, type: served.type, same: Buffer.from(served.bytes).equals(Buffer.from(jpeg)) }).toEqual({ status: 200, type: "image/jpeg", same: true })
    expect(readdirSync(pictures.dir)).toEqual([])
  }, SLOW_TEST_TIMEOUT_MS)

  test("DELETE removes the picture on WhatsApp; the picture is then 404", async () => {
    const { key, phone } = await setUp("live")
    await h.request("PUT", `/v1/phone-numbers/${phone.id}/picture`, { key, body: { mediaUrl: PNG_URL } })
    const res = await h.request("DELETE", `/v1/phone-numbers/${phone.id}/picture`, { key })
    expect(res.status).toBe(200)
    expect(res.body.data.pictureUrl).toBeNull()
    expect(h.gateway.profileActions.map((a) => a.kind)).toEqual(["set_picture", "remove_picture"])
    expect((await pictureBytes(key, phone.id)).status).toBe(404)
  }, SLOW_TEST_TIMEOUT_MS)

  test("a test key keeps the profile for the sandbox only: nothing reaches WhatsApp and a live key does not see it", async () => {
    const { key, phone, account } = await setUp("test")
    expect((await h.request("PATCH", `/v1/phone-numbers/${phone.id}/profile`, { key, body: { about: "sandbox about" } })).body.data.about).toBe("sandbox about")
    expect((await h.request("PUT", `/v1/phone-numbers/${phone.id}/picture`, { key, body: { mediaUrl: PNG_URL } })).status).toBe(200)
    expect((await pictureBytes(key, phone.id)).status).toBe(200)
    expect(h.gateway.profileActions).toEqual([])
    const live = await h.services.ctx.store.getSetting(`phone_profile:live:${phone.id}`)
    expect({ live, account: account.id.length > 0 }).toEqual({ live: null, account: true })
  }, SLOW_TEST_TIMEOUT_MS)
})

describe("own profile: errors", () => {
  test.each([
    { name: "an empty body", body: {}, message: "Give name, about or both" },
    { name: "a name over 25 characters", body: { name: "x".repeat(26) }, message: "name must be a string of 1 to 25 characters" },
    { name: "an about over 139 characters", body: { about: "x".repeat(140) }, message: "about must be a string of at most 139 characters" },
    { name: "a blank name", body: { name: "   " }, message: "name must not be empty" },
  ])("PATCH with $name: 400 with one readable message", async ({ body, message }) => {
    const { key, phone } = await setUp()
    expect(expectErrorEnvelope(await h.request("PATCH", `/v1/phone-numbers/${phone.id}/profile`, { key, body }), 400, "Bad Request")).toEqual([message])
  })

  test.each([
    { name: "a file that is not an image", answer: { kind: "document" as const, bytes: new TextEncoder().encode("%PDF-1.4") }, status: 400, message: "mediaUrl: the file is not a JPEG, PNG or WebP image" },
    { name: "an image header claiming 60 000 × 60 000 pixels", answer: { kind: "image" as const, bytes: pngHeaderClaiming(60_000, 60_000) }, status: 400, message: "mediaUrl: the image is 60000 × 60000 pixels; at most 25 megapixels are accepted" },
    { name: "a file over the image cap", answer: { ok: false as const, errorCode: "media_too_large" as const, message: "the image is larger than 16 MiB" }, status: 413, message: "mediaUrl: the image is larger than 16 MiB" },
    { name: "a server that does not answer", answer: { ok: false as const, errorCode: "media_fetch_failed" as const, message: "the server did not answer" }, status: 502, message: "mediaUrl: the server did not answer" },
  ])("PUT with $name: $status, nothing reaches WhatsApp, nothing is left on disk", async ({ answer, status, message }) => {
    const { key, phone } = await setUp("live")
    pictures.answers.set("https://x.example.com/a", answer)
    const res = await h.request("PUT", `/v1/phone-numbers/${phone.id}/picture`, { key, body: { mediaUrl: "https://x.example.com/a" } })
    expect(res.status).toBe(status)
    expect(res.body.message).toEqual([message])
    expect(h.gateway.profileActions).toEqual([])
    expect(readdirSync(pictures.dir)).toEqual([])
  })

  test("a live key on a phone that is not connected: 400, nothing fetched", async () => {
    pictures = new PictureFetch()
    h = await createHarness({ fetchMedia: pictures.fetch })
    const { key, phone } = await h.seedTenant({ env: "live" })
    const res = await h.request("PUT", `/v1/phone-numbers/${phone.id}/picture`, { key, body: { mediaUrl: PNG_URL } })
    expect(res.status).toBe(400)
    expect(pictures.asked).toEqual([])
  })

  test("WhatsApp refusing the change: 502, and the profile keeps what it had", async () => {
    const { key, phone } = await setUp("live")
    h.gateway.actionError = new Error("iq timed out")
    expect((await h.request("PATCH", `/v1/phone-numbers/${phone.id}/profile`, { key, body: { name: "New" } })).status).toBe(502)
    expect(await h.services.ctx.store.getSetting(`phone_profile:live:${phone.id}`)).toBeNull()
  })
})

describe("own profile: security", () => {
  test("another account's phone is 404 and its picture is not served", async () => {
    const { phone } = await setUp("test")
    const other = await h.seedTenant({ phoneNumber: "+14155550777" })
    for (const [method, path, body] of [
      ["PATCH", `/v1/phone-numbers/${phone.id}/profile`, { name: "x" }],
      ["PUT", `/v1/phone-numbers/${phone.id}/picture`, { mediaUrl: PNG_URL }],
      ["DELETE", `/v1/phone-numbers/${phone.id}/picture`, undefined],
    ] as const) {
      expect({ method, status: (await h.request(method, path, { key: other.key, body })).status }).toEqual({ method, status: 404 })
    }
    expect((await pictureBytes(other.key, phone.id)).status).toBe(404)
    expect(pictures.asked).toEqual([])
  })

  test("a mediaUrl that is not https is refused before anything is fetched", async () => {
    const { key, phone } = await setUp()
    const res = await h.request("PUT", `/v1/phone-numbers/${phone.id}/picture`, { key, body: { mediaUrl: "http://169.254.169.254/latest" } })
    expect(expectErrorEnvelope(res, 400, "Bad Request")).toEqual(["mediaUrl must be an https URL of at most 2048 characters"])
    expect(pictures.asked).toEqual([])
  })
})
