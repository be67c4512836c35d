import { describe, expect, test } from "bun:test"
import { jpegOrientation } from "../../src/lib/exif-orientation"
import type { Rgba } from "../../src/lib/picture-codecs"
import { orient, reduceRegion } from "../../src/lib/picture-pixels"
import { resample } from "../../src/lib/picture-resample"
import { withOrientation } from "../helpers/pictures"

/** A bitmap whose pixel (x, y) has red x, green y, blue `blue` and full alpha. */
function coordinates(width: number, height: number, blue = 0): Rgba {
  const data = new Uint8ClampedArray(width * height * 4)
  for (let y = 0; y < height; y++) for (let x = 0; x < width; x++) data.set([x, y, blue, 255], (y * width + x) * 4)
  return { data, width, height }
}

const pixel = (image: Rgba, x: number, y: number) => [...image.data.subarray((y * image.width + x) * 4, (y * image.width + x) * 4 + 4)]

describe("reduceRegion", () => {
  test("each output pixel is the rounded mean of the block it covers, within the region only", () => {
    const out = reduceRegion(coordinates(10, 8), { x: 1, y: 2, width: 6, height: 4 }, 2)
    expect({ width: out.width, height: out.height }).toEqual({ width: 3, height: 2 })
    // Block (0, 0) covers x 1–2 and y 2–3: means 1.5 and 2.5, rounded half to even by the clamped array.
    expect([pixel(out, 0, 0), pixel(out, 2, 1)]).toEqual([[2, 2, 0, 255], [6, 4, 0, 255]])
  })

  test("a factor of 1 copies the region", () => {
    const out = reduceRegion(coordinates(5, 5), { x: 2, y: 1, width: 2, height: 3 }, 1)
    expect([out.width, out.height, pixel(out, 0, 0), pixel(out, 1, 2)]).toEqual([2, 3, [2, 1, 0, 255], [3, 3, 0, 255]])
  })
})

describe("resample", () => {
  const cases: { name: string; from: [number, number]; to: [number, number] }[] = [
    { name: "scaling down by less than 2", from: [750, 700], to: [640, 640] },
    { name: "scaling up", from: [150, 50], to: [640, 640] },
    { name: "keeping the size", from: [64, 64], to: [64, 64] },
  ]
  for (const c of cases) {
    test(`${c.name} keeps a flat colour exactly and gives the asked size`, () => {
      const flat: Rgba = { data: new Uint8ClampedArray(c.from[0] * c.from[1] * 4).fill(77), width: c.from[0], height: c.from[1] }
      const out = resample(flat, ...c.to)
      expect({ width: out.width, height: out.height, values: [...new Set(out.data)] }).toEqual({ width: c.to[0], height: c.to[1], values: [77] })
    })
  }

  test("scaling down by 2 averages neighbours, so a gradient stays a gradient", () => {
    const out = resample(coordinates(200, 200), 100, 100)
    expect([pixel(out, 0, 0)[0], pixel(out, 50, 0)[0], pixel(out, 99, 99)[1]]).toEqual([1, 100, 198])
  })
})

describe("orient", () => {
  test("orientation 6 turns a stored 3 × 2 bitmap clockwise into 2 × 3, its stored left column on top", () => {
    const out = orient(coordinates(3, 2), 6)
    expect([out.width, out.height, pixel(out, 0, 0), pixel(out, 1, 0), pixel(out, 1, 2)]).toEqual([2, 3, [0, 1, 0, 255], [0, 0, 0, 255], [2, 0, 0, 255]])
  })

  test("orientation 1 or an unknown value leaves the bitmap as it is", () => {
    const image = coordinates(3, 2)
    expect([orient(image, 1), orient(image, 9), orient(image, 0)]).toEqual([image, image, image])
  })
})

describe("jpegOrientation", () => {
  const jpeg = new Uint8Array([0xff, 0xd8, 0xff, 0xdb, 0, 4, 0, 0, 0xff, 0xda, 0, 2])
  const littleEndian = (value: number) => {
    const tiff = [0x49, 0x49, 42, 0, 8, 0, 0, 0, 1, 0, 0x12, 0x01, 3, 0, 1, 0, 0, 0, value, 0, 0, 0]
    const payload = [...new TextEncoder().encode("Exif\0\0"), ...tiff]
    return new Uint8Array([0xff, 0xd8, 0xff, 0xe1, 0, payload.length + 2, ...payload, ...jpeg.subarray(2)])
  }
  const cases: { name: string; bytes: Uint8Array; orientation: number }[] = [
    { name: "a JPEG without EXIF", bytes: jpeg, orientation: 1 },
    { name: "big-endian EXIF saying 6", bytes: withOrientation(jpeg, 6), orientation: 6 },
    { name: "little-endian EXIF saying 8", bytes: littleEndian(8), orientation: 8 },
    { name: "an orientation out of range (9)", bytes: withOrientation(jpeg, 9), orientation: 1 },
    { name: "EXIF cut short inside its IFD", bytes: withOrientation(jpeg, 6).subarray(0, 24), orientation: 1 },
  ]
  for (const c of cases) {
    test(`${c.name} reads as ${c.orientation}`, () => expect(jpegOrientation(c.bytes)).toBe(c.orientation))
  }
})
