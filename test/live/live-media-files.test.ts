import { afterEach, describe, expect, test } from "bun:test"
import { readdirSync } from "node:fs"
import { waMessageIdFor } from "../../src/domain/wa-ids"
import { createHarness, type Harness } from "../helpers/harness"
import { liveTenant, mediaFixtures, send } from "./live-helpers"

/*
 * Live media is downloaded to files, not memory (docs/live-whatsapp.md § "Media of live sends"):
 * the files go once the parts are handed over, and the hand-offs of all phones share one memory
 * budget (WAGATE_MEDIA_MEMORY_MB).
 */

const TO = "+14155550199"
const PHOTO = "https://media.example.com/photo.jpg"
const DOC = "https://media.example.com/invoice.pdf"
const GONE = "https://media.example.com/gone.png"
const MiB = 1024 * 1024

let h: Harness
afterEach(() => h.close())

function fixtures(imageBytes = 8) {
  return mediaFixtures({
    [PHOTO]: { kind: "image", mimetype: "image/jpeg", fileName: "photo.jpg", bytes: new Uint8Array(imageBytes).fill(0xff) },
    [DOC]: { kind: "document", mimetype: "application/pdf", fileName: "invoice.pdf", bytes: new TextEncoder().encode("%PDF-1.7") },
  })
}

describe("live media files", () => {
  test("the downloaded files are removed once their parts are handed to WhatsApp", async () => {
    const media = fixtures()
    h = await createHarness({ fetchMedia: media.fetchMedia })
    const { key, phone } = await liveTenant(h)
    await send(h, key, { fromPhoneId: phone.id, to: TO, content: "Your order", mediaUrls: [PHOTO, DOC] })
    await h.settle()
    expect(h.gateway.sentBy(phone.id)).toHaveLength(2)
    expect(readdirSync(media.dir)).toEqual([])
  })

  test("a failed download removes the files downloaded before it", async () => {
    const media = fixtures()
    h = await createHarness({ fetchMedia: media.fetchMedia })
    const { key, phone } = await liveTenant(h)
    await send(h, key, { fromPhoneId: phone.id, to: TO, mediaUrls: [PHOTO, GONE] })
    await h.settle()
    expect(media.fetched).toEqual([PHOTO, GONE])
    expect(h.gateway.sentBy(phone.id)).toEqual([])
    expect(readdirSync(media.dir)).toEqual([])
  })

  test("a socket that fails mid-send removes the files too (the retry after the reconnect downloads again)", async () => {
    const media = fixtures()
    h = await createHarness({ fetchMedia: media.fetchMedia })
    const { key, phone } = await liveTenant(h)
    h.gateway.current(phone.id).sendError = new Error("socket closed")
    await send(h, key, { fromPhoneId: phone.id, to: TO, mediaUrls: [DOC] })
    await h.settle()
    expect(media.fetched).toEqual([DOC])
    expect(readdirSync(media.dir)).toEqual([])
  })

  test("a third streamed hand-off waits when two fill the media memory budget", async () => {
    const media = fixtures()
    h = await createHarness({ fetchMedia: media.fetchMedia, env: { WAGATE_MEDIA_MEMORY_MB: "32" } })
    const tenants = [await liveTenant(h), await liveTenant(h), await liveTenant(h)]
    const releases: (() => void)[] = []
    for (const t of tenants.slice(0, 2)) h.gateway.current(t.phone.id).sendGate = new Promise((resolve) => releases.push(resolve))
    for (const t of tenants) {
      await send(h, t.key, { fromPhoneId: t.phone.id, to: TO, mediaUrls: [DOC] })
      await h.settle()
    }
    expect(h.gateway.sent).toHaveLength(0)
    releases[0]!()
    await h.settle()
    expect(h.gateway.sent.map((s) => s.phoneId).sort()).toEqual([tenants[0]!.phone.id, tenants[2]!.phone.id].sort())
    releases[1]!()
    await h.settle()
    expect(h.gateway.sent).toHaveLength(3)
  })

  test("image hand-offs of two phones wait for each other when both do not fit in the media memory budget", async () => {
    // Images reserve their size (WhatsApp's thumbnail reads them whole): 40 + 40 MiB > 64 MiB.
    const media = fixtures(40 * MiB)
    h = await createHarness({ fetchMedia: media.fetchMedia, env: { WAGATE_MEDIA_MEMORY_MB: "64" } })
    const a = await liveTenant(h)
    const b = await liveTenant(h)
    let releaseA!: () => void
    h.gateway.current(a.phone.id).sendGate = new Promise((resolve) => (releaseA = resolve))
    const first = (await send(h, a.key, { fromPhoneId: a.phone.id, to: TO, mediaUrls: [PHOTO] })).body.data
    await h.settle()
    const second = (await send(h, b.key, { fromPhoneId: b.phone.id, to: TO, mediaUrls: [PHOTO] })).body.data
    await h.settle()
    expect(h.gateway.sent.map((s) => s.part.waMessageId)).toEqual([])
    releaseA()
    await h.settle()
    expect(h.gateway.sent.map((s) => s.part.waMessageId)).toEqual([waMessageIdFor(first.id, 0), waMessageIdFor(second.id, 0)])
  })

  test("documents stream from their files: two phones' hand-offs run side by side within the budget", async () => {
    const media = fixtures()
    // Each streamed part reserves 16 MiB: two fit in 32 MiB.
    h = await createHarness({ fetchMedia: media.fetchMedia, env: { WAGATE_MEDIA_MEMORY_MB: "32" } })
    const a = await liveTenant(h)
    const b = await liveTenant(h)
    let releaseA!: () => void
    h.gateway.current(a.phone.id).sendGate = new Promise((resolve) => (releaseA = resolve))
    await send(h, a.key, { fromPhoneId: a.phone.id, to: TO, mediaUrls: [DOC] })
    await h.settle()
    const second = (await send(h, b.key, { fromPhoneId: b.phone.id, to: TO, mediaUrls: [DOC] })).body.data
    await h.settle()
    expect(h.gateway.sent.map((s) => s.part.waMessageId)).toEqual([waMessageIdFor(second.id, 0)])
    releaseA()
    await h.settle()
    expect(h.gateway.sent).toHaveLength(2)
  })
})
