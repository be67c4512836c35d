import type { Rgba } from "./picture-codecs"

/*
 * Pixel work done in plain JavaScript on decoded bitmaps, where it costs one pass and no copy
 * into a WebAssembly memory: cutting a region while reducing it by a whole factor, and turning a
 * bitmap upright as its EXIF orientation says.
 */

/** A rectangle of a bitmap, in pixels. */
export interface Region {
  x: number
  y: number
  width: number
  height: number
}

/**
 * `region` of `image` made `factor` times smaller on each side, every output pixel the mean of the
 * factor × factor block it covers (a box filter: exact for whole factors, and it reads every source
 * pixel once). Rows and columns that do not fill a whole block are left out. A factor of 1 copies
 * the region.
 */
export function reduceRegion(image: Rgba, region: Region, factor: number): Rgba {
  const width = Math.floor(region.width / factor)
  const height = Math.floor(region.height / factor)
  const src = image.data
  const out = new Uint8ClampedArray(width * height * 4)
  const sums = new Uint32Array(width * 4)
  const area = factor * factor
  const rowLength = width * 4
  for (let oy = 0; oy < height; oy++) {
    sums.fill(0)
    for (let dy = 0; dy < factor; dy++) {
      let i = ((region.y + oy * factor + dy) * image.width + region.x) * 4
      for (let o = 0; o < rowLength; o += 4) {
        let r = 0
        let g = 0
        let b = 0
        let a = 0
        for (let dx = 0; dx < factor; dx++, i += 4) {
          r += src[i]!
          g += src[i + 1]!
          b += src[i + 2]!
          a += src[i + 3]!
        }
        sums[o] = sums[o]! + r
        sums[o + 1] = sums[o + 1]! + g
        sums[o + 2] = sums[o + 2]! + b
        sums[o + 3] = sums[o + 3]! + a
      }
    }
    const base = oy * rowLength
    // A Uint8ClampedArray rounds on assignment, so the mean is rounded, not truncated.
    for (let j = 0; j < rowLength; j++) out[base + j] = sums[j]! / area
  }
  return { data: out, width, height }
}

/**
 * `image` turned upright as EXIF orientation `orientation` (1–8, TIFF 6.0 tag 274) says: for each
 * upright pixel, where it is in the stored bitmap. 5 to 8 swap width and height.
 */
export function orient(image: Rgba, orientation: number): Rgba {
  if (orientation < 2 || orientation > 8) return image
  const { width: w, height: h } = image
  const swap = orientation >= 5
  const outW = swap ? h : w
  const outH = swap ? w : h
  const src = new Uint32Array(image.data.buffer, image.data.byteOffset, w * h)
  const data = new Uint8ClampedArray(w * h * 4)
  const dst = new Uint32Array(data.buffer)
  for (let y = 0; y < outH; y++) {
    for (let x = 0; x < outW; x++) {
      const [sx, sy] = storedPoint(orientation, x, y, outW, outH)
      dst[y * outW + x] = src[sy * w + sx]!
    }
  }
  return { data, width: outW, height: outH }
}

/** Where upright pixel (x, y) of an upright bitmap `w` × `h` is in the stored bitmap. */
function storedPoint(orientation: number, x: number, y: number, w: number, h: number): [number, number] {
  switch (orientation) {
    case 2: return [w - 1 - x, y] // mirrored left to right
    case 3: return [w - 1 - x, h - 1 - y] // upside down
    case 4: return [x, h - 1 - y] // mirrored top to bottom
    case 5: return [y, x] // transposed
    case 6: return [y, w - 1 - x] // stored turned a quarter anticlockwise: shown turned clockwise
    case 7: return [h - 1 - y, w - 1 - x] // transversed
    default: return [h - 1 - y, x] // 8: stored turned a quarter clockwise: shown turned anticlockwise
  }
}
