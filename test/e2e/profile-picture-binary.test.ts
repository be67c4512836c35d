import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { readImageHeader } from "../../src/lib/image-dimensions"
import { BUILD_TIMEOUT_MS } from "../helpers/binary"
import { bandedPicture, type PictureInput } from "../helpers/pictures"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

/*
 * The picture conversion inside a compiled executable: the JPEG, PNG and WebP codecs are
 * WebAssembly imported as embedded files (src/lib/picture-codecs.ts), so they must load from the
 * executable's own file system, with no node_modules beside it. The program is built from a small entry
 * (profile-picture-entry.ts) with the same flags as `bun run build`, which costs seconds rather
 * than the full server's build, and run from an empty directory.
 */

// Spawns processes: see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const REPO = join(import.meta.dir, "..", "..")
let dir = ""
let program = ""

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "wagate-picture-bin-"))
  program = join(dir, "convert")
  const build = Bun.spawn(
    [process.execPath, "build", "--compile", "--minify", "--bytecode", "--format=esm", "--no-compile-autoload-dotenv", "--no-compile-autoload-bunfig", join(import.meta.dir, "profile-picture-entry.ts"), "--outfile", program],
    { cwd: REPO, stdout: "pipe", stderr: "pipe" },
  )
  const [code, err] = await Promise.all([build.exited, new Response(build.stderr).text()])
  if (code !== 0) throw new Error(`bun build --compile failed (exit ${code}):\n${err}`)
}, BUILD_TIMEOUT_MS)

afterAll(() => rmSync(dir, { recursive: true, force: true }), SLOW_HOOK_TIMEOUT_MS)

async function convert(bytes: Uint8Array): Promise<{ printed: Record<string, unknown>; output: string }> {
  const input = join(dir, `in-${crypto.randomUUID()}`)
  const output = `${input}.jpg`
  writeFileSync(input, bytes)
  const run = Bun.spawn([program, input, output], { cwd: dir, stdout: "pipe", stderr: "pipe" })
  const [code, out, err] = await Promise.all([run.exited, new Response(run.stdout).text(), new Response(run.stderr).text()])
  if (code !== 0) throw new Error(`the compiled converter failed (exit ${code}):\n${err}`)
  return { printed: JSON.parse(out) as Record<string, unknown>, output }
}

describe("the compiled executable converts pictures", () => {
  for (const format of ["jpeg", "png", "webp"] as PictureInput[]) {
    test(`a ${format.toUpperCase()} becomes a 640 × 640 JPEG and gets a 32-pixel-wide thumbnail`, async () => {
      const { printed, output } = await convert(await bandedPicture(format, 1500, 500))
      expect(printed).toEqual({ ok: true, width: 640, height: 640, thumbnail: { format: "jpeg", width: 32, height: 11 } })
      expect(readImageHeader(new Uint8Array(readFileSync(output)))).toEqual({ format: "jpeg", width: 640, height: 640 })
    }, SLOW_TEST_TIMEOUT_MS)
  }

  test("a file that is not an image is refused with the readable sentence", async () => {
    const { printed } = await convert(new TextEncoder().encode("plain text"))
    expect(printed).toMatchObject({ ok: false, reason: "not_an_image", message: "the file is not a JPEG, PNG or WebP image" })
  }, SLOW_TEST_TIMEOUT_MS)
})
