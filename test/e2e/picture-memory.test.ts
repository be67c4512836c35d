import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import encodeJpeg from "@jsquash/jpeg/encode.js"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

/*
 * What converting a camera-sized photo costs in memory, measured in a fresh process
 * (test/bench/picture-convert.ts, the bench's own converter) so the peak is the conversion's own:
 * a 4000 × 3000 JPEG converted three times in a row. The old pure-JavaScript path peaked at about
 * 760 MB, and without the collection after each conversion the dropped decoders piled up to about
 * 310 MB; the bound leaves room for a busier allocator than the 150–160 MB measured.
 */

// Spawns processes: see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const PEAK_BOUND_MIB = 250
let dir = ""
let photo = ""

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "wagate-picture-memory-"))
  photo = join(dir, "photo.jpg")
  const width = 4000
  const height = 3000
  const data = new Uint8ClampedArray(width * height * 4)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) data.set([(x * 255) / width, (y * 255) / height, (x ^ y) & 63, 255], (y * width + x) * 4)
  }
  writeFileSync(photo, new Uint8Array(await encodeJpeg({ data, width, height } as ImageData, { quality: 90, baseline: true, progressive: false })))
}, SLOW_HOOK_TIMEOUT_MS)

afterAll(() => rmSync(dir, { recursive: true, force: true }), SLOW_HOOK_TIMEOUT_MS)

test(`three 12-megapixel JPEG conversions in a row stay under ${PEAK_BOUND_MIB} MiB peak RSS and give their memory back`, async () => {
  const run = Bun.spawn([process.execPath, join(import.meta.dir, "..", "bench", "picture-convert.ts"), photo, "3"], { stdout: "pipe", stderr: "pipe" })
  const [code, out, err] = await Promise.all([run.exited, new Response(run.stdout).text(), new Response(run.stderr).text()])
  if (code !== 0) throw new Error(`the converter failed (exit ${code}):\n${err}`)
  const figures = JSON.parse(out) as { peakRssMiB: number; startRssMiB: number; afterRssMiB: number }
  expect({ peakUnderBound: figures.peakRssMiB < PEAK_BOUND_MIB, keptUnder50MiB: figures.afterRssMiB - figures.startRssMiB < 50, figures }).toMatchObject({ peakUnderBound: true, keptUnder50MiB: true })
}, 120_000)
