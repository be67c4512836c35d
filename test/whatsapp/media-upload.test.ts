import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { randomBytes } from "node:crypto"
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import * as baileys from "@whiskeysockets/baileys"
import { mediaExtras, sendMediaPart, type MediaBaileys } from "../../src/whatsapp/baileys/media-message"
import { encryptAndUpload, encryptMediaFile, MediaUploadError, type MediaConnSource, type UploadFetch } from "../../src/whatsapp/baileys/media-upload"
import type { OutboundPart } from "../../src/whatsapp/gateway"
import { generateLoopbackCertificate } from "../wa-sim/media-cert"
import { decryptMedia } from "../wa-sim/media-crypto"
import { MediaHost } from "../wa-sim/media-host"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { bandedPicture, pixelAt, withOrientation } from "../helpers/pictures"
import { readImageHeader } from "../../src/lib/image-dimensions"

// Generates a TLS certificate and runs HTTPS servers: see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * wagate's own encryption and upload of live media (media-upload.ts, media-message.ts): the
 * uploaded file must decrypt as WhatsApp clients decrypt it (Baileys' own download and the
 * simulator's careful check of the MAC and both hashes), the encrypted copy is 0600 and never
 * outlives the upload, and a failed upload is an error like Baileys' own.
 */

const MiB = 1024 * 1024
const logger = { debug() {}, info() {}, warn() {}, error() {} }

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), "wagate-media-upload-"))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

function plainFile(bytes: Uint8Array): string {
  const path = join(dir, "media-plain.part")
  writeFileSync(path, bytes)
  return path
}

/** Decrypts with Baileys' own download (AES-CBC with its padding check), served over plain HTTP. */
async function baileysDecrypt(file: Uint8Array, mediaKey: Uint8Array, kind: baileys.MediaType): Promise<Buffer> {
  const server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response(new Uint8Array(file)) })
  try {
    const stream = await baileys.downloadContentFromMessage({ mediaKey, url: `http://127.0.0.1:${server.port}/f.enc` }, kind)
    const chunks: Buffer[] = []
    for await (const chunk of stream) chunks.push(chunk as Buffer)
    return Buffer.concat(chunks)
  } finally {
    await server.stop(true)
  }
}

describe("encrypting a downloaded file", () => {
  test.each([0, 1, 15, 16, 17, 3 * MiB + 5])("%p bytes: decrypts to the same bytes, MAC and both hashes checked, into a 0600 file", async (size) => {
    const plain = new Uint8Array(randomBytes(size))
    const encPath = join(dir, "media-x.enc")
    const enc = await encryptMediaFile(baileys, plainFile(plain), encPath, "document")
    expect(statSync(encPath).mode & 0o777).toBe(0o600)
    const file = readFileSync(encPath)
    // PKCS#7 always pads (a whole block when the size is a multiple of 16), then 10 bytes of MAC.
    expect(file.length).toBe((Math.floor(size / 16) + 1) * 16 + 10)
    expect(enc.fileLength).toBe(size)
    const checked = await decryptMedia(file, { mediaKey: enc.mediaKey, kind: "document", fileSha256: enc.fileSha256, fileEncSha256: enc.fileEncSha256 })
    expect(checked.equals(Buffer.from(plain))).toBe(true)
    expect((await baileysDecrypt(file, enc.mediaKey, "document")).equals(Buffer.from(plain))).toBe(true)
  })

  test("the keys are expanded for the kind: an image's file does not decrypt as a document", async () => {
    const plain = new Uint8Array(randomBytes(1000))
    const encPath = join(dir, "media-x.enc")
    const enc = await encryptMediaFile(baileys, plainFile(plain), encPath, "image")
    const file = readFileSync(encPath)
    expect((await decryptMedia(file, { mediaKey: enc.mediaKey, kind: "image" })).equals(Buffer.from(plain))).toBe(true)
    await expect(decryptMedia(file, { mediaKey: enc.mediaKey, kind: "document" })).rejects.toThrow("MAC")
  })

  test("a file that cannot be read fails, and the refusal to overwrite keeps an existing file", async () => {
    await expect(encryptMediaFile(baileys, join(dir, "missing"), join(dir, "media-a.enc"), "document")).rejects.toThrow()
    const existing = join(dir, "media-b.enc")
    writeFileSync(existing, "keep")
    await expect(encryptMediaFile(baileys, plainFile(new Uint8Array(3)), existing, "document")).rejects.toThrow()
    expect(readFileSync(existing, "utf8")).toBe("keep")
  })
})

