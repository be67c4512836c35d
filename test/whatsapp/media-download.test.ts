import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { createHash, randomBytes } from "node:crypto"
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { encryptMedia } from "../wa-sim/media-crypto"
import type { MediaDescriptor } from "../../src/whatsapp/baileys/inbound-details"
import { downloadMedia, MEDIA_REUPLOAD_TIMEOUT_MS, reuploadMedia, type ReuploadSocket } from "../../src/whatsapp/baileys/media-download"
import { MediaGoneError, MediaTooLargeError } from "../../src/whatsapp/gateway"
import { TestClock } from "../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Uses the simulator's media encryption: see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * The adapter's download of inbound media: decrypted as WhatsApp clients encrypt (the simulator's
 * encryptMedia uses Baileys' own key expansion), checked (MAC, both hashes), streamed to a 0600
 * file, and nothing left behind on any failure.
 */

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "wagate-media-download-"))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

const PLAIN = new Uint8Array(randomBytes(100_003))

async function fixture() {
  const enc = await encryptMedia(PLAIN, "document")
  const descriptor: MediaDescriptor = {
    v: 1,
    hkdf: "document",
    field: "documentMessage",
    directPath: "/v/t62/file.enc?oh=1",
    mediaKey: enc.mediaKey.toString("base64"),
    fileSha256: enc.fileSha256.toString("base64"),
    fileEncSha256: enc.fileEncSha256.toString("base64"),
    key: { remoteJid: "15550002222@s.whatsapp.net", id: "3EB0", participant: null },
  }
  return { enc, descriptor }
}

/** A media host answering `body` in chunks of 7,000 bytes, as a CDN streams. */
function host(status: number, body: Uint8Array, seen: string[] = []) {
  return async (url: string) => {
    seen.push(url)
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < body.length; i += 7_000) c.enqueue(body.subarray(i, i + 7_000))
        c.close()
      },
    })
    return new Response(status === 200 ? stream : "nope", { status })
  }
}

const clock = new TestClock()

describe("downloading inbound media", () => {
  test("streams, checks and decrypts to a 0600 file, from the media host WhatsApp named", async () => {
    const { enc, descriptor } = await fixture()
    const seen: string[] = []
    const path = join(dir, "out")
    const size = await downloadMedia({ descriptor, host: "mmg.example:8443", path, maxBytes: 1_000_000, clock, fetch: host(200, enc.file, seen) })
    expect(size).toBe(PLAIN.length)
    expect(seen).toEqual(["https://mmg.example:8443/v/t62/file.enc?oh=1"])
    expect(createHash("sha256").update(readFileSync(path)).digest("hex")).toBe(createHash("sha256").update(PLAIN).digest("hex"))
    expect(statSync(path).mode & 0o777).toBe(0o600)
  })

  test.each([
    ["a flipped byte fails the MAC", (f: Buffer) => Buffer.concat([f.subarray(0, 10), Buffer.from([f[10]! ^ 1]), f.subarray(11)]), "MAC"],
    ["a truncated file fails", (f: Buffer) => f.subarray(0, f.length - 20), "MAC"],
  ])("%s and leaves no file", async (_label, corrupt, message) => {
    const { enc, descriptor } = await fixture()
    const path = join(dir, "out")
    await expect(downloadMedia({ descriptor, host: "h", path, maxBytes: 1_000_000, clock, fetch: host(200, corrupt(enc.file)) })).rejects.toThrow(message)
    expect(existsSync(path)).toBe(false)
  })

  test("a wrong plaintext hash is refused after decryption and leaves no file", async () => {
    const { enc, descriptor } = await fixture()
    const path = join(dir, "out")
    const wrong = { ...descriptor, fileSha256: Buffer.alloc(32).toString("base64") }
    await expect(downloadMedia({ descriptor: wrong, host: "h", path, maxBytes: 1_000_000, clock, fetch: host(200, enc.file) })).rejects.toThrow("hash")
    expect(existsSync(path)).toBe(false)
  })

  test("404 and 410 are MediaGoneError; past the cap is MediaTooLargeError; neither leaves a file", async () => {
    const { enc, descriptor } = await fixture()
    const path = join(dir, "out")
    for (const status of [404, 410]) {
      const err = await downloadMedia({ descriptor, host: "h", path, maxBytes: 1_000_000, clock, fetch: host(status, enc.file) }).catch((e) => e)
      expect(err).toBeInstanceOf(MediaGoneError)
      expect(err.httpStatus).toBe(status)
    }
    await expect(downloadMedia({ descriptor, host: "h", path, maxBytes: 50_000, clock, fetch: host(200, enc.file) })).rejects.toBeInstanceOf(MediaTooLargeError)
    expect(existsSync(path)).toBe(false)
  })
})

