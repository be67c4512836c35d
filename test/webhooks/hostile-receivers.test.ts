import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { join } from "node:path"
import { createApp } from "../../src/app"
import { loadConfig } from "../../src/config"
import { createServices, type Services } from "../../src/deps"
import { createAccount } from "../../src/domain/accounts"
import { createApiKey } from "../../src/domain/api-keys"
import { createEndpoint } from "../../src/domain/webhook-endpoints"
import { CANONICAL_SCOPES } from "../../src/domain/scopes"
import { systemClock } from "../../src/lib/clock"
import { silentLogger } from "../../src/lib/logger"
import { FakeGateway } from "../fakes/fake-gateway"
import { HOSTILE_KINDS, HUGE_BODY_BYTES, type HostileStats } from "../helpers/hostile-receivers"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { waitUntil } from "../helpers/webhook-receiver"

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * Receivers that answer with endless 1xx interim answers, endless chunked trailers, a 1 GiB body,
 * or a body or head dripped a byte at a time, must not slow the API down, and none of them may
 * hold an attempt past its deadline (docs/webhooks.md § "How requests are sent"). The receivers
 * and the probe run in their own processes, so the probe times the server's thread and nothing else.
 */

const TIMEOUT_MS = 1_000
/** How late after its deadline an attempt may still be recorded as ended, on a busy machine. */
const DEADLINE_SLACK_MS = 500
const RECEIVERS = 20
const PROBE_WARMUP_MS = 1_000
const PROBE_MS = 8_000
const PROBE_INTERVAL_MS = 5
const EVENT_INTERVAL_MS = 200
const P99_LIMIT_MS = 50

interface AttemptSeen {
  endpointId: string
  statusCode: number | null
  error: string | null
  latencyMs: number
  responseBody: string | null
}

let services: Services
let server: ReturnType<typeof Bun.serve>
let receivers: ReturnType<typeof Bun.spawn>
let urls: string[] = []
let kindOf = new Map<string, string>()
let apiKey = ""
let accountId = ""

function readLine(stream: ReadableStream<Uint8Array>): { next(): Promise<string> } {
  const reader = stream.getReader()
  let buffered = ""
  return {
    async next() {
      for (;;) {
        const newline = buffered.indexOf("\n")
        if (newline >= 0) {
          const line = buffered.slice(0, newline)
          buffered = buffered.slice(newline + 1)
          return line
        }
        const { done, value } = await reader.read()
        if (done) throw new Error(`the process ended without a line (had: ${buffered})`)
        buffered += Buffer.from(value).toString("utf8")
      }
    },
  }
}

let receiverLines: { next(): Promise<string> }

beforeAll(async () => {
  const kinds = Array.from({ length: RECEIVERS }, (_, i) => HOSTILE_KINDS[i % HOSTILE_KINDS.length]!)
  receivers = Bun.spawn(["bun", join(import.meta.dir, "..", "helpers", "hostile-receivers.ts"), ...kinds], { stdout: "pipe", stderr: "inherit" })
  receiverLines = readLine(receivers.stdout as ReadableStream<Uint8Array>)
  urls = JSON.parse(await receiverLines.next()).urls
  const config = loadConfig({ WAGATE_WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS), WAGATE_RATE_LIMIT_PER_MINUTE: "1000000" })
  services = await createServices(config, {
    clock: systemClock(),
    logger: silentLogger,
    databasePath: ":memory:",
    gateway: new FakeGateway(),
    fetchMedia: async () => ({ ok: false, errorCode: "media_fetch_failed", message: "no media here" }),
    random: () => 0.5,
  })
  await services.start()
  const app = createApp(services)
  server = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => app.handle(req) })
  const account = await createAccount(services.ctx, "Hostile receivers", "ops@example.com")
  accountId = account.id
  apiKey = (await createApiKey(services.ctx, { accountId, env: "test", scopes: [...CANONICAL_SCOPES], expiresAtMs: null })).key
  for (const [i, url] of urls.entries()) {
    const endpoint = await createEndpoint(services.ctx, { accountId, env: "test", url, events: ["*"] })
    kindOf.set(endpoint.id, kinds[i]!)
  }
}, SLOW_HOOK_TIMEOUT_MS)

afterAll(async () => {
  receivers?.kill("SIGTERM")
  await receivers?.exited
  server?.stop(true)
  await services?.stop()
}, SLOW_HOOK_TIMEOUT_MS)

/** Records one event, which the outbox hands to every endpoint. */
function emitEvent(n: number): Promise<void> {
  return services.ctx.store.write((q, tx) =>
    services.ctx.events.record(q, tx, { accountId, env: "test", type: "message.sent", occurredAtMs: Date.now(), data: { n } }),
  )
}

