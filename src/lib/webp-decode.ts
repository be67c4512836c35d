import decode, { init } from "@jsquash/webp/decode.js"
import wasmPath from "@jsquash/webp/codec/dec/webp_dec.wasm" with { type: "file" }

/**
 * WebP decoding through libwebp compiled to WebAssembly (@jsquash/webp). The .wasm file is
 * imported as a file so `bun build --compile` embeds it in the executable; it is read and
 * compiled once, on the first WebP picture, and handed to the codec, which would otherwise look
 * for the file beside its own script (absent inside the executable).
 */
let ready: Promise<void> | undefined

async function load(): Promise<void> {
  const module = await WebAssembly.compile(await Bun.file(wasmPath).arrayBuffer())
  await (init as unknown as (module: WebAssembly.Module) => Promise<void>)(module)
}

/** The RGBA bitmap of a WebP file; throws when libwebp cannot decode it. */
export async function decodeWebp(bytes: Uint8Array): Promise<{ data: Uint8ClampedArray; width: number; height: number }> {
  ready ??= load()
  await ready
  const copy = bytes.slice()
  return decode(copy.buffer)
}
