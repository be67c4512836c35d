/**
 * Reads an image's format and pixel size from its header alone, before anything is decoded, so a
 * small file that would decode to a huge bitmap (a decompression bomb) is refused without the
 * memory it would cost. Only the formats a picture may be converted from are known: JPEG, PNG and
 * WebP, the still formats WhatsApp itself accepts for a profile picture.
 */

/** The still image formats `readImageHeader` recognises. */
export type PictureFormat = "jpeg" | "png" | "webp"

/** What the header says; `null` when the bytes are not one of the known formats or the header is cut short. */
export interface ImageHeader {
  format: PictureFormat
  width: number
  height: number
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]

function startsWith(bytes: Uint8Array, prefix: readonly number[], at = 0): boolean {
  if (bytes.length < at + prefix.length) return false
  return prefix.every((b, i) => bytes[at + i] === b)
}

function ascii(bytes: Uint8Array, at: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(at, at + length))
}

function be16(b: Uint8Array, at: number): number {
  return (b[at]! << 8) | b[at + 1]!
}

function le16(b: Uint8Array, at: number): number {
  return b[at]! | (b[at + 1]! << 8)
}

function le24(b: Uint8Array, at: number): number {
  return b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16)
}

function pngHeader(b: Uint8Array): ImageHeader | null {
  if (b.length < 24 || ascii(b, 12, 4) !== "IHDR") return null
  const view = new DataView(b.buffer, b.byteOffset, b.byteLength)
  return { format: "png", width: view.getUint32(16), height: view.getUint32(20) }
}

/** A start-of-frame marker: C0–CF except DHT (C4), JPG (C8) and DAC (CC), which carry no size. */
function isStartOfFrame(marker: number): boolean {
  return marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc
}

/** Walks the JPEG's marker segments up to the first start-of-frame, which holds the size. */
function jpegHeader(b: Uint8Array): ImageHeader | null {
  let at = 2
  while (at + 4 <= b.length) {
    if (b[at] !== 0xff) return null
    const marker = b[at + 1]!
    if (marker === 0xff) {
      at += 1
      continue
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2
      continue
    }
    if (marker === 0xd9 || marker === 0xda) return null
    if (isStartOfFrame(marker)) {
      if (at + 9 > b.length) return null
      return { format: "jpeg", height: be16(b, at + 5), width: be16(b, at + 7) }
    }
    at += 2 + be16(b, at + 2)
  }
  return null
}

/** The three WebP flavours keep their size in different places: lossy (VP8), lossless (VP8L), extended (VP8X). */
function webpHeader(b: Uint8Array): ImageHeader | null {
  if (b.length < 30) return null
  const chunk = ascii(b, 12, 4)
  if (chunk === "VP8 " && startsWith(b, [0x9d, 0x01, 0x2a], 23)) {
    return { format: "webp", width: le16(b, 26) & 0x3fff, height: le16(b, 28) & 0x3fff }
  }
  if (chunk === "VP8L" && b[20] === 0x2f) {
    const bits = b[21]! | (b[22]! << 8) | (b[23]! << 16) | (b[24]! << 24)
    return { format: "webp", width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 }
  }
  if (chunk === "VP8X") return { format: "webp", width: le24(b, 24) + 1, height: le24(b, 27) + 1 }
  return null
}

/** The format and size an image's header declares, or `null` for anything else. */
export function readImageHeader(bytes: Uint8Array): ImageHeader | null {
  if (startsWith(bytes, PNG_SIGNATURE)) return pngHeader(bytes)
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return jpegHeader(bytes)
  if (bytes.length >= 12 && ascii(bytes, 0, 4) === "RIFF" && ascii(bytes, 8, 4) === "WEBP") return webpHeader(bytes)
  return null
}
