import decodeJpeg from "@jsquash/jpeg/decode.js"
import encodeJpeg from "@jsquash/jpeg/encode.js"
import encodePng from "@jsquash/png/encode.js"
import encodeWebp from "@jsquash/webp/encode.js"

/*
 * Pictures for the profile-picture tests, made in memory: three bands (red, blue, green) across
 * the longer side, so a centre crop of a landscape or portrait picture is all blue, and a square
 * one shows where its left (red) and right (green) edges ended up.
 */

export type PictureInput = "jpeg" | "png" | "webp"

const RED = [255, 0, 0]
const BLUE = [0, 0, 255]
const GREEN = [0, 255, 0]

/** An RGBA bitmap in three equal bands across the longer side: red, blue, green. */
export function bandedBitmap(width: number, height: number): ImageData {
  const data = new Uint8ClampedArray(width * height * 4)
  const landscape = width >= height
  const long = landscape ? width : height
  const third = Math.floor(long / 3)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const along = landscape ? x : y
      const colour = along < third ? RED : along >= long - third ? GREEN : BLUE
      data.set([...colour, 255], (y * width + x) * 4)
    }
  }
  return { data, width, height, colorSpace: "srgb" } as ImageData
}

/** The banded picture encoded as `format`. */
export async function bandedPicture(format: PictureInput, width: number, height: number): Promise<Uint8Array> {
  const bitmap = bandedBitmap(width, height)
  if (format === "webp") return new Uint8Array(await encodeWebp(bitmap))
  if (format === "png") return new Uint8Array(await encodePng(bitmap))
  return new Uint8Array(await encodeJpeg(bitmap, { quality: 90 }))
}

/**
 * `jpeg` with an EXIF segment (APP1, big-endian TIFF, one IFD entry) saying `orientation`, put
 * right after the start-of-image marker, where cameras write it.
 */
export function withOrientation(jpeg: Uint8Array, orientation: number): Uint8Array {
  const tiff = [0x4d, 0x4d, 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, orientation, 0, 0, 0, 0, 0, 0, 0, 0]
  const payload = [...new TextEncoder().encode("Exif\0\0"), ...tiff]
  const segment = [0xff, 0xe1, (payload.length + 2) >> 8, (payload.length + 2) & 0xff, ...payload]
  return new Uint8Array([...jpeg.subarray(0, 2), ...segment, ...jpeg.subarray(2)])
}

/** The RGB of the pixel at (x, y) of a JPEG. */
export async function pixelAt(jpeg: Uint8Array, x: number, y: number): Promise<[number, number, number]> {
  const image = await decodeJpeg(jpeg.slice().buffer)
  const i = (y * image.width + x) * 4
  return [image.data[i]!, image.data[i + 1]!, image.data[i + 2]!]
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
