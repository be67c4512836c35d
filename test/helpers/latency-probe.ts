/*
 * Times requests to a running server from its own process, so what it measures is how long the
 * server took to answer, not how busy the caller was: `bun test/helpers/latency-probe.ts URL
 * BEARER WARMUP_MS DURATION_MS INTERVAL_MS` requests URL one at a time, pausing INTERVAL_MS
 * between two, for WARMUP_MS (not counted: the probe's own first requests compile its code) and
 * then DURATION_MS, and prints `{ "latenciesMs": [...], "failures": n }`.
 */
export {}

const [url, bearer, warmupText, durationText, intervalText] = process.argv.slice(2)
const intervalMs = Number(intervalText)
let latenciesMs: number[] = []
let failures = 0
const warmEndMs = performance.now() + Number(warmupText)
const endMs = warmEndMs + Number(durationText)
let warm = false
while (performance.now() < endMs) {
  if (!warm && performance.now() >= warmEndMs) {
    warm = true
    latenciesMs = []
    failures = 0
  }
  const t0 = performance.now()
  try {
    const res = await fetch(url!, { headers: { authorization: `Bearer ${bearer}` } })
    await res.arrayBuffer()
    if (res.status === 200) latenciesMs.push(performance.now() - t0)
    else failures++
  } catch {
    failures++
  }
  await Bun.sleep(intervalMs)
}
console.log(JSON.stringify({ latenciesMs, failures }))
