import { describe, expect, test } from "bun:test"
import { readImageHeader } from "../../src/lib/image-dimensions"
import { MAX_PICTURE_PIXELS, PROFILE_PICTURE_SIDE, toProfileJpeg } from "../../src/lib/profile-picture"
import { bandedPicture, pixelAt, pngHeaderClaiming, type PictureInput } from "../helpers/pictures"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

/** True when an RGB value is clearly blue: the centre band of the banded pictures. */
function isBlue([r, g, b]: [number, number, number]): boolean {
  return b > 200 && r < 60 && g < 60
}

describe("toProfileJpeg: success", () => {
  const cases: { name: string; format: PictureInput; width: number; height: number }[] = [
    { name: "a landscape JPEG", format: "jpeg", width: 900, height: 300 },
    { name: "a portrait JPEG", format: "jpeg", width: 300, height: 900 },
    { name: "a small PNG (scaled up)", format: "png", width: 150, height: 50 },
    { name: "a landscape PNG", format: "png", width: 1200, height: 400 },
    { name: "a WebP", format: "webp", width: 600, height: 200 },
    { name: "an exact square JPEG", format: "jpeg", width: 640, height: 640 },
  ]
  for (const c of cases) {
    test(`${c.name} becomes a ${PROFILE_PICTURE_SIDE} × ${PROFILE_PICTURE_SIDE} JPEG of its centre square`, async () => {
      const result = await toProfileJpeg(await bandedPicture(c.format, c.width, c.height))
      if (!result.ok) throw new Error(result.message)
      expect({ width: result.width, height: result.height }).toEqual({ width: 640, height: 640 })
      expect(readImageHeader(result.jpeg)).toEqual({ format: "jpeg", width: 640, height: 640 })
      // A square input has all three bands; any other keeps only the centre (blue) band.
      if (c.width !== c.height) {
        for (const [x, y] of [[5, 5], [634, 5], [5, 634], [634, 634], [320, 320]] as const) {
          expect({ x, y, blue: isBlue(await pixelAt(result.jpeg, x, y)) }).toEqual({ x, y, blue: true })
        }
      }
    }, SLOW_TEST_TIMEOUT_MS)
  }
})

describe("toProfileJpeg: refusals", () => {
  const cases: { name: string; bytes: () => Promise<Uint8Array>; reason: string; message: RegExp }[] = [
    { name: "text", bytes: async () => new TextEncoder().encode("<html>not a picture</html>"), reason: "not_an_image", message: /not a JPEG, PNG or WebP image/ },
    { name: "an empty file", bytes: async () => new Uint8Array(0), reason: "not_an_image", message: /not a JPEG, PNG or WebP image/ },
    { name: "a GIF", bytes: async () => new TextEncoder().encode("GIF89a\x01\x00\x01\x00\x00\x00\x00;"), reason: "not_an_image", message: /not a JPEG, PNG or WebP/ },
    { name: "a PNG header with a broken body", bytes: async () => pngHeaderClaiming(100, 100), reason: "not_an_image", message: /PNG image could not be decoded/ },
    { name: "a PNG header declaring zero pixels", bytes: async () => pngHeaderClaiming(0, 100), reason: "not_an_image", message: /declares no pixels/ },
    { name: "a few bytes claiming 60 000 × 60 000 pixels (a decompression bomb)", bytes: async () => pngHeaderClaiming(60_000, 60_000), reason: "too_large", message: /60000 × 60000 pixels; at most 25 megapixels/ },
    { name: "a truncated JPEG", bytes: async () => (await bandedPicture("jpeg", 64, 64)).subarray(0, 200), reason: "not_an_image", message: /JPEG image could not be decoded/ },
  ]
  for (const c of cases) {
    test(`${c.name} is refused as ${c.reason} with a readable sentence`, async () => {
      const result = await toProfileJpeg(await c.bytes())
      expect(result.ok).toBe(false)
      if (result.ok) return
      expect(result.reason).toBe(c.reason as typeof result.reason)
      expect(result.message).toMatch(c.message)
    })
  }

  test("the pixel bound applies before decoding: a real picture over a lowered bound is refused", async () => {
    const picture = await bandedPicture("png", 300, 200)
    const result = await toProfileJpeg(picture, 300 * 200 - 1)
    expect(result).toMatchObject({ ok: false, reason: "too_large" })
    expect(MAX_PICTURE_PIXELS).toBe(25_000_000)
  })
})
