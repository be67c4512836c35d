import { initEmscriptenModule } from "@jsquash/jpeg/utils.js"
import mozjpegDecoder from "@jsquash/jpeg/codec/dec/mozjpeg_dec.js"
import jpegDecWasm from "@jsquash/jpeg/codec/dec/mozjpeg_dec.wasm" with { type: "file" }
import encodeJpegWith, { init as initJpegEncoder } from "@jsquash/jpeg/encode.js"
import jpegEncWasm from "@jsquash/jpeg/codec/enc/mozjpeg_enc.wasm" with { type: "file" }
import initPng, { decode as decodePngWith } from "@jsquash/png/codec/pkg/squoosh_png.js"
import pngWasm from "@jsquash/png/codec/pkg/squoosh_png_bg.wasm" with { type: "file" }
import webpDecoder from "@jsquash/webp/codec/dec/webp_dec.js"
import webpDecWasm from "@jsquash/webp/codec/dec/webp_dec.wasm" with { type: "file" }
import { createGarbagePacer } from "./garbage-pacer"

/*
 * The picture codecs, each a registry package's prebuilt WebAssembly (docs/dependencies.md
 * § "Image conversion (profile and group pictures)"): mozjpeg decodes and encodes JPEG, the Rust png crate decodes PNG and
 * libwebp decodes WebP. Each .wasm is imported as a file so `bun build --compile` embeds it; it is
 * read and compiled once, on first use, and handed to the package, which would otherwise look for
 * it beside its own script (absent in the executable).
 *
 * A WebAssembly memory only grows: an instance that decoded a 24-megapixel photo keeps those
 * 100 MB for as long as it lives. The JPEG and WebP decoders (Emscripten) therefore get a new
 * instance of their compiled module for each picture, dropped once it is decoded, and collected
 * with its memory. The PNG decoder (wasm-bindgen) has one instance per process, so a process
 * keeps the memory of the largest PNG it decoded; the encoder only ever sees 640 × 640 pictures
 * or thumbnails, so its memory stays small.
 */

/** An RGBA bitmap, 4 bytes a pixel, rows top to bottom. */
export interface Rgba {
  data: Uint8ClampedArray
  width: number
  height: number
}

const compiled = new Map<string, Promise<WebAssembly.Module>>()

function compile(path: string): Promise<WebAssembly.Module> {
  let module = compiled.get(path)
  if (!module) {
    module = Bun.file(path).arrayBuffer().then((bytes) => WebAssembly.compile(bytes))
    compiled.set(path, module)
  }
  return module
}

/** libjpeg's warnings about a damaged file ("Premature end of JPEG file") would go to stderr; the refusal says it instead. */
const SILENT = { print: () => {}, printErr: () => {} }

type Decoder = { decode(data: BufferSource, ...options: boolean[]): Rgba | null }
type InitEmscripten = (factory: unknown, module: WebAssembly.Module, options: typeof SILENT) => Promise<Decoder>

/** Decodes `bytes` with a new instance of an Emscripten decoder; throws when it cannot. */
async function decodeOnce(factory: unknown, wasmPath: string, bytes: Uint8Array, ...options: boolean[]): Promise<Rgba> {
  const decoder = await (initEmscriptenModule as unknown as InitEmscripten)(factory, await compile(wasmPath), SILENT)
  const image = decoder.decode(bytes.slice(), ...options)
  if (!image) throw new Error("the decoder refused the picture")
  return image
}

/** The JPEG's RGBA pixels as stored (the caller applies the EXIF orientation); throws when mozjpeg cannot decode it. */
export function decodeJpeg(bytes: Uint8Array): Promise<Rgba> {
  // preserveOrientation false: the orientation is applied after scaling (src/lib/picture-pixels.ts), on far fewer pixels.
  return decodeOnce(mozjpegDecoder, jpegDecWasm, bytes, false)
}

/** The WebP's RGBA pixels; throws when libwebp cannot decode it. */
export function decodeWebp(bytes: Uint8Array): Promise<Rgba> {
  return decodeOnce(webpDecoder, webpDecWasm, bytes)
}

let pngReady: Promise<unknown> | undefined

/** The PNG's pixels as 8-bit RGBA (16-bit channels, palettes and grey are converted); throws when it cannot be decoded. */
export async function decodePng(bytes: Uint8Array): Promise<Rgba> {
  pngReady ??= compile(pngWasm).then((module) => initPng(module))
  await pngReady
  return decodePngWith(bytes)
}

/** The RGBA pixels of a picture whose header was read; throws when its codec cannot decode it. */
export function decodePicture(bytes: Uint8Array, format: "jpeg" | "png" | "webp"): Promise<Rgba> {
  if (format === "jpeg") return decodeJpeg(bytes)
  if (format === "png") return decodePng(bytes)
  return decodeWebp(bytes)
}

let encoderReady: Promise<void> | undefined

/** A baseline JPEG of `image` at `quality` (0–100); the alpha channel is dropped. */
export async function encodeJpeg(image: Rgba, quality: number): Promise<Uint8Array> {
  type Init = (module: WebAssembly.Module, options: typeof SILENT) => Promise<void>
  encoderReady ??= compile(jpegEncWasm).then((module) => (initJpegEncoder as unknown as Init)(module, SILENT))
  await encoderReady
  const jpeg = await encodeJpegWith({ ...image, colorSpace: "srgb" } as ImageData, { quality, baseline: true, progressive: false })
  return new Uint8Array(jpeg)
}

/**
 * Runs `work` (a conversion) and then, if it raised RSS by more than the media allowance
 * (src/lib/garbage-pacer.ts), collects the garbage it left: a dropped decoder instance holds its
 * whole WebAssembly memory and the full-size bitmap is dead too, but Bun lets several of them wait
 * before it collects by itself (three 12-megapixel conversions in a row peaked at 390 MB rather
 * than 150). A full collection costs 20 to 30 ms, against hundreds for the decode.
 */
export async function collectingAfter<T>(work: () => Promise<T>): Promise<T> {
  const pacer = createGarbagePacer({ checkEveryBytes: 1 })
  const result = await work()
  pacer.passed(1)
  return result
}
