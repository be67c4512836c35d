import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import encodeJpeg from "@jsquash/jpeg/encode.js"
import encodePng from "@jsquash/png/encode.js"
import encodeWebp from "@jsquash/webp/encode.js"

/*
 * `bun run bench --only=pictures`: what converting an uploaded picture into WhatsApp's 640 × 640
 * JPEG (src/lib/profile-picture.ts) costs, each input in a fresh `bun` process
 * (test/bench/picture-convert.ts) so its peak RSS is the conversion's own. Inputs are made here:
 * a 4000 × 3000 "photo" (smooth gradients with a little noise, as a camera's JPEG compresses), the
 * same size of random noise (the worst case for a decoder: nothing compresses), the photo as PNG
 * and as WebP, and a 6000 × 4000 photo at the 25-megapixel bound. The first conversion in a
 * process includes loading the codecs; `BENCH_PICTURE_TIMES` (default 3) conversions are timed
 * and the RSS after them shows what the process keeps.
 */

const TIMES = Number(process.env.BENCH_PICTURE_TIMES ?? 3)

export interface PictureFigures {
  input: string
  fileMiB: number
  ms: number[]
  peakRssMiB: number
  startRssMiB: number
  afterRssMiB: number
}

function bitmap(width: number, height: number, noise: number): ImageData {
  const data = new Uint8ClampedArray(width * height * 4)
  let seed = 12345
  const random = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) >>> 16) & 0xff
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4
      const n = noise === 255 ? 0 : 1
      data[i] = n * ((x * 255) / width) + ((random() * noise) >> 8)
      data[i + 1] = n * ((y * 255) / height) + ((random() * noise) >> 8)
      data[i + 2] = n * (((x + y) * 128) / (width + height) + 64) + ((random() * noise) >> 8)
      data[i + 3] = 255
    }
  }
  return { data, width, height, colorSpace: "srgb" } as ImageData
}

async function inputs(dir: string): Promise<{ name: string; path: string; bytes: number }[]> {
  const photo = bitmap(4000, 3000, 24)
  const made: [string, ArrayBuffer][] = [
    ["JPEG photo 4000 × 3000", await encodeJpeg(photo, { quality: 90 })],
    ["JPEG noise 4000 × 3000 (worst case)", await encodeJpeg(bitmap(4000, 3000, 255), { quality: 90 })],
    ["PNG photo 4000 × 3000", await encodePng(photo)],
    ["WebP photo 4000 × 3000", await encodeWebp(photo, { quality: 90 })],
    ["JPEG photo 6000 × 4000 (at the 25 MP bound)", await encodeJpeg(bitmap(6000, 4000, 24), { quality: 90 })],
  ]
  return made.map(([name, bytes], i) => {
    const path = join(dir, `input-${i}`)
    writeFileSync(path, new Uint8Array(bytes))
    return { name, path, bytes: bytes.byteLength }
  })
}

export async function benchPictures(progress: (text: string) => void): Promise<PictureFigures[]> {
  const dir = mkdtempSync(join(tmpdir(), "wagate-bench-pictures-"))
  try {
    progress("pictures: making the inputs")
    const figures: PictureFigures[] = []
    for (const input of await inputs(dir)) {
      progress(`pictures: ${input.name}`)
      const run = Bun.spawn(["bun", join(import.meta.dir, "picture-convert.ts"), input.path, String(TIMES)], { stdout: "pipe", stderr: "inherit" })
      const [code, out] = await Promise.all([run.exited, new Response(run.stdout).text()])
      if (code !== 0) throw new Error(`converting ${input.name} failed (exit ${code})`)
      figures.push({ input: input.name, fileMiB: input.bytes / 2 ** 20, ...(JSON.parse(out) as Omit<PictureFigures, "input" | "fileMiB">) })
    }
    return figures
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

export function pictureLines(figures: readonly PictureFigures[]): string[] {
  const f = (n: number) => n.toFixed(0)
  return [
    "| picture | file | first conversion | next ones | peak RSS | RSS after |",
    "| --- | --- | --- | --- | --- | --- |",
    ...figures.map(
      (p) =>
        `| ${p.input} | ${p.fileMiB.toFixed(1)} MiB | ${f(p.ms[0]!)} ms | ${p.ms.slice(1).map(f).join(", ") || "–"} ms | ${f(p.peakRssMiB)} MiB | ${f(p.afterRssMiB)} MiB (${f(p.startRssMiB)} at start) |`,
    ),
  ]
}