describe("uploading to WhatsApp's media host", () => {
  let host: MediaHost
  beforeAll(async () => {
    host = await MediaHost.start(await generateLoopbackCertificate())
  })
  afterAll(() => host.stop())

  const conn = (hostnames: string[], auth = host.auth) => ({ hosts: hostnames.map((hostname) => ({ hostname, maxContentLengthBytes: 0 })), auth, ttl: 3600, fetchDate: new Date() })
  const sockFor = (hostnames: () => string[], refreshed: boolean[] = []): MediaConnSource => ({
    refreshMediaConn: async (force = false) => (refreshed.push(force), conn(hostnames())),
  })

  test("the file goes to {host}/mms/{kind}/{token}?auth&token with WhatsApp's headers; the host's copy decrypts; no encrypted copy stays", async () => {
    const plain = new Uint8Array(randomBytes(2 * MiB + 3))
    const seen: { address: string; headers: Headers }[] = []
    const fetchVia: UploadFetch = (address, init) => (seen.push({ address, headers: new Headers(init.headers) }), host.fetch(address, init))
    const uploaded = await encryptAndUpload(baileys, sockFor(() => [host.hostname]), plainFile(plain), "image", fetchVia)
    const token = uploaded.fileEncSha256.toString("base64").replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "")
    expect(seen.map((s) => s.address)).toEqual([`https://${host.hostname}/mms/image/${token}?auth=${host.auth}&token=${token}`])
    expect(seen[0]!.headers.get("origin")).toBe("https://web.whatsapp.com")
    expect(seen[0]!.headers.get("content-type")).toBe("application/octet-stream")
    const stored = host.stored.find((s) => s.directPath === uploaded.directPath)!
    expect(uploaded.url).toBe(stored.url)
    const checked = await decryptMedia(stored.file, { mediaKey: uploaded.mediaKey, kind: "image", fileSha256: uploaded.fileSha256, fileEncSha256: uploaded.fileEncSha256 })
    expect(checked.equals(Buffer.from(plain))).toBe(true)
    expect(readdirSync(dir)).toEqual(["media-plain.part"])
  })

  test("a host that answers 500 is left for the next with fresh hosts; when all fail, the error is Baileys' and no encrypted copy stays", async () => {
    const failing = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => Response.json({ error: "try later" }, { status: 500 }) })
    try {
      const refreshed: boolean[] = []
      const plainHttp: UploadFetch = (address, init) => fetch(address.replace("https://", "http://"), init)
      const hosts = () => [`127.0.0.1:${failing.port}`, `127.0.0.1:${failing.port}`]
      const err = await encryptAndUpload(baileys, sockFor(hosts, refreshed), plainFile(new Uint8Array(5000)), "document", plainHttp).catch((e) => e)
      expect(err).toBeInstanceOf(MediaUploadError)
      expect(err.message).toStartWith("Media upload failed on all hosts")
      expect(err.message).toContain("HTTP 500")
      expect(refreshed).toEqual([false, true, true])
      expect(readdirSync(dir)).toEqual(["media-plain.part"])
    } finally {
      await failing.stop(true)
    }
  })

  test("a connection reset mid-upload fails the upload and leaves no encrypted copy", async () => {
    const resetting = Bun.listen({
      hostname: "127.0.0.1",
      port: 0,
      socket: { data: (socket) => socket.terminate() },
    })
    try {
      const plainHttp: UploadFetch = (address, init) => fetch(address.replace("https://", "http://"), init)
      const err = await encryptAndUpload(baileys, sockFor(() => [`127.0.0.1:${resetting.port}`]), plainFile(new Uint8Array(randomBytes(MiB))), "document", plainHttp).catch((e) => e)
      expect(err).toBeInstanceOf(MediaUploadError)
      expect(err.message).toContain(`uploading to media host 127.0.0.1:${resetting.port} failed`)
      expect(readdirSync(dir)).toEqual(["media-plain.part"])
    } finally {
      resetting.stop(true)
    }
  })

  test("a media part is relayed as WhatsApp's document message: what the host stored, its keys, name, caption and reply context", async () => {
    const plain = new Uint8Array(randomBytes(70_001))
    const relayed: { jid: string; message: baileys.proto.IMessage; messageId: string }[] = []
    const sock = {
      ...sockFor(() => [host.hostname]),
      user: { id: "15550001111:2@s.whatsapp.net" },
      relayMessage: async (jid: string, message: baileys.proto.IMessage, { messageId }: { messageId?: string }) => (relayed.push({ jid, message, messageId: messageId! }), messageId!),
    }
    const part: OutboundPart & { media: NonNullable<OutboundPart["media"]> } = {
      waMessageId: "3EB0MEDIA",
      toJid: "15550002222@s.whatsapp.net",
      media: { kind: "document", path: plainFile(plain), sizeBytes: plain.length, mimetype: "application/pdf", fileName: "invoice.pdf", caption: "your invoice" },
      mentions: ["+15550003333"],
    }
    const quoted = { key: { remoteJid: part.toJid, fromMe: false, id: "WAID-1" }, message: { conversation: "send it please" } }
    const nowMs = 1_700_000_123_456
    const realFetch = globalThis.fetch
    globalThis.fetch = ((address: string, init: RequestInit) => host.fetch(address, init)) as typeof fetch
    let sent: baileys.WAMessage
    try {
      sent = await sendMediaPart(baileys, sock as never, part, { messageId: part.waMessageId, quoted }, { nowMs: () => nowMs, log: logger })
    } finally {
      globalThis.fetch = realFetch
    }
    expect(relayed).toHaveLength(1)
    expect(relayed[0]!.jid).toBe(part.toJid)
    expect(relayed[0]!.messageId).toBe("3EB0MEDIA")
    expect(sent.key).toMatchObject({ id: "3EB0MEDIA", fromMe: true, remoteJid: part.toJid })
    expect(relayed[0]!.message).toBe(sent.message!)
    const doc = sent.message!.documentMessage!
    expect(doc).toMatchObject({ mimetype: "application/pdf", fileName: "invoice.pdf", caption: "your invoice" })
    expect(Number(doc.mediaKeyTimestamp)).toBe(1_700_000_123)
    expect(Number(doc.fileLength)).toBe(plain.length)
    expect(doc.contextInfo).toMatchObject({ stanzaId: "WAID-1", participant: part.toJid, mentionedJid: ["15550003333@s.whatsapp.net"] })
    expect(sent.message!.messageContextInfo?.messageSecret).toHaveLength(32)
    const stored = host.stored.find((s) => s.directPath === doc.directPath)!
    expect(doc.url).toBe(stored.url)
    const checked = await decryptMedia(stored.file, { mediaKey: doc.mediaKey!, kind: "document", fileSha256: doc.fileSha256, fileEncSha256: doc.fileEncSha256 })
    expect(checked.equals(Buffer.from(plain))).toBe(true)
    // What the resend store keeps (resend-store.ts encodes the sent message) decodes to the same.
    const kept = baileys.proto.Message.decode(baileys.proto.Message.encode(sent.message!).finish())
    expect(kept.documentMessage?.directPath).toBe(doc.directPath)
  })
})

