export {}

/*
 * Times GET requests to one URL every 50 ms in a process of its own, so the simulator's crypto in
 * the bench process does not delay the measurement. Usage: `bun probe.ts URL [BEARER]`; on
 * SIGTERM it prints the latencies (ms) as one JSON array and exits.
 */
const [url, bearer] = process.argv.slice(2)
if (!url) throw new Error("usage: bun probe.ts URL [BEARER]")
const headers: Record<string, string> = bearer ? { authorization: `Bearer ${bearer}` } : {}
const latenciesMs: number[] = []
let running = true
process.on("SIGTERM", () => {
  running = false
})
// The first request of a fresh process pays for connection setup and route compilation; not counted.
await (await fetch(url, { headers })).arrayBuffer()
console.error("probe ready")
while (running) {
  const startedAt = performance.now()
  const res = await fetch(url, { headers })
  await res.arrayBuffer()
  if (res.status !== 200) throw new Error(`${url}: ${res.status}`)
  latenciesMs.push(performance.now() - startedAt)
  await Bun.sleep(50)
}
console.log(JSON.stringify(latenciesMs))
