import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { MEDIA_CACHE_FOLDER } from "../../src/lib/media-cache"
import type { InboundMedia, InboundMessage } from "../../src/whatsapp/gateway"
import { createHarness, expectErrorEnvelope, type Harness } from "../helpers/harness"
import { liveTenant } from "../live/live-helpers"

/*
 * GET /v1/messages/inbound/{messageId}/media (API-DECISIONS § 14): the bytes with their type,
 * length and name; downloaded once into the cache, then served from disk; a re-upload asked once
 * when WhatsApp's host no longer has the file; 410 when the phone will not upload it again.
 */

let h: Harness
let dataDir: string
beforeEach(async () => {
  dataDir = mkdtempSync(join(tmpdir(), "wagate-inbound-media-"))
  h = await createHarness({ env: { WAGATE_DATA_DIR: dataDir, WAGATE_MEDIA_CACHE_MB: "1" } })
})
afterEach(async () => {
  await h.close()
  rmSync(dataDir, { recursive: true, force: true })
})

const BYTES = new Uint8Array(Array.from({ length: 3000 }, (_, i) => i % 251))

function media(descriptor: string, patch: Partial<InboundMedia> = {}): InboundMedia {
  return { mimetype: "application/pdf", sizeBytes: BYTES.length, fileName: "Rechnung März.pdf", capKind: "document", descriptor, ...patch }
}

function inbound(waMessageId: string, m: InboundMedia | null): InboundMessage {
  return { waMessageId, from: "+14155550177", isGroup: false, groupId: null, type: "document", content: "", receivedAtMs: h.clock.nowMs(), details: { media: m } }
}

/** A live tenant whose phone received one message per entry; returns the key and the inbound ids (in the given order). */
async function received(entries: [string, InboundMedia | null][]) {
  const tenant = await liveTenant(h)
  for (const [wa, m] of entries) h.gateway.current(tenant.phone.id).receive(inbound(wa, m))
  await h.settle()
  const list = await h.request("GET", "/v1/messages/inbound?limit=100", { key: tenant.key })
  const ids = (list.body.data.data as { id: string }[]).map((m) => m.id).reverse()
  return { ...tenant, ids }
}

function download(key: string, id: string): Promise<Response> {
  return h.app.handle(new Request(`http://localhost/v1/messages/inbound/${id}/media`, { headers: { authorization: `Bearer ${key}` } }))
}

const cacheFiles = () => (existsSync(join(dataDir, MEDIA_CACHE_FOLDER)) ? readdirSync(join(dataDir, MEDIA_CACHE_FOLDER)) : [])

