import encodeWebp from "@jsquash/webp/encode.js"
import { Jimp } from "jimp"

/*
 * Pictures for the profile-picture tests, made in memory: three vertical bands (red, blue, green)
 * so a centre crop of a landscape picture is all blue, and a top band pattern for portraits.
 */

export type PictureInput = "jpeg" | "png" | "webp"

const RED = 0xff0000ff
const BLUE = 0x0000ffff
const GREEN = 0x00ff00ff

/** An RGBA bitmap in three equal bands across the longer side: red, blue, green. */
export function bandedBitmap(width: number, height: number): { data: Buffer; width: number; height: number } {
  const image = new Jimp({ width, height, color: BLUE })
  const landscape = width >= height
  const third = Math.floor((landscape ? width : height) / 3)
  image.scan(0, 0, width, height, (x, y, idx) => {
    const along = landscape ? x : y
    const colour = along < third ? RED : along >= (landscape ? width : height) - third ? GREEN : BLUE
    image.bitmap.data.writeUInt32BE(colour, idx)
  })
  return image.bitmap
}

/** The banded picture encoded as `format`. */
export async function bandedPicture(format: PictureInput, width: number, height: number): Promise<Uint8Array> {
  const bitmap = bandedBitmap(width, height)
  if (format === "webp") {
    const data = new Uint8ClampedArray(bitmap.data.buffer, bitmap.data.byteOffset, bitmap.data.byteLength)
    return new Uint8Array(await encodeWebp({ data, width, height, colorSpace: "srgb" } as ImageData))
  }
  const image = Jimp.fromBitmap(bitmap)
  return new Uint8Array(format === "png" ? await image.getBuffer("image/png") : await image.getBuffer("image/jpeg", { quality: 90 }))
}

/** The RGB of the pixel at (x, y) of an encoded picture. */
export async function pixelAt(bytes: Uint8Array, x: number, y: number): Promise<[number, number, number]> {
  const image = await Jimp.fromBuffer(Buffer.from(bytes))
  const idx = image.getPixelIndex(x, y)
  const d = image.bitmap.data
  return [d[idx]!, d[idx + 1]!, d[idx + 2]!]
}

/** A PNG that is only a signature and an IHDR declaring `width` × `height`: a few bytes claiming a huge bitmap. */
export function pngHeaderClaiming(width: number, height: number): Uint8Array {
  const bytes = new Uint8Array(33)
  bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52])
  const view = new DataView(bytes.buffer)
  view.setUint32(16, width)
  view.setUint32(20, height)
  bytes.set([8, 6, 0, 0, 0], 24)
  return bytes
}
