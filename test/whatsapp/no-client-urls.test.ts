import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { readdirSync, readFileSync } from "node:fs"
import { join } from "node:path"
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

  test("the Baileys adapter builds media content from bytes only, never from a { url }", () => {
    const dir = join(REPO, "src", "whatsapp", "baileys")
    for (const file of readdirSync(dir)) {
      const text = readFileSync(join(dir, file), "utf8")
      expect({ file, passesUrl: /\burl\s*:/.test(text) }).toEqual({ file, passesUrl: false })
    }
  })

  let h: Harness
  let fetched: string[]
  beforeEach(async () => {
    fetched = []
    h = await createHarness({
      fetchMedia: async (url) => {
        fetched.push(url)
        return { ok: true, media: { kind: "image", bytes: new Uint8Array([0xff, 0xd8, 0xff, 0xdb]), mimetype: "image/jpeg", fileName: "a.jpg" } }
      },
    })
  })
  afterEach(() => h.close())

  test("a URL in the content is sent as text and never fetched; media URLs are fetched by wagate and handed over as bytes", async () => {
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
