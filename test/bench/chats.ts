import type { ChatMessageRow } from "../../src/store/chats"
import type { PhoneRow } from "../../src/store/phones"
import { createHarness, type Harness } from "../helpers/harness"

/*
 * `bun run bench --only=chats` (issue 30, "Done when"): with 100,000 messages stored in 500 chats
 * (50,000 from history sync, 25,000 API sends, 25,000 received), how fast `GET /v1/chats` and a
 * chat's timeline page answer, on SQLite and on PostgreSQL (targets: p99 under 20 ms and 40 ms).
 * The history goes in through the store's batch API (recordHistoryBatch, 1,000 rows a write), as
 * the live adapter will write it, and its time and the process's RSS growth are reported too
 * (target: 50,000 messages in under 60 s, growth under 100 MiB). Requests are asked in process
 * (`app.handle`, no socket), `BENCH_CHAT_ROUNDS` times each: the figure is the whole request.
 */

const CHATS = 500
const HISTORY = 50_000
const SENDS = 25_000
const RECEIVED = 25_000
const ROUNDS = Number(process.env.BENCH_CHAT_ROUNDS ?? 300)
const BATCH = 1_000

export interface ChatFigures {
  database: "sqlite" | "postgres"
  messages: number
  historySeconds: number
  historyRssGrowthMiB: number
  list: { p50Ms: number; p95Ms: number; p99Ms: number }
  timeline: { p50Ms: number; p95Ms: number; p99Ms: number }
  /** The store's part alone (listChats, listTimeline), to tell the queries from the request around them. */
  storeList: { p50Ms: number; p95Ms: number; p99Ms: number }
  storeTimeline: { p50Ms: number; p95Ms: number; p99Ms: number }
}

const chatOf = (i: number) => `+1415${String(6_000_000 + (i % CHATS))}`

function historyRow(phone: PhoneRow, i: number): ChatMessageRow {
  const atMs = 1_700_000_000_000 + i * 1_000
  return {
    id: `wamsg_h${String(i).padStart(10, "0")}`, accountId: phone.accountId, env: "test", phoneId: phone.id, waMessageId: `HIST${i}`, chatId: chatOf(i),
    origin: "history", direction: i % 2 === 0 ? "in" : "out", fromAddress: i % 2 === 0 ? chatOf(i) : phone.phoneNumber, type: "text",
    content: `history message ${i} with a few words in it`, media: null, location: null, contact: null, poll: null, replyToId: null,
    status: null, editedAtMs: null, revokedAtMs: null, atMs, createdAtMs: atMs,
  }
}

async function storeHistory(h: Harness, phone: PhoneRow): Promise<{ seconds: number; rssGrowthMiB: number }> {
  Bun.gc(true)
  const rssBefore = process.memoryUsage().rss
  let rssPeak = rssBefore
  const started = performance.now()
  for (let at = 0; at < HISTORY; at += BATCH) {
    // A chunk is built, stored and dropped, as history sync streams it: never the whole history at once.
    const rows = Array.from({ length: BATCH }, (_, k) => historyRow(phone, at + k))
    await h.services.ctx.store.write((q) => q.recordHistoryBatch(rows))
    rssPeak = Math.max(rssPeak, process.memoryUsage().rss)
  }
  return { seconds: (performance.now() - started) / 1000, rssGrowthMiB: (rssPeak - rssBefore) / 1048576 }
}

async function storeLiveTraffic(h: Harness, phone: PhoneRow): Promise<void> {
  const base = 1_800_000_000_000
  for (let at = 0; at < SENDS; at += BATCH) {
    await h.services.ctx.store.write(async (q) => {
      for (let i = at; i < at + BATCH; i++) {
        const t = base + i * 1_000
        await q.insertMessage({
          id: `msg_b${String(i).padStart(10, "0")}`, accountId: phone.accountId, env: "test", phoneId: phone.id, apiKeyId: "key_bench", fromNumber: phone.phoneNumber,
          toAddress: chatOf(i), isGroup: false, content: `sent ${i}`, mediaUrls: [], status: "sent", idempotencyKey: null, requestFingerprint: "fp",
          createdAtMs: t, sentAtMs: t, deliveredAtMs: null, readAtMs: null, failedAtMs: null, errorCode: null, errorMessage: null, updatedAtMs: t,
        })
        await q.insertInbound({
          id: `inmsg_b${String(i).padStart(10, "0")}`, accountId: phone.accountId, env: "test", phoneId: phone.id, waMessageId: `IN${i}`, fromAddress: chatOf(i + 7),
          fromUsername: null, toNumber: phone.phoneNumber, content: `received ${i}`, type: "text", isGroup: false, groupId: null, receivedAtMs: t + 500,
          createdAtMs: t + 500, replyToId: null, media: null, mediaGoneAtMs: null, location: null, contact: null, editedAtMs: null, revokedAtMs: null,
        })
      }
    })
  }
}

