import { pairWithQr } from "./baileys-client"
import { historyChunks, historyTotals } from "./history-builder"
import { trustMediaHostInFetch } from "./media-trust"
import { startWaSim } from "./sim"

/*
 * Measures a full history sync from the simulator into unmodified Baileys in this process:
 * `bun test/wa-sim/history-measure.ts [chats] [messages]` (default 500 chats, 50,000 messages).
 * Prints how long the phone took to send every chunk, how long until Baileys had emitted every
 * message, how many `messaging-history.set` events that took, and the process's RSS before and at
 * its peak (sampled every 50 ms) and after a forced GC at the end, which covers the simulator and
 * Baileys together.
 */

const chats = Number(process.argv[2] ?? 500)
const messages = Number(process.argv[3] ?? 50_000)
const sim = await startWaSim({ advSecretRotation: false })
const restore = trustMediaHostInFetch(sim)
const account = sim.primary("+15550001111").account
const world = { me: { phoneNumber: account.phoneNumber, lid: account.lid }, nowMs: Date.now(), chats, messages }
const total = historyTotals(world).messages
sim.history.onLink("+15550001111", () => ({ chunks: historyChunks(world), receiptTimeoutMs: 60_000 }))
Bun.gc(true)
const rssBefore = process.memoryUsage().rss
const heapBefore = process.memoryUsage().heapUsed
let peak = rssBefore
const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50)
const started = performance.now()
const { first, client } = await pairWithQr(sim, "+15550001111", { shouldSyncHistoryMessage: () => true, syncFullHistory: true })
const seen = new Set<string>()
let events = 0
client.sock.ev.on("messaging-history.set", (set) => {
  events++
  for (const message of set.messages) seen.add(message.key.id!)
  // TestClient keeps every event for assertions; a measurement of the sync must not count that.
  client.historySets.splice(0)
})
const result = await sim.history.automatic[0]!
const sentMs = performance.now() - started
await client.waitFor(() => (seen.size === total ? true : undefined), `${total} messages`, 120_000)
const doneMs = performance.now() - started
clearInterval(sampler)
Bun.gc(true)
const rssAfterGc = process.memoryUsage().rss
const heapAfterGc = process.memoryUsage().heapUsed
const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1)
console.log(
  JSON.stringify({ chats, messages: total, chunks: result.chunks.length, events, sentMs: Math.round(sentMs), allEmittedMs: Math.round(doneMs), rssBeforeMiB: mib(rssBefore), rssPeakMiB: mib(peak), growthMiB: mib(peak - rssBefore), rssAfterGcMiB: mib(rssAfterGc - rssBefore), heapRetainedMiB: mib(heapAfterGc - heapBefore) }),
)
await client.end()
await first.end()
restore()
await sim.stop()