describe("GET /v1/messages/inbound/{messageId}/media", () => {
  test("serves the bytes with type, length and the name; downloaded once, then from the cache as a 0600 file", async () => {
    h.gateway.media.set("d1", BYTES)
    const { key, ids } = await received([["W1", media("d1")]])
    const first = await download(key, ids[0]!)
    expect(first.status).toBe(200)
    expect(first.headers.get("content-type")).toBe("application/pdf")
    expect(first.headers.get("content-length")).toBe(String(BYTES.length))
    expect(first.headers.get("content-disposition")).toBe(`attachment; filename="Rechnung M_rz.pdf"; filename*=UTF-8''Rechnung%20M%C3%A4rz.pdf`)
    expect(first.headers.get("x-ratelimit-limit")).not.toBeNull()
    expect(new Uint8Array(await first.arrayBuffer())).toEqual(BYTES)
    const second = await download(key, ids[0]!)
    expect(new Uint8Array(await second.arrayBuffer())).toEqual(BYTES)
    expect(h.gateway.mediaCalls).toEqual([{ op: "download", descriptor: "d1" }])
    expect(cacheFiles()).toEqual([ids[0]!])
    expect(statSync(join(dataDir, MEDIA_CACHE_FOLDER, ids[0]!)).mode & 0o777).toBe(0o600)
  })

  test("a Range request gets its 206 with the range's bytes and length", async () => {
    h.gateway.media.set("d1", BYTES)
    const { key, ids } = await received([["W1", media("d1")]])
    await (await download(key, ids[0]!)).arrayBuffer()
    const res = await h.app.handle(
      new Request(`http://localhost/v1/messages/inbound/${ids[0]}/media`, { headers: { authorization: `Bearer ${key}`, range: "bytes=100-199" } }),
    )
    expect(res.status).toBe(206)
    expect(res.headers.get("content-range")).toBe(`bytes 100-199/${BYTES.length}`)
    expect(res.headers.get("content-length")).toBe("100")
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(BYTES.subarray(100, 200))
  })

  test("an image is inline and named after the message when it came without a name", async () => {
    h.gateway.media.set("img", BYTES)
    const { key, ids } = await received([["W1", media("img", { mimetype: "image/jpeg", fileName: null, capKind: "image" })]])
    const res = await download(key, ids[0]!)
    expect(res.headers.get("content-disposition")).toBe(`inline; filename="${ids[0]}.jpg"; filename*=UTF-8''${ids[0]}.jpg`)
  })

  test("two requests at once download the file once and both get it", async () => {
    h.gateway.media.set("d1", BYTES)
    const { key, ids } = await received([["W1", media("d1")]])
    let open!: () => void
    h.gateway.mediaGate = new Promise((r) => (open = r))
    const both = Promise.all([download(key, ids[0]!), download(key, ids[0]!)])
    await Bun.sleep(5)
    open()
    const answers = await both
    for (const res of answers) expect(new Uint8Array(await res.arrayBuffer())).toEqual(BYTES)
    expect(h.gateway.mediaCalls.length).toBe(1)
  })

  test("404 for a message without media, an unknown id, and for test keys", async () => {
    const { key, ids } = await received([["W1", null]])
    expect(expectErrorEnvelope(await h.request("GET", `/v1/messages/inbound/${ids[0]}/media`, { key }), 404, "Not Found")).toEqual([`Inbound message ${ids[0]} has no media`])
    expectErrorEnvelope(await h.request("GET", "/v1/messages/inbound/inmsg_01jd0m3k7v5q9z8y6x4w2t0r1p/media", { key }), 404, "Not Found")
    const test = await h.seedTenant()
    expectErrorEnvelope(await h.request("GET", `/v1/messages/inbound/${ids[0]}/media`, { key: test.key }), 404, "Not Found")
  })

  test("when WhatsApp's host no longer has it, the phone is asked once to upload it again and the new copy is served (and kept)", async () => {
    h.gateway.media.set("old", "gone")
    h.gateway.media.set("new", BYTES)
    h.gateway.reuploads.set("old", "new")
    const { key, ids } = await received([["W1", media("old")]])
    const res = await download(key, ids[0]!)
    expect(res.status).toBe(200)
    expect(new Uint8Array(await res.arrayBuffer())).toEqual(BYTES)
    expect(h.gateway.mediaCalls).toEqual([
      { op: "download", descriptor: "old" },
      { op: "reupload", descriptor: "old" },
      { op: "download", descriptor: "new" },
    ])
    const stored = h.services.sqlite!.query("SELECT media_json AS m FROM inbound_messages WHERE id = ?").get(ids[0]!) as { m: string }
    expect(JSON.parse(stored.m).descriptor).toBe("new")
  })

  test("410 when the phone will not upload it again; later requests answer 410 without asking WhatsApp", async () => {
    h.gateway.media.set("old", "gone")
    h.gateway.reuploads.set("old", "refuse")
    const { key, ids } = await received([["W1", media("old")]])
    expectErrorEnvelope(await h.request("GET", `/v1/messages/inbound/${ids[0]}/media`, { key }), 410, "Gone")
    expectErrorEnvelope(await h.request("GET", `/v1/messages/inbound/${ids[0]}/media`, { key }), 410, "Gone")
    expect(h.gateway.mediaCalls.map((c) => c.op)).toEqual(["download", "reupload"])
    expect(cacheFiles()).toEqual([])
  })

  test("a file larger than its kind's cap is refused before any download; a phone that is not connected is 400", async () => {
    const { key, ids, phone } = await received([
      ["BIG", media("big", { capKind: "image", mimetype: "image/png", sizeBytes: 16 * 1024 * 1024 + 1 })],
      ["W2", media("d2")],
    ])
    const big = await h.request("GET", `/v1/messages/inbound/${ids[0]}/media`, { key })
    expect(expectErrorEnvelope(big, 502, "Bad Gateway")).toEqual([`The media of inbound message ${ids[0]} is larger than the 16 MiB cap for its kind`])
    h.gateway.current(phone.id).drop("connection_lost")
    await h.settle()
    expectErrorEnvelope(await h.request("GET", `/v1/messages/inbound/${ids[1]}/media`, { key }), 400, "Bad Request")
    expect(h.gateway.mediaCalls).toEqual([])
  })

  test("past WAGATE_MEDIA_CACHE_MB the least recently used file goes first, and is downloaded again when asked", async () => {
    const half = new Uint8Array(400 * 1024)
    for (const d of ["a", "b", "c"]) h.gateway.media.set(d, half)
    const { key, ids } = await received(["a", "b", "c"].map((d) => [`W-${d}`, media(d, { sizeBytes: half.length })] as [string, InboundMedia]))
    const [a, b, c] = ids as [string, string, string]
    await (await download(key, a)).arrayBuffer()
    await h.advance(10)
    await (await download(key, b)).arrayBuffer()
    await h.advance(10)
    // a is used again, so b is now the least recently used.
    await (await download(key, a)).arrayBuffer()
    await h.advance(10)
    await (await download(key, c)).arrayBuffer()
    expect(cacheFiles().sort()).toEqual([a, c].sort())
    await (await download(key, b)).arrayBuffer()
    expect(h.gateway.mediaCalls.map((m) => m.descriptor)).toEqual(["a", "b", "c", "b"])
  })
})
