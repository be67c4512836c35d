import { describe, expect, test } from "bun:test"
import { readImageHeader } from "../../src/lib/image-dimensions"
import { imageThumbnail } from "../../src/lib/image-thumbnail"
import { bandedPicture, pngHeaderClaiming, type PictureInput } from "../helpers/pictures"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

describe("imageThumbnail", () => {
  const cases: { format: PictureInput; width: number; height: number; thumb: [number, number] }[] = [
    { format: "jpeg", width: 1600, height: 1200, thumb: [32, 24] },
    { format: "png", width: 20, height: 40, thumb: [32, 64] },
    { format: "webp", width: 300, height: 100, thumb: [32, 11] },
  ]
  for (const c of cases) {
    test(`a ${c.width} × ${c.height} ${c.format.toUpperCase()} gets a ${c.thumb.join(" × ")} JPEG and its own size`, async () => {
      const result = await imageThumbnail(await bandedPicture(c.format, c.width, c.height))
      expect({ width: result?.width, height: result?.height }).toEqual({ width: c.width, height: c.height })
      expect(readImageHeader(new Uint8Array(Buffer.from(result!.jpegThumbnail!, "base64")))).toEqual({ format: "jpeg", width: c.thumb[0], height: c.thumb[1] })
    }, SLOW_TEST_TIMEOUT_MS)
  }

  test("a picture over the pixel bound keeps its size from the header and gets no thumbnail, without being decoded", async () => {
    expect(await imageThumbnail(pngHeaderClaiming(60_000, 60_000))).toEqual({ width: 60_000, height: 60_000 })
  })

  test("bytes that are not a JPEG, PNG or WebP give no preview", async () => {
    expect(await imageThumbnail(new TextEncoder().encode("GIF89a not here"))).toBeNull()
  })

  test("a picture that cannot be decoded throws, so the send goes without a preview", async () => {
    await expect(imageThumbnail(pngHeaderClaiming(100, 100))).rejects.toThrow()
  })
})