describe("asking the sender's phone to upload again", () => {
  /** A socket whose updateMediaMessage answers with `answer` and records what it was asked. */
  function socket(answer: (message: any) => Promise<any>) {
    const asked: any[] = []
    const sock = { updateMediaMessage: (message: any) => (asked.push(message), answer(message)) } as unknown as ReuploadSocket
    return { sock, asked }
  }

  test("the new direct path replaces the old one; the key and media key are sent as Baileys needs them", async () => {
    const { descriptor } = await fixture()
    const { sock, asked } = socket(async (m) => ({ ...m, message: { documentMessage: { ...m.message.documentMessage, directPath: "/v/new.enc" } } }))
    const renewed = await reuploadMedia(sock, descriptor, new TestClock())
    expect(renewed).toEqual({ ...descriptor, directPath: "/v/new.enc" })
    expect(asked[0].key).toEqual({ remoteJid: descriptor.key.remoteJid, id: "3EB0", fromMe: false })
    expect(Buffer.isBuffer(asked[0].message.documentMessage.mediaKey)).toBe(true)
  })

  test("a round video note is asked for as a video", async () => {
    const { descriptor } = await fixture()
    const { sock, asked } = socket(async (m) => ({ message: { videoMessage: { directPath: "/v/ptv.enc" } }, key: m.key }))
    const renewed = await reuploadMedia(sock, { ...descriptor, field: "ptvMessage", hkdf: "video" }, new TestClock())
    expect(Object.keys(asked[0].message)).toEqual(["videoMessage"])
    expect(renewed.directPath).toBe("/v/ptv.enc")
  })

  test("a refusal (Baileys' Boom with the result's status) is MediaGoneError", async () => {
    const { descriptor } = await fixture()
    const refused = Object.assign(new Error("Media re-upload failed by device (NOT_FOUND)"), { output: { statusCode: 404 } })
    const { sock } = socket(async () => Promise.reject(refused))
    expect(await reuploadMedia(sock, descriptor, new TestClock()).catch((e) => e)).toBeInstanceOf(MediaGoneError)
  })

  test("no answer within the timeout is a plain error, so a later request may ask again", async () => {
    const { descriptor } = await fixture()
    const clock = new TestClock()
    const { sock } = socket(() => new Promise(() => undefined))
    const pending = reuploadMedia(sock, descriptor, clock).catch((e) => e)
    clock.advance(MEDIA_REUPLOAD_TIMEOUT_MS)
    const err = await pending
    expect(err).not.toBeInstanceOf(MediaGoneError)
    expect(err.message).toContain("did not answer")
  })
})

test("a connection that breaks mid-body fails the download and leaves no file", async () => {
  const { enc, descriptor } = await fixture()
  const path = join(dir, "out")
  const broken = async () =>
    new Response(
      new ReadableStream<Uint8Array>({
        start(c) {
          c.enqueue(enc.file.subarray(0, 40_000))
          c.error(new Error("connection reset"))
        },
      }),
    )
  await expect(downloadMedia({ descriptor, host: "h", path, maxBytes: 1_000_000, clock, fetch: broken })).rejects.toThrow("connection reset")
  expect(existsSync(path)).toBe(false)
})
