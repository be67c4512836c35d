import { jpegOrientation } from "./exif-orientation"
import { readImageHeader } from "./image-dimensions"
import { collectingAfter, decodePicture, encodeJpeg } from "./picture-codecs"
import { orient, reduceRegion } from "./picture-pixels"
import { resample } from "./picture-resample"
import { MAX_PICTURE_PIXELS } from "./profile-picture"

/**
 * The preview WhatsApp shows of an image message before it is downloaded: the picture scaled to
 * 32 pixels wide (its height in proportion) as a JPEG of quality 50, and the picture's own size,
 * as Baileys' `extractImageThumb` makes them
 * (node_modules/@whiskeysockets/baileys/lib/Utils/messages-media.js), with the same codecs as
 * profile pictures instead of the image library Baileys looks for. Sizes are as the picture is shown: a JPEG's EXIF orientation 5–8 swaps them.
 */
export const THUMBNAIL_WIDTH = 32
const THUMBNAIL_QUALITY = 50

export interface ImageThumbnail {
  width: number
  height: number
  /** Base64 JPEG; absent when the picture is over the pixel bound, whose size is still known from its header. */
  jpegThumbnail?: string
}

/** The thumbnail and size of a JPEG, PNG or WebP; `null` for anything else. Throws when the picture cannot be decoded. */
export async function imageThumbnail(bytes: Uint8Array, maxPixels = MAX_PICTURE_PIXELS): Promise<ImageThumbnail | null> {
  const header = readImageHeader(bytes)
  if (!header || header.width < 1 || header.height < 1) return null
  const orientation = header.format === "jpeg" ? jpegOrientation(bytes) : 1
  const turned = orientation >= 5
  const shown = turned ? { width: header.height, height: header.width } : { width: header.width, height: header.height }
  if (header.width * header.height > maxPixels) return shown
  const shownHeight = Math.max(1, Math.round((shown.height * THUMBNAIL_WIDTH) / shown.width))
  // The stored bitmap's target size: turned pictures are scaled before they are turned upright.
  const target = turned ? { width: shownHeight, height: THUMBNAIL_WIDTH } : { width: THUMBNAIL_WIDTH, height: shownHeight }
  const format = header.format
  return collectingAfter(async () => {
    const image = await decodePicture(bytes, format)
    const factor = Math.max(1, Math.min(Math.floor(image.width / target.width), Math.floor(image.height / target.height)))
    const reduced = reduceRegion(image, { x: 0, y: 0, width: image.width, height: image.height }, factor)
    const small = orient(resample(reduced, target.width, target.height), orientation)
    const jpeg = await encodeJpeg(small, THUMBNAIL_QUALITY)
    return { ...shown, jpegThumbnail: Buffer.from(jpeg).toString("base64") }
  })
}
