import { readFileSync, writeFileSync } from "node:fs"
import { toProfileJpeg } from "../../src/lib/profile-picture"

/*
 * A tiny program compiled by test/e2e/profile-picture-binary.test.ts with the flags of
 * `bun run build`: it converts the picture named by its first argument into the file named by its
 * second and prints the result, proving the image library and the embedded WebP WebAssembly load
 * inside a `bun build --compile` executable.
 */
const [input, output] = process.argv.slice(2)
const result = await toProfileJpeg(new Uint8Array(readFileSync(input!)))
if (result.ok) writeFileSync(output!, result.jpeg)
console.log(JSON.stringify(result.ok ? { ok: true, width: result.width, height: result.height } : result))
