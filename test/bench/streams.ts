import { loadavg } from "node:os"
import { runLoad, type LoadResult } from "./loadgen"
import { adminClient, type PhonesBenchTools } from "./phones"

/*
 * `bun run bench --only=streams` (issue 31): 1,000 open `GET /v1/events` streams on one node
 * (SQLite, the server in its own process, real sockets to 127.0.0.1, read by this process).
 * - fan-out: sandbox sends paced through the API; for each send's `message.sent`, the time from
 *   the send's request (its commit is inside it) to the last of the 1,000 streams receiving it;
 * - RSS per idle stream: the server's RSS with the streams open and quiet, minus before, / 1,000;
 * - API p99: `GET /v1/messages?limit=20` under load (16 connections, the median of three runs of
 *   5 s), before the streams, with them open and quiet, and after they closed.
 * Streams per key are limited to 5 (docs/webhooks.md § "Streams"), so the streams use 200 keys.
 * `BENCH_STREAM_TRANSPORT=websocket` opens `GET /v1/events/ws` WebSockets instead (Bun's client).
 */

const STREAMS = Number(process.env.BENCH_STREAMS ?? 1_000)
const SENDS = Number(process.env.BENCH_STREAM_SENDS ?? 100)
const SEND_GAP_MS = 50
const LOAD_SECONDS = Number(process.env.BENCH_STREAM_LOAD_SECONDS ?? 5)
const PHONE = "+14155550123"
const TRANSPORT = process.env.BENCH_STREAM_TRANSPORT === "websocket" ? "websocket" : "sse"

export interface StreamFigures {
  transport: "sse" | "websocket"
  streams: number
  sends: number
  fanOutP50Ms: number
  fanOutP99Ms: number
  fanOutMaxMs: number
  rssBeforeMiB: number
  rssIdleStreamsMiB: number
  rssPerIdleStreamKiB: number
  apiWithout: LoadResult
  apiWith: LoadResult
  apiAfter: LoadResult
  /** The 1-minute load average at the start and at the end (the box is shared). */
  load: [number, number]
}

/** One open stream: when each sent message's `message.sent` reached it. */
interface OpenStream {
  connected: Promise<void>
  received: Map<string, number>
  abort(): void
}

/**
 * A stream over a raw socket: fetch would queue past its 256 connections per process, and a
 * stream never ends to free one. Frames are enqueued whole, so a message id is never split by
 * the chunked encoding's size lines; only its tail may still be coming.
 */
function openStream(base: string, key: string): OpenStream {
  const { hostname, port } = new URL(base)
  const received = new Map<string, number>()
  const decoder = new TextDecoder()
  let text = ""
  let socket: { end(): void } | undefined
  let connected!: () => void
  let failed!: (err: Error) => void
  const ready = new Promise<void>((resolve, reject) => ((connected = resolve), (failed = reject)))
  let open = false
  void Bun.connect({
    hostname,
    port: Number(port),
    socket: {
      open(s) {
        socket = s
        s.write(`GET /v1/events?types=message.sent HTTP/1.1\r\nHost: ${hostname}\r\nAccept: text/event-stream\r\nAuthorization: Bearer ${key}\r\n\r\n`)
      },
      data(_s, chunk) {
        const now = performance.now()
        text += decoder.decode(chunk, { stream: true })
        if (!open) {
          if (!text.includes(": connected")) {
            if (/^HTTP\/1\.1 (?!200)/.test(text)) failed(new Error(`a stream was refused: ${text.slice(0, 200)}`))
            return
          }
          open = true
          connected()
        }
        for (const m of text.matchAll(/"messageId":"(\w+)"/g)) received.set(m[1]!, now)
        text = text.slice(Math.max(0, text.length - 100))
      },
      error: (_s, err) => failed(err),
      close: () => failed(new Error("a stream closed")),
    },
  }).catch(failed)
  return { connected: ready, received, abort: () => socket?.end() }
}

/** A WebSocket stream: open once the upgrade succeeded (the socket itself says it is live). */
function openWebSocket(base: string, key: string): OpenStream {
  const received = new Map<string, number>()
  // The key in the URL, as a browser's WebSocket has no headers (docs/webhooks.md § "WebSocket").
  const ws = new WebSocket(`${base.replace(/^http/, "ws")}/v1/events/ws?types=message.sent&access_token=${key}`)
  const connected = new Promise<void>((resolve, reject) => {
    ws.onopen = () => resolve()
    ws.onerror = () => reject(new Error("a WebSocket stream was refused or failed"))
  })
  ws.onmessage = (message) => {
    const now = performance.now()
    const id = /"messageId":"(\w+)"/.exec(String(message.data))?.[1]
    if (id) received.set(id, now)
  }
  return { connected, received, abort: () => ws.close() }
}

/** The run with the median p99 of three. */
async function medianLoad(spec: Omit<Parameters<typeof runLoad>[0], "durationSeconds">): Promise<LoadResult> {
  const runs: LoadResult[] = []
  for (let i = 0; i < 3; i++) runs.push(await runLoad({ ...spec, durationSeconds: LOAD_SECONDS }))
  return runs.sort((a, b) => a.p99Ms - b.p99Ms)[1]!
}

