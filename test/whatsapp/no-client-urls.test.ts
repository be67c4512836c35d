import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { partContent } from "../../src/whatsapp/baileys/session"
import { createHarness, type Harness } from "../helpers/harness"

/*
 * Baileys fetches whatever URL it is handed (even file paths) without any guard, and fetches
 * links in message text when link-preview-js is installed (reference/baileys-7.md §1.5,
 * reliability-and-security.md §0). wagate must never let a client URL reach it.
 */

const REPO = join(import.meta.dir, "..", "..")

describe("no client URL ever reaches Baileys", () => {
  test("link-preview-js is not installed and not depended on", () => {
    expect(() => require.resolve("link-preview-js", { paths: [REPO] })).toThrow()
    expect(readFileSync(join(REPO, "package.json"), "utf8")).not.toContain("link-preview-js")
    expect(readFileSync(join(REPO, "bun.lock"), "utf8")).not.toMatch(/"link-preview-js@/)
  })

  test("the Baileys adapter names a url only where a media message carries the address the media host answered, or where WhatsApp's picture answer names the picture's address", () => {
    const dir = join(REPO, "src", "whatsapp", "baileys")
    const places: string[] = []
    for (const file of readdirSync(dir).sort()) {
      const text = readFileSync(join(dir, file), "utf8")
      for (const line of text.split("\n")) if (/\burl\s*:/.test(line)) places.push(`${file}: ${line.trim()}`)
    }
    expect(places).toEqual([
      // A profile or group picture's URL comes from WhatsApp's own answer, and contacts.ts fetches only from WhatsApp's hosts.
      "contacts.ts: export async function pictureOf(sock: Sock, jid: string): Promise<{ url: string; pictureId: string } | null> {",
      "contacts.ts: export async function downloadPicture(sock: Sock, clock: Clock, url: string, path: string, maxBytes: number): Promise<number> {",
      "media-message.ts: url: file.url,",
      "media-upload.ts: url: string",
      'media-upload.ts: if (answer?.url || answer?.direct_path) return { url: answer.url ?? "", directPath: answer.direct_path ?? "" }',
      "session.ts: downloadPicture = (url: string, path: string, maxBytes: number) => contacts.downloadPicture(this.requireOpen(), this.ctx.clock, url, path, maxBytes)",
    ])
  })

  test.each(["https://cdn.example.com/a.jpg", "http://10.0.0.1/x", "data:image/png;base64,AAAA", "relative/file.jpg", "/data/tmp/media-1"])(
    "a media part at %p never becomes Baileys content: wagate encrypts and uploads the file itself",
    (path) => {
      expect(() => partContent({ waMessageId: "W", toJid: "1@s.whatsapp.net", media: { kind: "image", path, sizeBytes: 1, mimetype: "image/png" } })).toThrow(TypeError)
    },
  )

  let h: Harness
  let fetched: string[]
  beforeEach(async () => {
    fetched = []
    h = await createHarness({
      fetchMedia: async (url) => {
        fetched.push(url)
        const path = join(mkdtempSync(join(tmpdir(), "wagate-no-urls-")), "media-a")
        writeFileSync(path, new Uint8Array([0xff, 0xd8, 0xff, 0xdb]))
        return { ok: true, media: { kind: "image", path, sizeBytes: 4, mimetype: "image/jpeg", fileName: "a.jpg" } }
      },
    })
  })
  afterEach(() => h.close())

  test("a URL in the content is sent as text and never fetched; media URLs are fetched by wagate and handed over as the downloaded file's bytes", async () => {
    const { account, phone } = await h.seedTenant()
    const live = await h.seedKey(account.id, { env: "live" })
    await h.connectPhone(phone)
    const res = await h.request("POST", "/v1/messages/send", {
      key: live,
      body: { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "see https://internal.example.com/x", mediaUrls: ["https://cdn.example.com/a.jpg"] },
    })
    expect(res.status).toBe(201)
    await h.settle()
    expect(fetched).toEqual(["https://cdn.example.com/a.jpg"])
    const [part] = h.gateway.sentBy(phone.id)
    expect(part!.media!.bytes).toEqual(new Uint8Array([0xff, 0xd8, 0xff, 0xdb]))
    expect(part!.media!.caption).toBe("see https://internal.example.com/x")
    expect(JSON.stringify(part)).not.toContain("cdn.example.com")
  })
})
