import { readFileSync } from "node:fs"

/*
 * One process of the pictures case (test/bench/pictures.ts): converts the file named by its first
 * argument `times` times (second argument) with the `toProfileJpeg` of the module named by
 * BENCH_PICTURE_MODULE (this checkout's src/lib/profile-picture.ts unless set, so another build's
 * converter can be measured the same way) and prints each conversion's time, the process's peak
 * RSS (VmHWM) and its RSS once the conversions are over and the heap collected.
 */
const modulePath = process.env.BENCH_PICTURE_MODULE ?? new URL("../../src/lib/profile-picture.ts", import.meta.url).pathname
const { toProfileJpeg } = (await import(modulePath)) as typeof import("../../src/lib/profile-picture")
const [input, times = "1"] = process.argv.slice(2)
const bytes = new Uint8Array(readFileSync(input!))

function statusMiB(field: "VmHWM" | "VmRSS"): number {
  const kb = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync("/proc/self/status", "utf8"))?.[1]
  return Number(kb) / 1024
}

const startRssMiB = statusMiB("VmRSS")
const ms: number[] = []
for (let i = 0; i < Number(times); i++) {
  const started = performance.now()
  const result = await toProfileJpeg(bytes)
  ms.push(performance.now() - started)
  if (!result.ok) throw new Error(result.message)
}
Bun.gc(true)
console.log(JSON.stringify({ ms, startRssMiB, peakRssMiB: statusMiB("VmHWM"), afterRssMiB: statusMiB("VmRSS") }))
