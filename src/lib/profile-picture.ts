import { jpegOrientation } from "./exif-orientation"
import { readImageHeader } from "./image-dimensions"
import { collectingAfter, decodePicture, encodeJpeg, type Rgba } from "./picture-codecs"
import { orient, reduceRegion } from "./picture-pixels"
import { resample } from "./picture-resample"

/**
 * Profile and group pictures are square 640 × 640 JPEGs: WhatsApp Web crops and scales a chosen
 * picture to that before it sends the set-picture IQ, and Baileys does the same in
 * `generateProfilePicture` (node_modules/@whiskeysockets/baileys/lib/Utils/messages-media.js),
 * which also picks JPEG quality 50. wagate crops around the centre, as WhatsApp's own crop box
 * starts, rather than from the top-left corner as Baileys' jimp path does, and turns a JPEG upright
 * as its EXIF orientation says first, as WhatsApp shows it.
 */
export const PROFILE_PICTURE_SIDE = 640
const JPEG_QUALITY = 50

/**
 * The largest picture decoded: 25 megapixels (a 6000 × 4000 camera photo fits; 100 MB of RGBA while it is
 * decoded). The size is read from the header before decoding, so a small file that claims a larger
 * bitmap is refused before it costs that memory.
 */
export const MAX_PICTURE_PIXELS = 25_000_000

/** A converted picture, or why the bytes were refused, in a sentence for the API client. */
export type ProfileJpegResult =
  | { ok: true; jpeg: Uint8Array; width: number; height: number }
  | { ok: false; reason: "not_an_image" | "too_large"; message: string }

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
  const format = header.format
  return collectingAfter(async () => {
    let image: Rgba
    try {
      image = await decodePicture(bytes, format)
    } catch {
      return refusal("not_an_image", `the ${format.toUpperCase()} image could not be decoded`)
    }
    let square = centreSquare(image)
    if (square.width !== PROFILE_PICTURE_SIDE) square = resample(square, PROFILE_PICTURE_SIDE, PROFILE_PICTURE_SIDE)
    if (format === "jpeg") square = orient(square, jpegOrientation(bytes))
    const jpeg = await encodeJpeg(square, JPEG_QUALITY)
    return { ok: true, jpeg, width: PROFILE_PICTURE_SIDE, height: PROFILE_PICTURE_SIDE }
  })
}

/**
 * The largest centred square of `image`, already made as small as a whole factor allows while it
 * keeps at least 640 pixels a side (a 3000-pixel square is averaged 4 × 4 into 750): the
 * full-size bitmap is read once, and the filter that scales to exactly 640 only sees the result.
 * A square no larger than 640 is returned whole.
 */
function centreSquare(image: Rgba): Rgba {
  const side = Math.min(image.width, image.height)
  const factor = Math.max(1, Math.floor(side / PROFILE_PICTURE_SIDE))
  const kept = Math.floor(side / factor) * factor
  if (factor === 1 && image.width === image.height) return image
  const region = { x: Math.floor((image.width - kept) / 2), y: Math.floor((image.height - kept) / 2), width: kept, height: kept }
  return reduceRegion(image, region, factor)
}
