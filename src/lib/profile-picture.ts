import { readImageHeader, type ImageHeader } from "./image-dimensions"
import { decodeWebp } from "./webp-decode"

/**
 * Profile and group pictures are square 640 × 640 JPEGs: WhatsApp Web crops and scales a chosen
 * picture to that before it sends the set-picture IQ, and Baileys does the same in
 * `generateProfilePicture` (node_modules/@whiskeysockets/baileys/lib/Utils/messages-media.js),
 * which also picks JPEG quality 50. wagate crops around the centre, as WhatsApp's own crop box
 * starts, rather than from the top-left corner as Baileys' jimp path does.
 */
export const PROFILE_PICTURE_SIDE = 640
const JPEG_QUALITY = 50

/**
 * The largest picture decoded: 25 megapixels (a 6000 × 4000 camera photo fits; 100 MB of RGBA while it is
 * scaled). The size is read from the header before decoding, so a small file that claims a larger
 * bitmap is refused before it costs that memory.
 */
export const MAX_PICTURE_PIXELS = 25_000_000

/** A converted picture, or why the bytes were refused, in a sentence for the API client. */
export type ProfileJpegResult =
  | { ok: true; jpeg: Uint8Array; width: number; height: number }
  | { ok: false; reason: "not_an_image" | "too_large"; message: string }

/** The jimp image type, named without importing jimp at load time (it is loaded on first use). */
type JimpImage = Awaited<ReturnType<(typeof import("jimp"))["Jimp"]["fromBuffer"]>>

async function decode(bytes: Uint8Array, header: ImageHeader): Promise<JimpImage> {
  const { Jimp } = await import("jimp")
  if (header.format === "webp") {
    const bitmap = await decodeWebp(bytes)
    return Jimp.fromBitmap({ data: Buffer.from(bitmap.data.buffer), width: bitmap.width, height: bitmap.height })
  }
  return Jimp.fromBuffer(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))
}

function refusal(reason: "not_an_image" | "too_large", message: string): ProfileJpegResult {
  return { ok: false, reason, message }
}

/**
 * Converts an uploaded picture (JPEG, PNG or WebP) into what WhatsApp shows as a profile or group
 * picture: the largest centred square, scaled to 640 × 640 (a smaller square is scaled up, as
 * WhatsApp Web does), as a JPEG. Never throws: a file that is not one of those images, or whose
 * header declares more than `maxPixels`, is refused with a readable message.
 */
export async function toProfileJpeg(bytes: Uint8Array, maxPixels = MAX_PICTURE_PIXELS): Promise<ProfileJpegResult> {
  const header = readImageHeader(bytes)
  if (!header) return refusal("not_an_image", "the file is not a JPEG, PNG or WebP image")
  if (header.width < 1 || header.height < 1) return refusal("not_an_image", "the image declares no pixels")
  if (header.width * header.height > maxPixels) {
    return refusal(
      "too_large",
      `the image is ${header.width} × ${header.height} pixels; at most ${maxPixels / 1_000_000} megapixels are accepted`,
    )
  }
  let image: JimpImage
  try {
    image = await decode(bytes, header)
  } catch {
    return refusal("not_an_image", `the ${header.format.toUpperCase()} image could not be decoded`)
  }
  const side = Math.min(image.width, image.height)
  image.crop({ x: Math.floor((image.width - side) / 2), y: Math.floor((image.height - side) / 2), w: side, h: side })
  image.resize({ w: PROFILE_PICTURE_SIDE, h: PROFILE_PICTURE_SIDE })
  const jpeg = await image.getBuffer("image/jpeg", { quality: JPEG_QUALITY })
  return { ok: true, jpeg: new Uint8Array(jpeg), width: PROFILE_PICTURE_SIDE, height: PROFILE_PICTURE_SIDE }
}