describe("the previews Baileys' helpers make from the plaintext", () => {
  /** Baileys' preview helpers, recording what they were asked. */
  function helpers(fail = false) {
    const asked: string[] = []
    const fake = {
      generateThumbnail: async (path: string, kind: string) => {
        asked.push(`thumbnail ${kind} ${path}`)
        if (fail) throw new Error("no image library")
        return { thumbnail: "AAAA", originalImageDimensions: { width: 4, height: 3 } }
      },
      getAudioDuration: async (path: string) => (asked.push(`duration ${path}`), 7),
      getAudioWaveform: async (path: string) => (asked.push(`waveform ${path}`), new Uint8Array([1, 2])),
    } as unknown as MediaBaileys
    return { fake, asked }
  }
  const part = (kind: "image" | "video" | "audio" | "document", path: string, voiceNote = false) => ({
    waMessageId: "W",
    toJid: "1@s.whatsapp.net",
    media: { kind, path, sizeBytes: 1, mimetype: "x/y", voiceNote },
  })

  /** An image file in the test's directory. */
  const imageFile = (bytes: Uint8Array) => {
    const path = join(dir, `image-${crypto.randomUUID()}`)
    writeFileSync(path, bytes)
    return path
  }

  test("an image gets a 32-pixel-wide JPEG thumbnail of itself and its size, made from the file without Baileys' image library", async () => {
    const h = helpers()
    const extras = await mediaExtras(h.fake, part("image", imageFile(await bandedPicture("png", 960, 300))), logger)
    expect({ width: extras.width, height: extras.height, asked: h.asked }).toEqual({ width: 960, height: 300, asked: [] })
    const thumbnail = new Uint8Array(Buffer.from(extras.jpegThumbnail!, "base64"))
    expect(readImageHeader(thumbnail)).toEqual({ format: "jpeg", width: 32, height: 10 })
    // Red, blue and green bands, left to right, as in the picture.
    const [left, middle, right] = [await pixelAt(thumbnail, 3, 5), await pixelAt(thumbnail, 16, 5), await pixelAt(thumbnail, 28, 5)]
    expect({ left: left[0] > 200, middle: middle[2] > 200, right: right[1] > 200 }).toEqual({ left: true, middle: true, right: true })
  }, SLOW_TEST_TIMEOUT_MS)

  test("a phone's portrait photo (stored landscape, EXIF orientation 6) reports its upright size and an upright thumbnail", async () => {
    const extras = await mediaExtras(helpers().fake, part("image", imageFile(withOrientation(await bandedPicture("jpeg", 640, 480), 6))), logger)
    expect({ width: extras.width, height: extras.height }).toEqual({ width: 480, height: 640 })
    expect(readImageHeader(new Uint8Array(Buffer.from(extras.jpegThumbnail!, "base64")))).toEqual({ format: "jpeg", width: 32, height: 43 })
  }, SLOW_TEST_TIMEOUT_MS)

  test("an image file that cannot be decoded is sent without a preview", async () => {
    const broken = (await bandedPicture("jpeg", 64, 64)).subarray(0, 200)
    expect(await mediaExtras(helpers().fake, part("image", imageFile(broken)), logger)).toEqual({})
  }, SLOW_TEST_TIMEOUT_MS)

  test.each([
    { name: "a video gets a thumbnail", p: part("video", "/data/tmp/media-1.part"), asked: ["thumbnail video /data/tmp/media-1.part"], extras: { jpegThumbnail: "AAAA", width: 4, height: 3 } },
    { name: "a video under a path a shell would split gets none (Baileys runs ffmpeg through a shell)", p: part("video", "/my data/$(x)/media-1.part"), asked: [] as string[], extras: {} },
    { name: "audio gets its duration", p: part("audio", "/t/a"), asked: ["duration /t/a"], extras: { seconds: 7 } },
    { name: "a voice note also gets a waveform", p: part("audio", "/t/a", true), asked: ["duration /t/a", "waveform /t/a"], extras: { seconds: 7, waveform: new Uint8Array([1, 2]) } },
    { name: "a document gets nothing", p: part("document", "/t/d"), asked: [] as string[], extras: {} },
  ])("$name", async ({ p, asked, extras }) => {
    const h = helpers()
    expect(await mediaExtras(h.fake, p, logger)).toEqual(extras)
    expect(h.asked).toEqual([...asked])
  })

  test("a helper that fails leaves the part without a preview instead of failing the send", async () => {
    expect(await mediaExtras(helpers(true).fake, part("video", "/t/v"), logger)).toEqual({})
  })
})
