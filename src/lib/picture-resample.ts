import type { Rgba } from "./picture-codecs"

/*
 * Scaling a bitmap to an exact size with a triangle (bilinear) filter whose width follows the
 * scale, as Pillow's and libvips' resamplers do: scaling down, each output pixel is a weighted mean
 * of the source pixels it covers; scaling up, it is the bilinear blend of its nearest four. It is
 * separable (rows, then columns) with the weights computed once per axis. It runs after the whole-
 * factor box reduction (src/lib/picture-pixels.ts), so it only ever scales by less than 2 down, on
 * at most 1280 × 1280 pixels, where plain JavaScript is faster than a round trip through a
 * WebAssembly resizer.
 */

/** For each output position along one axis: the first source index and the weights from there. */
interface Taps {
  first: Int32Array
  count: Int32Array
  weights: Float64Array
  stride: number
}

function taps(inSize: number, outSize: number): Taps {
  const scale = inSize / outSize
  const support = Math.max(1, scale)
  const stride = Math.ceil(support) * 2 + 1
  const first = new Int32Array(outSize)
  const count = new Int32Array(outSize)
  const weights = new Float64Array(outSize * stride)
  for (let o = 0; o < outSize; o++) {
    const centre = (o + 0.5) * scale
    const lo = Math.max(0, Math.floor(centre - support))
    const hi = Math.min(inSize, Math.ceil(centre + support), lo + stride)
    let total = 0
    for (let i = lo; i < hi; i++) {
      const w = Math.max(0, 1 - Math.abs((i + 0.5 - centre) / support))
      weights[o * stride + i - lo] = w
      total += w
    }
    for (let i = lo; i < hi; i++) weights[o * stride + i - lo]! /= total
    first[o] = lo
    count[o] = hi - lo
  }
  return { first, count, weights, stride }
}

/**
 * Applies `t` along one axis: `step` is the distance between neighbouring source pixels on that
 * axis and `lines` the lines across it (`lineStep` apart in the source, `outLineStep` in the output).
 */
function pass(src: Uint8ClampedArray, out: Uint8ClampedArray, t: Taps, geometry: { step: number; lines: number; lineStep: number; outStep: number; outLineStep: number }): void {
  const { step, lines, lineStep, outStep, outLineStep } = geometry
  for (let line = 0; line < lines; line++) {
    for (let o = 0; o < t.first.length; o++) {
      let r = 0
      let g = 0
      let b = 0
      let a = 0
      let at = line * lineStep + t.first[o]! * step
      const base = o * t.stride
      for (let k = 0; k < t.count[o]!; k++, at += step) {
        const w = t.weights[base + k]!
        r += src[at]! * w
        g += src[at + 1]! * w
        b += src[at + 2]! * w
        a += src[at + 3]! * w
      }
      const to = line * outLineStep + o * outStep
      out[to] = r
      out[to + 1] = g
      out[to + 2] = b
      out[to + 3] = a
    }
  }
}

/** `image` scaled to exactly `width` × `height`. */
export function resample(image: Rgba, width: number, height: number): Rgba {
  // Rows first: the intermediate is `width` wide and as tall as the source.
  const across = new Uint8ClampedArray(width * image.height * 4)
  pass(image.data, across, taps(image.width, width), { step: 4, lines: image.height, lineStep: image.width * 4, outStep: 4, outLineStep: width * 4 })
  const data = new Uint8ClampedArray(width * height * 4)
  pass(across, data, taps(image.height, height), { step: width * 4, lines: width, lineStep: 4, outStep: width * 4, outLineStep: 4 })
  return { data, width, height }
}
