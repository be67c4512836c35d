import { readFileSync, writeFileSync } from "node:fs"
import { readImageHeader } from "../../src/lib/image-dimensions"
import { imageThumbnail } from "../../src/lib/image-thumbnail"
import { toProfileJpeg } from "../../src/lib/profile-picture"

/*
 * A tiny program compiled by test/e2e/profile-picture-binary.test.ts with the flags of
 * `bun run build`: it converts the picture named by its first argument into the file named by its
 * second, makes its thumbnail, and prints both results, proving the embedded JPEG, PNG and WebP
 * WebAssembly load inside a `bun build --compile` executable.
 */
const [input, output] = process.argv.slice(2)
const bytes = new Uint8Array(readFileSync(input!))
const result = await toProfileJpeg(bytes)
if (result.ok) writeFileSync(output!, result.jpeg)
const thumbnail = result.ok ? await imageThumbnail(bytes) : null
const thumbnailSize = thumbnail?.jpegThumbnail ? readImageHeader(new Uint8Array(Buffer.from(thumbnail.jpegThumbnail, "base64"))) : null
console.log(JSON.stringify(result.ok ? { ok: true, width: result.width, height: result.height, thumbnail: thumbnailSize } : result))