function percentile(sorted: number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * fraction) - 1)]!
}

describe("hostile webhook receivers", () => {
  test("20 receivers flooding 1xx answers, trailers, a 1 GiB body or dripping bytes leave the API's p99 under 50 ms, and every attempt ends by its deadline", async () => {
    const probe = Bun.spawn(
      ["bun", join(import.meta.dir, "..", "helpers", "latency-probe.ts"), `http://127.0.0.1:${server.port}/v1/account`, apiKey, String(PROBE_WARMUP_MS), String(PROBE_MS), String(PROBE_INTERVAL_MS)],
      { stdout: "pipe", stderr: "inherit" },
    )
    // Events keep coming while the probe runs, so every receiver always has attempts in flight.
    let emitted = 0
    let emitting = true
    const emitter = (async () => {
      while (emitting) {
        await emitEvent(emitted++)
        await Bun.sleep(EVENT_INTERVAL_MS)
      }
    })()
    const probeOutput = JSON.parse(await readLine(probe.stdout as ReadableStream<Uint8Array>).next()) as { latenciesMs: number[]; failures: number }
    emitting = false
    await emitter
    const attemptsDuringProbe = countAttempts()
    // Every attempt started must be recorded within its deadline and the slack.
    await waitUntil(() => countAttempts() === emitted * RECEIVERS, TIMEOUT_MS + DEADLINE_SLACK_MS + 2_000, "every attempt recorded")

    const sorted = [...probeOutput.latenciesMs].sort((a, b) => a - b)
    const report = {
      samples: sorted.length,
      failures: probeOutput.failures,
      p50Ms: percentile(sorted, 0.5),
      p99Ms: percentile(sorted, 0.99),
      maxMs: sorted.at(-1),
      events: emitted,
      attemptsDuringProbe,
    }
    console.log(`hostile receivers: ${JSON.stringify(report)}`)
    expect(probeOutput.failures).toBe(0)
    expect(sorted.length).toBeGreaterThan(500)
    expect(attemptsDuringProbe).toBeGreaterThan(RECEIVERS * 20)
    expect(report.p99Ms).toBeLessThan(P99_LIMIT_MS)

    const attempts = services.sqlite!
      .query(
        `SELECT d.endpoint_id AS endpointId, a.status_code AS statusCode, a.error, a.latency_ms AS latencyMs, a.response_body AS responseBody
         FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id`,
      )
      .all() as AttemptSeen[]
    const byKind = new Map<string, AttemptSeen[]>()
    for (const a of attempts) byKind.set(kindOf.get(a.endpointId)!, [...(byKind.get(kindOf.get(a.endpointId)!) ?? []), a])
    for (const [kind, seen] of byKind) {
      const worst = Math.max(...seen.map((a) => a.latencyMs))
      console.log(`  ${kind}: ${seen.length} attempts, worst ${worst} ms, errors ${JSON.stringify([...new Set(seen.map((a) => a.error))])}`)
      expect(worst).toBeLessThanOrEqual(TIMEOUT_MS + DEADLINE_SLACK_MS)
    }
    // The 1 GiB body is cut after 64 KiB: the attempt counts as answered, well before its deadline.
    for (const a of byKind.get("huge")!) expect(a).toMatchObject({ statusCode: 200, error: null })
    // Bun's fetch may give up on an endless run of 1xx answers before the deadline does.
    for (const a of byKind.get("interim")!) expect([`timed out after ${TIMEOUT_MS} ms`, "the receiver's answer is not valid HTTP/1.1"]).toContain(a.error!)
    for (const kind of ["trailers", "drip", "drip-head"]) {
      for (const a of byKind.get(kind)!) expect(a.error).toBe(`timed out after ${TIMEOUT_MS} ms`)
    }

    receivers.kill("SIGTERM")
    const stats = JSON.parse(await receiverLines.next()).stats as HostileStats[]
    const huge = stats.filter((s) => s.kind === "huge")
    const hugeSent = huge.reduce((n, s) => n + s.sentBytes, 0)
    const hugeRequests = huge.reduce((n, s) => n + s.requests, 0)
    console.log(`  huge bodies: ${hugeRequests} requests, ${(hugeSent / 2 ** 20).toFixed(1)} MiB sent in all`)
    // Each cut body costs at most what the sockets' buffers held when it was cancelled.
    expect(hugeSent / hugeRequests).toBeLessThan(HUGE_BODY_BYTES / 64)
  })
})

function countAttempts(): number {
  return (services.sqlite!.query("SELECT COUNT(*) AS n FROM webhook_attempts").get() as { n: number }).n
}