async function percentiles(ask: () => Promise<void>): Promise<{ p50Ms: number; p95Ms: number; p99Ms: number }> {
  const times: number[] = []
  for (let r = 0; r < ROUNDS + 10; r++) {
    const started = performance.now()
    await ask()
    // The first rounds warm the JIT and the statement caches.
    if (r >= 10) times.push(performance.now() - started)
  }
  times.sort((a, b) => a - b)
  const at = (q: number) => times[Math.min(times.length - 1, Math.floor(q * times.length))]!
  return { p50Ms: at(0.5), p95Ms: at(0.95), p99Ms: at(0.99) }
}

async function chatsOn(database: "sqlite" | "postgres"): Promise<ChatFigures> {
  const h = await createHarness({ database })
  try {
    // Past the default per-key limit: the bench asks hundreds of times a second.
    const account = await h.seedAccount({ rateLimitPerMinute: 1_000_000 })
    const phone = await h.seedPhone(account.id)
    const key = await h.seedKey(account.id)
    const history = await storeHistory(h, phone)
    progress(`chats on ${database}: history stored in ${history.seconds.toFixed(1)} s`)
    await storeLiveTraffic(h, phone)
    progress(`chats on ${database}: sends and received messages stored`)
    const from = encodeURIComponent(phone.phoneNumber)
    const list = await percentiles(async () => {
      const res = await h.request("GET", `/v1/chats?fromPhoneId=${from}&limit=50`, { key })
      if (res.status !== 200 || res.body.data.chats.length !== 50) throw new Error(`the chat list answered ${res.status}`)
    })
    let round = 0
    const timeline = await percentiles(async () => {
      const chat = encodeURIComponent(chatOf(round++))
      const res = await h.request("GET", `/v1/chats/${chat}/messages?fromPhoneId=${from}&limit=50`, { key })
      if (res.status !== 200 || res.body.data.messages.length !== 50) throw new Error(`the timeline answered ${res.status}`)
    })
    const store = h.services.ctx.store
    const storeList = await percentiles(async () => void (await store.listChats({ phoneId: phone.id, env: "test", after: null, limit: 51 })))
    const storeTimeline = await percentiles(async () => void (await store.listTimeline({ phoneId: phone.id, env: "test", chatId: chatOf(round++), before: null, limit: 51 })))
    return { database, messages: HISTORY + SENDS + RECEIVED, historySeconds: history.seconds, historyRssGrowthMiB: history.rssGrowthMiB, list, timeline, storeList, storeTimeline }
  } finally {
    await h.close()
  }
}

let progress: (line: string) => void = () => {}

export async function benchChats(report: (line: string) => void): Promise<ChatFigures[]> {
  progress = report
  const only = process.env.BENCH_CHAT_DATABASE
  const figures: ChatFigures[] = []
  if (only !== "postgres") figures.push(await chatsOn("sqlite"))
  if (only !== "sqlite") figures.push(await chatsOn("postgres"))
  return figures
}

export function chatLines(figures: readonly ChatFigures[]): string[] {
  const ms = (n: number) => n.toFixed(1)
  return figures.flatMap((f) => {
    const target = f.database === "sqlite" ? 20 : 40
    const met = (p99: number) => (p99 < target ? "met" : "MISSED")
    return [
      `chats, ${f.messages} messages in ${CHATS} chats on ${f.database}: GET /v1/chats p50 ${ms(f.list.p50Ms)} / p95 ${ms(f.list.p95Ms)} / p99 ${ms(f.list.p99Ms)} ms (target p99 < ${target} ms, ${met(f.list.p99Ms)}); ` +
        `a timeline page p50 ${ms(f.timeline.p50Ms)} / p95 ${ms(f.timeline.p95Ms)} / p99 ${ms(f.timeline.p99Ms)} ms (${met(f.timeline.p99Ms)}), ${ROUNDS} rounds each; ` +
        `the store alone: listChats p50 ${ms(f.storeList.p50Ms)} / p99 ${ms(f.storeList.p99Ms)} ms, listTimeline p50 ${ms(f.storeTimeline.p50Ms)} / p99 ${ms(f.storeTimeline.p99Ms)} ms`,
      `history on ${f.database}: ${HISTORY} messages in ${CHATS} chats stored in ${f.historySeconds.toFixed(1)} s (target < 60 s), RSS growth ${f.historyRssGrowthMiB.toFixed(1)} MiB (target < 100 MiB)`,
    ]
  })
}