const at = (sorted: readonly number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!

export async function benchStreams(tools: Pick<PhonesBenchTools, "startWagate" | "stopProc" | "rssMiB" | "tempDir" | "progress">): Promise<StreamFigures> {
  const load0 = loadavg()[0]!
  const wagate = await tools.startWagate(tools.tempDir(), {})
  const streams: OpenStream[] = []
  try {
    const accountId = /Account: +(acc_\w+)/.exec(wagate.out)![1]!
    const sendKey = /Sandbox key: +(sk_test_\w+)/.exec(wagate.out)![1]!
    const admin = adminClient(() => wagate.base, /Admin token: +(adm_\w+)/.exec(wagate.out)![1]!)
    await admin("POST", `/accounts/${accountId}/phones`, { phoneNumber: PHONE })
    const keys: string[] = []
    for (let i = 0; i < Math.ceil(STREAMS / 5); i++) keys.push((await admin("POST", `/accounts/${accountId}/keys`, { environment: "test", name: `stream ${i}`, scopes: ["events:read"] })).key)
    const headers = { authorization: `Bearer ${sendKey}`, "content-type": "application/json" }
    const send = async (n: number) => {
      const res = await fetch(`${wagate.base}/v1/messages/send`, { method: "POST", headers, body: JSON.stringify({ fromPhoneId: PHONE, to: "+14155550199", content: `bench ${n}` }) })
      if (res.status !== 201) throw new Error(`a send answered ${res.status}`)
      return ((await res.json()) as { data: { id: string } }).data.id
    }
    for (let i = 0; i < 50; i++) await send(i)
    const api = { url: `${wagate.base}/v1/messages?limit=20`, method: "GET" as const, headers, connections: 16 }
    tools.progress("streams: API load without streams")
    await runLoad({ ...api, durationSeconds: 2 })
    const apiWithout = await medianLoad(api)
    await Bun.sleep(1_000)
    const rssBeforeMiB = tools.rssMiB(wagate.proc.pid)
    tools.progress(`streams: opening ${STREAMS} streams`)
    const open = TRANSPORT === "websocket" ? openWebSocket : openStream
    for (let i = 0; i < STREAMS; i++) streams.push(open(wagate.base, keys[Math.floor(i / 5)]!))
    await Promise.all(streams.map((s) => s.connected))
    await Bun.sleep(3_000)
    const rssIdleStreamsMiB = tools.rssMiB(wagate.proc.pid)
    tools.progress("streams: fan-out")
    const sentAt = new Map<string, number>()
    for (let n = 0; n < SENDS; n++) {
      const started = performance.now()
      sentAt.set(await send(1_000 + n), started)
      await Bun.sleep(SEND_GAP_MS)
    }
    const deadline = performance.now() + 30_000
    while (streams.some((s) => s.received.size < SENDS) && performance.now() < deadline) await Bun.sleep(100)
    const lags: number[] = []
    for (const [id, started] of sentAt) {
      const last = Math.max(...streams.map((s) => s.received.get(id) ?? Number.POSITIVE_INFINITY))
      lags.push(last - started)
    }
    lags.sort((a, b) => a - b)
    // The sandbox's delivered and read events of the last sends (3 s after them) have flowed.
    await Bun.sleep(4_000)
    tools.progress("streams: API load with the streams open")
    const apiWith = await medianLoad(api)
    // Again without them, the server as warm as with them: the first baseline ran on a younger process.
    for (const s of streams.splice(0)) s.abort()
    await Bun.sleep(2_000)
    tools.progress("streams: API load after the streams closed")
    const apiAfter = await medianLoad(api)
    return {
      transport: TRANSPORT,
      streams: STREAMS,
      sends: SENDS,
      fanOutP50Ms: at(lags, 0.5),
      fanOutP99Ms: at(lags, 0.99),
      fanOutMaxMs: lags.at(-1)!,
      rssBeforeMiB,
      rssIdleStreamsMiB,
      rssPerIdleStreamKiB: ((rssIdleStreamsMiB - rssBeforeMiB) * 1024) / STREAMS,
      apiWithout,
      apiWith,
      apiAfter,
      load: [load0, loadavg()[0]!],
    }
  } finally {
    for (const s of streams) s.abort()
    await tools.stopProc(wagate.proc)
  }
}

export function streamLines(f: StreamFigures): string[] {
  const ms = (n: number) => `${n.toFixed(1)} ms`
  const baseline = (f.apiWithout.p99Ms + f.apiAfter.p99Ms) / 2
  const change = ((f.apiWith.p99Ms - baseline) / baseline) * 100
  return [
    `streams, ${f.streams} open ${f.transport === "websocket" ? "WebSocket" : "SSE"} streams of one account, ${f.sends} sends: fan-out from the send to the last stream p50 ${ms(f.fanOutP50Ms)}, p99 ${ms(f.fanOutP99Ms)} (target < 100 ms${f.fanOutP99Ms < 100 ? ", met" : ", MISSED"}), max ${ms(f.fanOutMaxMs)}`,
    `  RSS ${f.rssBeforeMiB.toFixed(1)} MiB → ${f.rssIdleStreamsMiB.toFixed(1)} MiB with the streams idle: ${f.rssPerIdleStreamKiB.toFixed(1)} KiB per stream (target < 50${f.rssPerIdleStreamKiB < 50 ? ", met" : ", MISSED"})`,
    `  GET /v1/messages p99 ${ms(f.apiWithout.p99Ms)} before the streams, ${ms(f.apiWith.p99Ms)} with them open, ${ms(f.apiAfter.p99Ms)} after they closed (${change >= 0 ? "+" : ""}${change.toFixed(1)} % against the two without, target within 10 %); ${f.apiWithout.requestsPerSecond.toFixed(0)}, ${f.apiWith.requestsPerSecond.toFixed(0)}, ${f.apiAfter.requestsPerSecond.toFixed(0)} req/s`,
    `  load average ${f.load[0].toFixed(2)} at the start, ${f.load[1].toFixed(2)} at the end`,
  ]
}
