/**
 * A webhook receiver for the benchmark, in its own process so it does not share a core's event
 * loop with the load generator. It answers 500 until /switch is called, then 200, and reports
 * its counts at /stats.
 */
const port = Number(process.argv[2] ?? 0)
let ok = false
let received = 0
let succeeded = 0
let firstOkMs = 0
let lastOkMs = 0
const server = Bun.serve({
  port,
  hostname: "127.0.0.1",
  async fetch(req) {
    const url = new URL(req.url)
    if (url.pathname === "/switch") {
      ok = true
      return new Response("switched")
    }
    if (url.pathname === "/stats") return Response.json({ received, succeeded, firstOkMs, lastOkMs })
    await req.arrayBuffer()
    received++
    if (!ok) return new Response("not yet", { status: 500 })
    succeeded++
    const now = performance.now()
    if (firstOkMs === 0) firstOkMs = now
    lastOkMs = now
    return new Response("ok")
  },
})
console.log(`receiver listening on ${server.port}`)
