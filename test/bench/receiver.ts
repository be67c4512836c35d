/**
 * A webhook receiver for the benchmark, in its own process so it does not share a core's event
 * loop with the load generator. It answers 500 until /switch is called, then 200, and reports
 * its counts at /stats, with when the latest event (by its own `timestamp`, the time it fell
 * due) was due and when the last event arrived, both in wall-clock milliseconds.
 */
const port = Number(process.argv[2] ?? 0)
const TIMESTAMP = /"timestamp":"([^"]+)"/
let ok = false
let received = 0
let succeeded = 0
let firstOkMs = 0
let lastOkMs = 0
let latestDueMs = 0
let lastArrivalMs = 0
const server = Bun.serve({
  port,
  hostname: "127.0.0.1",
  async fetch(req) {
    const url = new URL(req.url)
    if (url.pathname === "/switch") {
      ok = true
      return new Response("switched")
    }
    if (url.pathname === "/stats") return Response.json({ received, succeeded, firstOkMs, lastOkMs, latestDueMs, lastArrivalMs })
    const body = await req.text()
    received++
    if (!ok) return new Response("not yet", { status: 500 })
    succeeded++
    const now = performance.now()
    if (firstOkMs === 0) firstOkMs = now
    lastOkMs = now
    lastArrivalMs = Date.now()
    const due = TIMESTAMP.exec(body)?.[1]
    if (due) latestDueMs = Math.max(latestDueMs, Date.parse(due))
    return new Response("ok")
  },
})
console.log(`receiver listening on ${server.port}`)
