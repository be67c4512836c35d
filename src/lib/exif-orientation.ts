/**
 * The EXIF orientation of a JPEG (TIFF 6.0 tag 274, 0x0112: 1 upright, 2–8 mirrored or turned),
 * read from its APP1 "Exif" segment without decoding the picture. Phones store a portrait photo as
 * a landscape bitmap with orientation 6, so a picture is turned upright before it is cropped, as
 * WhatsApp shows it. 1 when the file has no orientation or the segment is malformed.
 */
export function jpegOrientation(b: Uint8Array): number {
  let at = 2
  while (at + 4 <= b.length && b[at] === 0xff) {
    const marker = b[at + 1]!
    const length = (b[at + 2]! << 8) | b[at + 3]!
    // Start of scan or end of image: the metadata segments all come before.
    if (marker === 0xda || marker === 0xd9) return 1
    if (marker === 0xe1 && length >= 8 && String.fromCharCode(...b.subarray(at + 4, at + 10)) === "Exif\0\0") {
      return tiffOrientation(b.subarray(at + 10, Math.min(b.length, at + 2 + length)))
    }
    at += 2 + length
  }
  return 1
}

function tiffOrientation(tiff: Uint8Array): number {
  if (tiff.length < 8) return 1
  const view = new DataView(tiff.buffer, tiff.byteOffset, tiff.byteLength)
  const little = tiff[0] === 0x49 && tiff[1] === 0x49
  if (!little && !(tiff[0] === 0x4d && tiff[1] === 0x4d)) return 1
  const ifd = view.getUint32(4, little)
  if (ifd + 2 > tiff.length) return 1
  const entries = view.getUint16(ifd, little)
  for (let i = 0; i < entries; i++) {
    const entry = ifd + 2 + i * 12
    if (entry + 12 > tiff.length) return 1
    if (view.getUint16(entry, little) === 0x0112) {
      const value = view.getUint16(entry + 8, little)
      return value >= 1 && value <= 8 ? value : 1
    }
  }
  return 1
}
