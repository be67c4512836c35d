import { describe, expect, test } from "bun:test"
import { readImageHeader } from "../../src/lib/image-dimensions"
import { MAX_PICTURE_PIXELS, PROFILE_PICTURE_SIDE, toProfileJpeg } from "../../src/lib/profile-picture"
import { bandedPicture, pixelAt, pngHeaderClaiming, withOrientation, type PictureInput } from "../helpers/pictures"
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
    { name: "a large landscape JPEG (averaged 2 × 2, then scaled)", format: "jpeg", width: 3900, height: 1300 },
    { name: "a large portrait PNG (averaged 2 × 2, then scaled)", format: "png", width: 1300, height: 3900 },
    { name: "a portrait WebP", format: "webp", width: 500, height: 1500 },
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

/** True when an RGB value is clearly red or green: the left and right bands of a square banded picture. */
const isRed = ([r, g, b]: [number, number, number]) => r > 200 && g < 60 && b < 60
const isGreen = ([r, g, b]: [number, number, number]) => g > 200 && r < 60 && b < 60

describe("toProfileJpeg: EXIF orientation", () => {
  // A square banded picture is red on its stored left and green on its stored right; the
  // orientation says how it is shown, so the red band moves to the side WhatsApp shows it on.
  const cases: { orientation: number; shown: string; red: [number, number]; green: [number, number] }[] = [
    { orientation: 1, shown: "as stored", red: [5, 320], green: [634, 320] },
    { orientation: 2, shown: "mirrored left to right", red: [634, 320], green: [5, 320] },
    { orientation: 3, shown: "upside down", red: [634, 320], green: [5, 320] },
    { orientation: 6, shown: "turned clockwise (a phone's portrait photo)", red: [320, 5], green: [320, 634] },
    { orientation: 8, shown: "turned anticlockwise", red: [320, 634], green: [320, 5] },
    { orientation: 5, shown: "transposed", red: [320, 5], green: [320, 634] },
  ]
  for (const c of cases) {
    test(`a JPEG with orientation ${c.orientation} is shown ${c.shown}`, async () => {
      const result = await toProfileJpeg(withOrientation(await bandedPicture("jpeg", 900, 900), c.orientation))
      if (!result.ok) throw new Error(result.message)
      expect({ red: isRed(await pixelAt(result.jpeg, ...c.red)), green: isGreen(await pixelAt(result.jpeg, ...c.green)) }).toEqual({ red: true, green: true })
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
    { name: "a truncated PNG", bytes: async () => (await bandedPicture("png", 300, 200)).subarray(0, 120), reason: "not_an_image", message: /PNG image could not be decoded/ },
    { name: "a truncated WebP", bytes: async () => (await bandedPicture("webp", 300, 200)).subarray(0, 60), reason: "not_an_image", message: /WEBP image could not be decoded/ },
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

  test("a damaged file leaves each decoder working: the next picture of every format converts", async () => {
    for (const format of ["png", "jpeg", "webp"] as const) {
      const good = await bandedPicture(format, 300, 200)
      expect(await toProfileJpeg(good.subarray(0, 100))).toMatchObject({ ok: false, reason: "not_an_image" })
      expect(await toProfileJpeg(good)).toMatchObject({ ok: true, width: 640, height: 640 })
    }
  }, SLOW_TEST_TIMEOUT_MS)

  test("the pixel bound applies before decoding: a real picture over a lowered bound is refused", async () => {
    const picture = await bandedPicture("png", 300, 200)
    const result = await toProfileJpeg(picture, 300 * 200 - 1)
    expect(result).toMatchObject({ ok: false, reason: "too_large" })
    expect(MAX_PICTURE_PIXELS).toBe(25_000_000)
  })
})
