import { mkdtempSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { recordHistoryChunk } from "../../src/domain/history-sync"
import { setHistorySettings } from "../../src/domain/history-settings"
import { silentLogger } from "../../src/lib/logger"
import { systemClock } from "../../src/lib/clock"
import { createBaileysGateway } from "../../src/whatsapp/baileys/gateway"
import type { SessionEvents, WhatsAppSession } from "../../src/whatsapp/gateway"
import { createHarness } from "../helpers/harness"
import { TestClock } from "../helpers/test-clock"
import { waitUntil } from "../helpers/webhook-receiver"
import { startWaSim, trustMediaHostInFetch } from "../wa-sim"
import { historyChunks, historyTotals } from "../wa-sim/history-builder"
import { Hooks, poll } from "../e2e-live/live-world"
import { startTlsWorld } from "../e2e-live/tls-world"

/*
 * `bun run bench --only=historySync` (issue 30, "Done when": a history of 50,000 messages in 500
 * chats stored in under 60 s with peak RSS growth under 100 MiB), through the whole live path in
 * one process: the simulator's phone uploads the history as WhatsApp does (an inline bootstrap,
 * push names, RECENT and FULL chunks of 1,000 messages as encrypted zlib blobs on its media host,
 * test/wa-sim/history-builder.ts streams them), unmodified Baileys receives the notifications,
 * wagate's adapter downloads, decrypts, inflates and maps each chunk (history-ingest.ts), and the
 * domain stores it (history-sync.ts). Time runs from the QR scan to the last chunk stored; RSS is
 * sampled every 50 ms from before pairing, and covers the simulator and Baileys too.
 */

const ME = "+15550121111"
const WARM = "+15550121112"

export interface HistorySyncFigures {
  database: "sqlite" | "postgres"
  /** `none`: the baseline run (see historyOn); `process`: wagate in its own process (benchHistorySyncProcess). */
  mode: "full" | "none" | "process"
  chats: number
  messages: number
  chunks: number
  stored: number
  seconds: number
  rssGrowthMiB: number
}

/**
 * One sync into a fresh store. With `historySync: "none"` wagate stores nothing and its adapter
 * reads no chunk, while the simulator still builds, encrypts and sends every chunk and Baileys
 * still receives them: that run is the baseline the simulator and Baileys cost in this process.
 */
async function historyOn(database: "sqlite" | "postgres", mode: "full" | "none", progress: (line: string) => void): Promise<HistorySyncFigures> {
  const clock = new TestClock(Date.now())
  // SQLite on a file, as in production: an in-memory database would count the stored history as growth.
  const dir = mkdtempSync(join(tmpdir(), "wagate-bench-history-"))
  const h = await createHarness({ database, clock, ...(database === "sqlite" ? { databasePath: join(dir, "wagate.db") } : {}) })
  const sim = await startWaSim({ advSecretRotation: false })
  const untrust = trustMediaHostInFetch(sim)
  let session: WhatsAppSession | undefined
  try {
    const account = await h.seedAccount()
    const phone = await h.seedPhone(account.id, ME)
    await setHistorySettings(h.services.ctx, phone.id, { historySync: mode, historyDays: 3650 })
    const simAccount = sim.primary(ME).account
    const world = { me: { phoneNumber: simAccount.phoneNumber, lid: simAccount.lid }, nowMs: clock.nowMs() }
    sim.history.onLink(ME, () => ({ chunks: historyChunks(world), inlineBootstrap: true, receiptTimeoutMs: 60_000 }))
    let reported = 0
    let stored = 0
    let connected = false
    const gateway = createBaileysGateway({ store: h.services.ctx.store, clock: systemClock(), logger: silentLogger, wsUrl: sim.wsUrl })
    const events = (): SessionEvents => ({
      connecting() {},
      qr: (qr) => void sim.primary(ME).scanQr(qr),
      pairingCode() {},
      scanned() {},
      connected: () => void (connected = true),
      disconnected: (info) => {
        if (!info.final) start(false)
      },
      partAcked() {},
      partRejected() {},
      receipt() {},
      inbound() {},
      historyChunk: async (chunk) => {
        stored += await recordHistoryChunk(h.services.ctx, phone.id, chunk)
        reported++
      },
    })
    const start = (pair: boolean) => {
      session = gateway.session(phone.id, events())
      session.connect(pair ? { method: "qr" } : undefined)
    }
    Bun.gc(true)
    const rssBefore = process.memoryUsage().rss
    let peak = rssBefore
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 50)
    const started = performance.now()
    start(true)
    await waitUntil(() => connected, 30_000, "the phone to connect")
    const result = await sim.history.automatic[0]!
    if (mode === "full") await waitUntil(() => reported >= result.chunks.length, 120_000, "every chunk stored")
    const seconds = (performance.now() - started) / 1000
    clearInterval(sampler)
    progress(`historySync on ${database} (${mode}): ${result.chunks.length} chunks, ${stored} messages stored in ${seconds.toFixed(1)} s`)
    const totals = historyTotals(world)
    return { database, mode, chats: totals.chats, messages: totals.messages, chunks: result.chunks.length, stored, seconds, rssGrowthMiB: (peak - rssBefore) / 2 ** 20 }
  } finally {
    await session?.close()
    untrust()
    await sim.stop()
    await h.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

export async function benchHistorySync(progress: (line: string) => void): Promise<HistorySyncFigures[]> {
  const only = process.env.BENCH_CHAT_DATABASE
  const figures: HistorySyncFigures[] = []
  if (only !== "postgres") figures.push(await benchHistorySyncProcess(progress), await historyOn("sqlite", "full", progress), await historyOn("sqlite", "none", progress))
  if (only !== "sqlite") figures.push(await historyOn("postgres", "full", progress))
  return figures
}

export function historySyncLines(figures: readonly HistorySyncFigures[]): string[] {
  return figures.map((f) =>
    f.mode === "process"
      ? `history sync into wagate as its own process (bun src/main.ts serve over the TLS front): ${f.messages} messages in ${f.chats} chats (${f.chunks} chunks, ${f.stored} stored) in ${f.seconds.toFixed(1)} s ` +
        `(target < 60 s${f.seconds < 60 ? ", met" : ", MISSED"}), peak RSS growth of wagate's process ${f.rssGrowthMiB.toFixed(1)} MiB (target < 100 MiB${f.rssGrowthMiB < 100 ? ", met" : ", MISSED"})`
      : f.mode === "none"
      ? `history sync baseline (historySync none: the simulator sends, Baileys receives, wagate stores nothing): ${f.chunks} chunks in ${f.seconds.toFixed(1)} s, peak RSS growth ${f.rssGrowthMiB.toFixed(1)} MiB`
      :
      `history sync through the adapter on ${f.database}: ${f.messages} messages in ${f.chats} chats (${f.chunks} chunks, ${f.stored} stored) in ${f.seconds.toFixed(1)} s ` +
        `(target < 60 s${f.seconds < 60 ? ", met" : ", MISSED"}), peak RSS growth ${f.rssGrowthMiB.toFixed(1)} MiB (target < 100 MiB${f.rssGrowthMiB < 100 ? ", met" : ", MISSED"}; simulator included)`,
  )
}

/** The child's resident set, from /proc. */
function childRssBytes(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]
  return Number(kb) * 1024
}

/**
 * The same sync into wagate as its own process (`bun src/main.ts serve` over the simulator's TLS
 * front, test/e2e-live/tls-world.ts), its RSS sampled from /proc every 50 ms: the simulator's
 * cost stays in this process, so the growth is wagate's alone (Baileys, ingestion, SQLite on its
 * data directory, the webhook outbox for `history.synced`). Time runs from the QR scan to the
 * `history.synced` of the last chunk.
 */
export async function benchHistorySyncProcess(progress: (line: string) => void): Promise<HistorySyncFigures> {
  const world = await startTlsWorld({ command: undefined, keyName: "bench", scopes: ["messages:read"] })
  const hooks = new Hooks()
  let sampler: ReturnType<typeof setInterval> | undefined
  try {
    const { sim, wagate } = world
    const endpoint = await wagate.adminOk("POST", `/accounts/${wagate.accountId}/webhooks`, { url: hooks.url, environment: "live", events: ["history.synced"] })
    hooks.secret = endpoint.secret
    const simAccount = sim.primary(ME).account
    const world50k = { me: { phoneNumber: simAccount.phoneNumber, lid: simAccount.lid }, nowMs: Date.now() }
    sim.history.onLink(ME, () => ({ chunks: historyChunks(world50k), inlineBootstrap: true, receiptTimeoutMs: 60_000 }))
    // A phone paired first, without history, loads Baileys and warms the process as a running wagate is.
    const warm: string = (await wagate.adminOk("POST", `/accounts/${wagate.accountId}/phones`, { phoneNumber: WARM })).id
    await wagate.adminOk("PUT", `/phones/${warm}/history-settings`, { historySync: "none" })
    await wagate.adminOk("POST", `/phones/${warm}/connect`, { method: "qr" })
    await sim.primary(WARM).scanShownQr(async () => (await wagate.adminOk("GET", `/phones/${warm}/pairing`)).qr ?? undefined)
    await world.api.phoneWithStatus(warm, "connected", 30_000)
    const phoneId: string = (await wagate.adminOk("POST", `/accounts/${wagate.accountId}/phones`, { phoneNumber: ME })).id
    await wagate.adminOk("PUT", `/phones/${phoneId}/history-settings`, { historySync: "full", historyDays: 3650 })
    const pid = wagate.proc.proc.pid
    const rssBefore = childRssBytes(pid)
    let peak = rssBefore
    sampler = setInterval(() => (peak = Math.max(peak, childRssBytes(pid))), 50)
    const started = performance.now()
    await wagate.adminOk("POST", `/phones/${phoneId}/connect`, { method: "qr" })
    await sim.primary(ME).scanShownQr(async () => (await wagate.adminOk("GET", `/phones/${phoneId}/pairing`)).qr ?? undefined)
    await world.api.phoneWithStatus(phoneId, "connected", 30_000)
    const result = await poll(() => sim.history.automatic[0], "the phone's history sync to start", 30_000).then((sync) => sync)
    const events = await poll(() => (hooks.matching("history.synced").length >= result.chunks.length ? hooks.matching("history.synced") : undefined), "every history.synced", 120_000)
    const seconds = (performance.now() - started) / 1000
    clearInterval(sampler)
    const stored = events.reduce((sum, e) => sum + e.data.messages, 0)
    progress(`historySync in its own process: ${result.chunks.length} chunks, ${stored} messages stored in ${seconds.toFixed(1)} s`)
    const totals = historyTotals(world50k)
    return { database: "sqlite", mode: "process", chats: totals.chats, messages: totals.messages, chunks: result.chunks.length, stored, seconds, rssGrowthMiB: (peak - rssBefore) / 2 ** 20 }
  } finally {
    clearInterval(sampler)
    await hooks.stop()
    await world.stop()
  }
}
