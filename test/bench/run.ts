import { spawnSync } from "node:child_process"
import { benchChats, chatLines } from "./chats"
import { benchHistorySync, historySyncLines } from "./history-sync"
import { benchPolls, pollLines } from "./polls"
import { benchStreams, streamLines } from "./streams"
import { amqpLines, benchAmqp } from "./amqp"
import { benchPictures, pictureLines } from "./pictures"
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs"
import { cpus, tmpdir } from "node:os"
import { join } from "node:path"
import { hasTaskset, hasWrk, runLoad, type LoadResult } from "./loadgen"
import { DASHBOARD_PAGE_TARGET_MS, timeDashboardPages } from "./dashboard"
import { benchMedia, type MediaFigures } from "./media"
import { benchInboundMedia, INBOUND_RSS_RISE_TARGET_MIB, INBOUND_SERVE_TARGET_MS, type InboundMediaFigures } from "./inbound-media"
import { benchFailover, failoverLine } from "./failover"
import { BENCH_PHONES, benchPhones } from "./phones"
import { benchReconnect } from "./reconnect"
import { benchCluster, clusterRows } from "./cluster"
import { seedMessages } from "./seed"

/*
 * `bun run bench`: measures the compiled binary against a bare Elysia POST route on this machine
 * (127.0.0.1 only), prints a table and writes bench-results.json. Servers are pinned to core 0
 * and the load generator to core 1 when taskset exists, as in reference/performance.md.
 */

const REPO = join(import.meta.dir, "..", "..")
const BIN = process.env.BENCH_BIN ?? join(REPO, "dist", "wagate")
const PHONE = "+14155550123"
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10)
const LIST_ROWS = Number(process.env.BENCH_LIST_ROWS ?? 1_000_000)
const WEBHOOK_EVENTS = Number(process.env.BENCH_WEBHOOK_EVENTS ?? 20_000)
const GROWTH_BYTES = Number(process.env.BENCH_GROWTH_BYTES ?? 1.1 * 1024 ** 3)
const dirs: string[] = []
const procs: ReturnType<typeof Bun.spawn>[] = []

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), "wagate-bench-"))
  dirs.push(d)
  return d
}

/** BENCH_PIN=0 runs everything unpinned, as users run it; otherwise pinned when taskset exists. */
const PIN = process.env.BENCH_PIN !== "0" && hasTaskset()
const WEBHOOK_CPU_MESSAGES = Number(process.env.BENCH_WEBHOOK_CPU_MESSAGES ?? 4_000)

function pinned(cmd: string[]): string[] {
  return PIN ? ["taskset", "-c", "0", ...cmd] : cmd
}

function rssMiB(pid: number): number {
  const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1]
  return Number(kb) / 1024
}

/** CPU time (user + system) a process has used so far, from /proc. */
function cpuSeconds(pid: number): number {
  const { userS, systemS } = cpuSplit(pid)
  return userS + systemS
}

/** User and system CPU time a process has used so far, from /proc. */
function cpuSplit(pid: number): { userS: number; systemS: number } {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ")
  // utime and stime are fields 14 and 15 of stat(5), counted from after the command name.
  return { userS: Number(fields[11]) / 100, systemS: Number(fields[12]) / 100 }
}

async function readUntil(stream: ReadableStream<Uint8Array>, pattern: RegExp, timeoutMs = 20_000): Promise<string> {
  let text = ""
  const reader = stream.getReader()
  const deadline = performance.now() + timeoutMs
  while (!pattern.test(text)) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${pattern}; got:\n${text}`)
    const { done, value } = await reader.read()
    if (done) throw new Error(`process ended before ${pattern}; got:\n${text}`)
    text += new TextDecoder().decode(value)
  }
  reader.releaseLock()
  return text
}

interface Wagate {
  proc: ReturnType<typeof Bun.spawn>
  base: string
  out: string
}

/**
 * BENCH_BUN_ARGS runs the server from source under `bun` with these arguments instead of the
 * compiled binary, to profile it: `BENCH_BUN_ARGS="--cpu-prof-md --cpu-prof-dir=/tmp/prof"`
 * writes a markdown CPU profile per server process when it stops. BENCH_SRC names another
 * checkout's `src/main.ts` (an export of `main`, say) to profile that one instead.
 */
const BUN_ARGS = process.env.BENCH_BUN_ARGS?.split(" ").filter(Boolean) ?? null
const SRC_MAIN = process.env.BENCH_SRC ?? join(REPO, "src", "main.ts")
const serverCommand = () => (BUN_ARGS ? ["bun", ...BUN_ARGS, SRC_MAIN] : [BIN])

async function startWagate(dir: string, env: Record<string, string> = {}, firstRun = true): Promise<Wagate> {
  const proc = Bun.spawn(pinned([...serverCommand(), "serve", "--data", dir, "--port", "0", "--host", "127.0.0.1"]), {
    env: { ...process.env, WAGATE_LOG_LEVEL: "warn", WAGATE_RATE_LIMIT_PER_MINUTE: "1000000", ...env },
    stdout: "pipe",
    stderr: "inherit",
  })
  procs.push(proc)
  const out = await readUntil(proc.stdout as ReadableStream<Uint8Array>, firstRun ? /Admin token: +adm_\w+/ : /listening on http:\/\/[^:]+:\d+/)
  const port = /listening on http:\/\/[^:]+:(\d+)/.exec(out)![1]
  return { proc, base: `http://127.0.0.1:${port}`, out }
}

async function stopProc(proc: ReturnType<typeof Bun.spawn>): Promise<number> {
  const t0 = performance.now()
  proc.kill("SIGTERM")
  await proc.exited
  return performance.now() - t0
}

function cli(dir: string, args: string[], env: Record<string, string> = {}): string {
  const res = spawnSync(BIN, [...args, "--data", dir], { encoding: "utf8", env: { ...process.env, ...env } })
  if (res.status !== 0) throw new Error(`wagate ${args.join(" ")} failed: ${res.stderr}`)
  return res.stdout
}

const keyOf = (out: string) => /Sandbox key: +(sk_test_\w+)/.exec(out)![1]!
const adminOf = (out: string) => /Admin token: +(adm_\w+)/.exec(out)![1]!
const sendBody = (to = "+14155550199") => `{"fromPhoneId":"${PHONE}","to":"${to}","content":"bench","idempotencyKey":"k-{n}"}`

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

async function waitFor(condition: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  const deadline = performance.now() + timeoutMs
  while (!(await condition())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(100)
  }
}

function progress(text: string): void {
  console.error(`[bench] ${text}`)
}

async function benchSend() {
  const dir = tempDir()
  progress("send: starting wagate")
  const w = await startWagate(dir)
  await Bun.sleep(2_000)
  const idleRssMiB = rssMiB(w.proc.pid)
  progress("send: adding a phone")
  cli(dir, ["phones", "add", PHONE])
  const key = keyOf(w.out)
  progress("send: starting the bare app")
  const bare = Bun.spawn(pinned(["bun", join(import.meta.dir, "bare.ts"), "3900"]), { stdout: "pipe", stderr: "inherit" })
  procs.push(bare)
  await readUntil(bare.stdout as ReadableStream<Uint8Array>, /bare listening/)
  const headers = { "Content-Type": "application/json", Authorization: `Bearer ${key}` }
  const bareSpec = { url: "http://127.0.0.1:3900/send", method: "POST" as const, headers, body: sendBody(), connections: 64 }
  const sendSpec = { url: `${w.base}/v1/messages/send`, method: "POST" as const, headers, body: sendBody(), connections: 64 }
  progress("send: warming up")
  // Warm-up, discarded.
  await runLoad({ ...bareSpec, durationSeconds: 2 })
  await runLoad({ ...sendSpec, durationSeconds: 2 })
  const bareRuns: LoadResult[] = []
  const sendRuns: LoadResult[] = []
  for (let round = 0; round < ROUNDS; round++) {
    bareRuns.push(await runLoad({ ...bareSpec, durationSeconds: DURATION_S }))
    sendRuns.push(await runLoad({ ...sendSpec, durationSeconds: DURATION_S }))
  }
  const ratios = sendRuns.map((s, i) => s.requestsPerSecond / bareRuns[i]!.requestsPerSecond)

  // GET one message by id.
  const list = (await (await fetch(`${w.base}/v1/messages?limit=1`, { headers })).json()) as any
  const id = list.data.data[0].id
  const getRuns: LoadResult[] = []
  for (let round = 0; round < ROUNDS; round++) {
    getRuns.push(await runLoad({ url: `${w.base}/v1/messages/${id}`, method: "GET", headers: { Authorization: headers.Authorization }, connections: 64, durationSeconds: DURATION_S }))
  }

  // RSS after at least 100,000 sends.
  let total = list.data.pagination.total as number
  while (total < 100_000) {
    await runLoad({ ...sendSpec, durationSeconds: 5 })
    total = ((await (await fetch(`${w.base}/v1/messages?limit=1`, { headers })).json()) as any).data.pagination.total
  }
  await Bun.sleep(2_000)
  const rssAfterSendsMiB = rssMiB(w.proc.pid)
  const shutdownMs = await stopProc(w.proc)
  bare.kill("SIGTERM")
  await bare.exited
  const dbBytes = statSync(join(dir, "wagate.db")).size
  return {
    idleRssMiB,
    bare: summarise(bareRuns),
    send: summarise(sendRuns),
    sendRatio: { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) },
    getById: summarise(getRuns),
    sendsBeforeRss: total,
    rssAfterSendsMiB,
    shutdownMs,
    dbBytesAfterSends: dbBytes,
  }
}

function summarise(runs: LoadResult[]) {
  return {
    requestsPerSecond: median(runs.map((r) => r.requestsPerSecond)),
    p50Ms: median(runs.map((r) => r.p50Ms)),
    p99Ms: median(runs.map((r) => r.p99Ms)),
    worstP99Ms: Math.max(...runs.map((r) => r.p99Ms)),
    maxMs: Math.max(...runs.map((r) => r.maxMs)),
    errors: runs.reduce((a, r) => a + r.errors, 0),
    runs: runs.map((r) => ({ rps: Math.round(r.requestsPerSecond), p50Ms: r.p50Ms, p99Ms: r.p99Ms })),
  }
}

/** Polls a URL until it answers 200 (the server may not listen yet). */
async function untilOk(url: string): Promise<void> {
  for (;;) {
    try {
      if ((await fetch(url)).status === 200) return
    } catch {
      // Not listening yet.
    }
    await Bun.sleep(0.5)
  }
}

/** A port free at this moment, from the kernel (no fixed port that another run may hold). */
function freePort(): number {
  const s = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: () => new Response() })
  const port = s.port!
  s.stop(true)
  return port
}

/** Wall time of a short command, from spawn to exit. */
function commandMs(cmd: string[]): number {
  const t0 = performance.now()
  const res = spawnSync(cmd[0]!, cmd.slice(1), { encoding: "utf8" })
  if (res.status !== 0) throw new Error(`${cmd.join(" ")} failed: ${res.stderr}`)
  return performance.now() - t0
}

/**
 * `wagate version` and `wagate help` against a compiled hello-world, in turn; then restarts of a
 * data directory that is already set up, to the first 200 of /healthz.
 */
async function benchStartup() {
  const hello = join(tempDir(), "hello")
  writeFileSync(`${hello}.ts`, 'console.log("hello")\n')
  const build = spawnSync("bun", ["build", "--compile", "--minify", "--bytecode", "--format=esm", `${hello}.ts`, "--outfile", hello], { encoding: "utf8" })
  if (build.status !== 0) throw new Error(`hello-world build failed: ${build.stderr}`)
  const version: number[] = []
  const help: number[] = []
  const helloWorld: number[] = []
  for (let i = 0; i < 21; i++) {
    version.push(commandMs(pinned([BIN, "version"])))
    help.push(commandMs(pinned([BIN, "help"])))
    helloWorld.push(commandMs(pinned([hello])))
  }
  const dir = tempDir()
  await stopProc((await startWagate(dir)).proc)
  const restart: number[] = []
  for (let i = 0; i < 11; i++) {
    const port = freePort()
    const t0 = performance.now()
    const proc = Bun.spawn(pinned([BIN, "serve", "--data", dir, "--port", String(port), "--host", "127.0.0.1"]), { stdout: "ignore", stderr: "ignore" })
    procs.push(proc)
    await untilOk(`http://127.0.0.1:${port}/healthz`)
    restart.push(performance.now() - t0)
    await stopProc(proc)
  }
  return { versionMs: median(version), helpMs: median(help), helloWorldMs: median(helloWorld), restartMs: median(restart), restartMaxMs: Math.max(...restart) }
}

async function benchColdStart() {
  const samples: number[] = []
  for (let i = 0; i < 11; i++) {
    const dir = tempDir()
    const port = freePort()
    const t0 = performance.now()
    const proc = Bun.spawn(pinned([BIN, "serve", "--data", dir, "--port", String(port), "--host", "127.0.0.1"]), { stdout: "ignore", stderr: "ignore" })
    procs.push(proc)
    await untilOk(`http://127.0.0.1:${port}/healthz`)
    if (i > 0) samples.push(performance.now() - t0)
    await stopProc(proc)
  }
  return { medianMs: median(samples), minMs: Math.min(...samples), maxMs: Math.max(...samples) }
}

async function benchList() {
  const dir = tempDir()
  const first = await startWagate(dir)
  const admin = adminOf(first.out)
  const key = keyOf(first.out)
  const auth = { Authorization: `Bearer ${admin}` }
  const accounts = ((await (await fetch(`${first.base}/admin/v1/accounts`, { headers: auth })).json()) as any).data
  const accountId = accounts[0].accountId
  const phone = ((await (await fetch(`${first.base}/admin/v1/accounts/${accountId}/phones`, {
    method: "POST",
    headers: { ...auth, "Content-Type": "application/json" },
    body: JSON.stringify({ phoneNumber: PHONE }),
  })).json()) as any).data
  const keys = ((await (await fetch(`${first.base}/admin/v1/accounts/${accountId}/keys`, { headers: auth })).json()) as any).data
  await stopProc(first.proc)
  const t0 = performance.now()
  seedMessages(join(dir, "wagate.db"), { accountId, phoneId: phone.id, phoneNumber: PHONE, keyId: keys[0].id, count: LIST_ROWS })
  const seedSeconds = (performance.now() - t0) / 1000
  const w = await startWagate(dir, {}, false)
  const headers = { Authorization: `Bearer ${key}` }
  const lastPage = Math.ceil(LIST_ROWS / 20)
  const deep = Math.min(50_000, lastPage)
  const check = (await (await fetch(`${w.base}/v1/messages?page=${deep}`, { headers })).json()) as any
  if (check.data.data.length === 0 || check.data.pagination.total !== LIST_ROWS) throw new Error("the seeded list is not what the benchmark expects")
  const page1: LoadResult[] = []
  const pageDeep: LoadResult[] = []
  for (let round = 0; round < ROUNDS; round++) {
    // One connection: the p50 is the cost of a page, not time spent queued behind other requests.
    page1.push(await runLoad({ url: `${w.base}/v1/messages?page=1`, method: "GET", headers, connections: 1, durationSeconds: DURATION_S }))
    pageDeep.push(await runLoad({ url: `${w.base}/v1/messages?page=${deep}`, method: "GET", headers, connections: 1, durationSeconds: DURATION_S }))
  }
  const newest = (await (await fetch(`${w.base}/v1/messages?page=1&limit=1`, { headers })).json()) as any
  const dashboardPages = await timeDashboardPages(w.base, admin, { accountId, phoneId: phone.id, messageId: newest.data.data[0].id })
  await stopProc(w.proc)
  // The stall check: the reference saw 90–330 ms write stalls once a database passed ~1 GB, so
  // the same account's live environment is filled with larger messages until the file is past
  // GROWTH_BYTES, and sends are measured on it (growing it further).
  const listDbBytes = statSync(join(dir, "wagate.db")).size
  seedMessages(join(dir, "wagate.db"), { accountId, phoneId: phone.id, phoneNumber: PHONE, keyId: keys[0].id, count: 0, env: "live", content: "x".repeat(1000), untilBytes: GROWTH_BYTES })
  const grownDbBytes = statSync(join(dir, "wagate.db")).size
  // The seeder writes without syncing; flush its gigabyte now, or the kernel's write-back of it
  // would be measured as the server's fsync stalls.
  spawnSync("sync")
  const grown = await startWagate(dir, {}, false)
  const phoneKey = { ...headers, "Content-Type": "application/json" }
  const writes: LoadResult[] = []
  for (let round = 0; round < ROUNDS; round++) {
    writes.push(await runLoad({ url: `${grown.base}/v1/messages/send`, method: "POST", headers: phoneKey, body: sendBody(), connections: 64, durationSeconds: DURATION_S }))
  }
  await stopProc(grown.proc)
  const finalDbBytes = statSync(join(dir, "wagate.db")).size
  // Its gigabyte and more would otherwise be written back while the next case measures.
  rmSync(dir, { recursive: true, force: true })
  spawnSync("sync")
  return {
    rows: LIST_ROWS,
    seedSeconds,
    dbBytes: listDbBytes,
    grownDbBytes,
    finalDbBytes,
    deepPage: deep,
    page1: summarise(page1),
    pageDeep: summarise(pageDeep),
    sendsOnLargeDb: summarise(writes),
    dashboardPages,
  }
}

/** The benchmark's webhook receiver, on the generator's core so it never takes the server's. */
async function startReceiver() {
  const receiverCmd = ["bun", join(import.meta.dir, "receiver.ts"), "0"]
  const receiver = Bun.spawn(PIN ? ["taskset", "-c", "1", ...receiverCmd] : receiverCmd, { stdout: "pipe", stderr: "inherit" })
  procs.push(receiver)
  const receiverBase = `http://127.0.0.1:${/receiver listening on (\d+)/.exec(await readUntil(receiver.stdout as ReadableStream<Uint8Array>, /receiver listening on \d+/))![1]}`
  return { receiver, receiverBase }
}

async function webhookRound() {
  const dir = tempDir()
  // Every first attempt fails (the receiver answers 500) and its retry is due 15 s later. The
  // server is stopped once every first attempt has been recorded and started again after the
  // last retry fell due, so the whole backlog is due at once: the figure is the rate at which
  // the dispatcher drains it, not the rate at which the sends created it.
  const retryAfterMs = 15_000
  const env = { WAGATE_WEBHOOK_RETRY_OFFSETS_MS: `${retryAfterMs},600000` }
  let w = await startWagate(dir, env)
  const { receiver, receiverBase } = await startReceiver()
  cli(dir, ["phones", "add", PHONE])
  const admin = adminOf(w.out)
  const key = keyOf(w.out)
  const accounts = ((await (await fetch(`${w.base}/admin/v1/accounts`, { headers: { Authorization: `Bearer ${admin}` } })).json()) as any).data
  await fetch(`${w.base}/admin/v1/accounts/${accounts[0].accountId}/webhooks`, {
    method: "POST",
    headers: { Authorization: `Bearer ${admin}`, "Content-Type": "application/json" },
    body: JSON.stringify({ url: `${receiverBase}/hook`, environment: "test", events: ["message.sent"] }),
  })
  const headers = { Authorization: `Bearer ${key}`, "Content-Type": "application/json" }
  // Recipients that stay `sent` (+12025550104) produce exactly one event per send.
  let sent = 0
  while (sent < WEBHOOK_EVENTS) {
    const r = await runLoad({ url: `${w.base}/v1/messages/send`, method: "POST", headers, body: sendBody("+12025550104"), connections: 32, durationSeconds: 2 })
    sent = ((await (await fetch(`${w.base}/v1/messages?limit=1`, { headers })).json()) as any).data.pagination.total
    if (r.requestsPerSecond === 0) throw new Error("sends failed")
  }
  const stats = async () => (await (await fetch(`${receiverBase}/stats`)).json()) as { received: number; succeeded: number; firstOkMs: number; lastOkMs: number }
  await waitFor(async () => (await stats()).received >= sent, 120_000, "every first attempt")
  // The last failure is recorded just after the receiver counted it; give the commit a moment.
  await Bun.sleep(500)
  await stopProc(w.proc)
  const lastFirstAttempt = performance.now()
  await fetch(`${receiverBase}/switch`)
  await Bun.sleep(retryAfterMs + 1_000 - (performance.now() - lastFirstAttempt))
  w = await startWagate(dir, env, false)
  const cpuBeforeS = cpuSeconds(w.proc.pid)
  await waitFor(async () => (await stats()).succeeded >= sent, 600_000, "every retry to succeed")
  const serverCpuS = cpuSeconds(w.proc.pid) - cpuBeforeS
  const s = await stats()
  await stopProc(w.proc)
  receiver.kill("SIGTERM")
  return { events: sent, deliveriesPerSecond: s.succeeded / ((s.lastOkMs - s.firstOkMs) / 1000), serverCpuUsPerDelivery: (serverCpuS * 1e6) / s.succeeded }
}

/** The median of ROUNDS drains, each on a fresh data directory: single drains on this box vary by a third. */
async function benchWebhooks() {
  const rounds: Awaited<ReturnType<typeof webhookRound>>[] = []
  for (let round = 0; round < ROUNDS; round++) rounds.push(await webhookRound())
  return {
    events: median(rounds.map((r) => r.events)),
    deliveriesPerSecond: median(rounds.map((r) => r.deliveriesPerSecond)),
    serverCpuUsPerDelivery: median(rounds.map((r) => r.serverCpuUsPerDelivery)),
    rounds: rounds.map((r) => ({ events: r.events, perSecond: Math.round(r.deliveriesPerSecond), serverCpuUs: Math.round(r.serverCpuUsPerDelivery) })),
  }
}

/** Sends `count` sandbox messages, `connections` at a time, each one request. */
async function sendMessages(base: string, key: string, count: number, connections: number): Promise<void> {
  const headers = { Authorization: `Bearer ${key}`, "Content-Type": "application/json" }
  const prefix = Math.random().toString(36).slice(2)
  let started = 0
  const one = async () => {
    while (started < count) {
      started++
      const body = sendBody().replace("{n}", `${prefix}-${started}`)
      const res = await fetch(`${base}/v1/messages/send`, { method: "POST", headers, body })
      await res.arrayBuffer()
      if (res.status !== 201 && res.status !== 200) throw new Error(`send answered ${res.status}`)
    }
  }
  await Promise.all(Array.from({ length: connections }, one))
}

/**
 * One round of the webhook CPU case: the server's own CPU time (from /proc) per sandbox message
 * with all its transitions (sent, delivered, read) done, on a fresh data directory, with no
 * endpoint or with one endpoint subscribed to every event and a receiver answering 200. Small
 * sandbox delays keep a round short; the figure is CPU time, which the shared box disturbs far
 * less than wall-clock rates.
 */
async function webhookCpuRound(withEndpoint: boolean) {
  const dir = tempDir()
  const env = { WAGATE_SANDBOX_DELIVERED_MS: "200", WAGATE_SANDBOX_READ_MS: "400" }
  const w = await startWagate(dir, env)
  cli(dir, ["phones", "add", PHONE])
  const admin = adminOf(w.out)
  const key = keyOf(w.out)
  const { receiver, receiverBase } = await startReceiver()
  await fetch(`${receiverBase}/switch`)
  if (withEndpoint) {
    const accounts = ((await (await fetch(`${w.base}/admin/v1/accounts`, { headers: { Authorization: `Bearer ${admin}` } })).json()) as any).data
    const res = await fetch(`${w.base}/admin/v1/accounts/${accounts[0].accountId}/webhooks`, {
      method: "POST",
      headers: { Authorization: `Bearer ${admin}`, "Content-Type": "application/json" },
      body: JSON.stringify({ url: `${receiverBase}/hook`, environment: "test", events: ["*"] }),
    })
    if (res.status !== 201) throw new Error(`adding the endpoint failed: ${res.status}`)
  }
  const headers = { Authorization: `Bearer ${key}` }
  // Warm-up, outside the measure: the first requests compile the hot paths.
  await sendMessages(w.base, key, 200, 16)
  const readCount = async () => ((await (await fetch(`${w.base}/v1/messages?status=read&limit=1`, { headers })).json()) as any).data.pagination.total as number
  const stats = async () => (await (await fetch(`${receiverBase}/stats`)).json()) as { succeeded: number; latestDueMs: number; lastArrivalMs: number }
  await waitFor(async () => (await readCount()) >= 200 && (!withEndpoint || (await stats()).succeeded >= 600), 60_000, "the warm-up")
  const before = cpuSplit(w.proc.pid)
  await sendMessages(w.base, key, WEBHOOK_CPU_MESSAGES, 64)
  const total = 200 + WEBHOOK_CPU_MESSAGES
  await waitFor(async () => (await readCount()) >= total && (!withEndpoint || (await stats()).succeeded >= 3 * total), 300_000, "every transition and event")
  const after = cpuSplit(w.proc.pid)
  const s = await stats()
  await stopProc(w.proc)
  receiver.kill("SIGTERM")
  await receiver.exited
  rmSync(dir, { recursive: true, force: true })
  const perMessageUs = (seconds: number) => (seconds * 1e6) / WEBHOOK_CPU_MESSAGES
  return {
    cpuUsPerMessage: perMessageUs(after.userS + after.systemS - before.userS - before.systemS),
    systemUsPerMessage: perMessageUs(after.systemS - before.systemS),
    lastEventLagMs: withEndpoint ? s.lastArrivalMs - s.latestDueMs : null,
  }
}

/** The median of ROUNDS rounds with no endpoint and as many with one; the ratio of the medians is the target's figure. */
async function benchWebhookCpu() {
  const none: Awaited<ReturnType<typeof webhookCpuRound>>[] = []
  const one: Awaited<ReturnType<typeof webhookCpuRound>>[] = []
  for (let round = 0; round < ROUNDS; round++) {
    progress(`webhookCpu: round ${round + 1}`)
    none.push(await webhookCpuRound(false))
    one.push(await webhookCpuRound(true))
  }
  const noEndpointUs = median(none.map((r) => r.cpuUsPerMessage))
  const oneEndpointUs = median(one.map((r) => r.cpuUsPerMessage))
  return {
    messages: WEBHOOK_CPU_MESSAGES,
    noEndpointUsPerMessage: noEndpointUs,
    oneEndpointUsPerMessage: oneEndpointUs,
    ratio: oneEndpointUs / noEndpointUs,
    worstLastEventLagMs: Math.max(...one.map((r) => r.lastEventLagMs!)),
    rounds: none.map((r, i) => ({
      noEndpointUs: Math.round(r.cpuUsPerMessage),
      noEndpointSystemUs: Math.round(r.systemUsPerMessage),
      oneEndpointUs: Math.round(one[i]!.cpuUsPerMessage),
      oneEndpointSystemUs: Math.round(one[i]!.systemUsPerMessage),
      lastEventLagMs: one[i]!.lastEventLagMs,
    })),
  }
}

/**
 * The floors under the send and webhook targets (test/bench/floor.ts), on the server's core,
 * with the receiver on the generator's core as in the webhook case.
 */
async function benchFloors() {
  const { receiver, receiverBase } = await startReceiver()
  const runs: { storeUsPerSend: number; fetchesPerSecond: number; fetchCpuUs: number }[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const [cmd, ...args] = pinned(["bun", join(import.meta.dir, "floor.ts"), receiverBase])
    const floor = spawnSync(cmd!, args, { encoding: "utf8" })
    if (floor.status !== 0) throw new Error(`floor.ts failed: ${floor.stderr}`)
    runs.push(JSON.parse(floor.stdout.trim().split("\n").at(-1)!))
  }
  receiver.kill("SIGTERM")
  return {
    storeUsPerSend: median(runs.map((r) => r.storeUsPerSend)),
    fetchesPerSecond: median(runs.map((r) => r.fetchesPerSecond)),
    fetchCpuUs: median(runs.map((r) => r.fetchCpuUs)),
    runs,
  }
}

function row(name: string, value: string, target: string, met: boolean | null): string {
  return `| ${name} | ${value} | ${target} | ${met === null ? "" : met ? "met" : "NOT met"} |`
}

function printPhones(p: Awaited<ReturnType<typeof benchPhones>>): void {
  const f = (n: number, d = 1) => n.toFixed(d)
  const probe = (q: { p99Ms: number; maxMs: number; samples: number }) => `p99 ${f(q.p99Ms)} ms, max ${f(q.maxMs)} ms (${q.samples})`
  console.log(
    [
      "",
      `| phones case (${p.phones} simulated phones, paired ${p.pairParallel} at a time) | result | target | |`,
      "| --- | --- | --- | --- |",
      // Below about 100 phones, Baileys' own 45 MiB dominates every per-phone share of RSS.
      row("settled RSS per phone", `${f(p.rssPerPhoneMiB, 2)} MiB (${f(p.idleRssMiB)} → ${f(p.settledRssMiB)} MiB)`, "< 0.5 MiB", p.phones >= 100 ? p.rssPerPhoneMiB < 0.5 : null),
      row("settled RSS per phone after a restart", `${f(p.rssPerPhoneAfterRestartMiB, 2)} MiB (${f(p.settledRssAfterRestartMiB)} MiB)`, "< 0.5 MiB", p.phones >= 100 ? p.rssPerPhoneAfterRestartMiB < 0.5 : null),
      ...(p.phones > 1 ? [row("RSS per phone beyond the first (Baileys loaded once)", `${f(p.marginalRssPerPhoneMiB, 2)} MiB (one phone ${f(p.oneRssMiB)} MiB); after a restart ${f(p.marginalRssPerPhoneAfterRestartMiB, 2)} MiB`, "", null)] : []),
      row(p.phones > 1 ? "pairing all phones but the first" : "pairing the phone", `${f(p.pairSeconds)} s; wagate CPU ${f(p.wagateCpuMsPerPhonePairing, 0)} ms per phone`, "", null),
      row("/healthz while pairing", probe(p.healthzWhilePairing), "p99 < 50 ms", p.healthzWhilePairing.p99Ms < 50),
      row("sandbox GET /v1/messages/{id} while pairing", probe(p.messageWhilePairing), "p99 < 50 ms", p.messageWhilePairing.p99Ms < 50),
      row("all reconnected after a restart", `${f(p.reconnectSeconds)} s; wagate CPU ${f(p.wagateCpuMsPerPhoneReconnecting, 0)} ms per phone`, "≤ 60 s", p.reconnectSeconds <= 60),
      row("/healthz while reconnecting", probe(p.healthzWhileReconnecting), "p99 < 50 ms", p.healthzWhileReconnecting.p99Ms < 50),
      row("sandbox GET /v1/messages/{id} while reconnecting", probe(p.messageWhileReconnecting), "p99 < 50 ms", p.messageWhileReconnecting.p99Ms < 50),
    ].join("\n"),
  )
}

function printMedia(m: MediaFigures): void {
  const f = (n: number, d = 1) => n.toFixed(d)
  console.log(
    [
      "",
      `| media case (${m.files} live documents of ${f(m.fileMiB, 0)} MiB, one phone) | result | target | |`,
      "| --- | --- | --- | --- |",
      row("RSS rise while sending", `${f(m.riseMiB)} MiB (${f(m.idleRssMiB)} → peak ${f(m.peakRssMiB)} MiB)`, `≤ ${m.budgetMiB} MiB (WAGATE_MEDIA_MEMORY_MB)`, m.riseMiB <= m.budgetMiB),
      row("all sent", `${f(m.seconds)} s (${f((m.files * m.fileMiB) / m.seconds)} MiB/s)`, "", null),
    ].join("\n"),
  )
}

function printInboundMedia(m: InboundMediaFigures): void {
  const f = (n: number, d = 1) => n.toFixed(d)
  console.log(
    [
      "",
      `| inbound media case (one cached ${f(m.fileMiB, 0)} MiB document) | result | target | |`,
      "| --- | --- | --- | --- |",
      row("first request (download, check, decrypt, cache)", `${f(m.firstDownloadMs)} ms`, "", null),
      row("cached file served, request to last byte", `p50 ${f(m.serveP50Ms)} ms, p95 ${f(m.serveP95Ms)} ms (Bun.serve + Bun.file alone: p50 ${f(m.floorP50Ms)} ms)`, `p50 < ${INBOUND_SERVE_TARGET_MS} ms`, m.serveP50Ms < INBOUND_SERVE_TARGET_MS),
      row(
        `RSS while ${m.clients} clients download it at once (${m.concurrentRoundMs.length} rounds: ${m.concurrentRoundMs.join(", ")} ms)`,
        `+${f(m.riseMiB)} MiB (${f(m.idleRssMiB)} → peak ${f(m.peakRssMiB)} MiB)`,
        `< ${f(INBOUND_RSS_RISE_TARGET_MIB, 0)} MiB (one file)`,
        m.riseMiB < INBOUND_RSS_RISE_TARGET_MIB,
      ),
    ].join("\n"),
  )
}

async function main() {
  if (process.argv.includes("--no-build") === false) {
    const build = spawnSync("bun", ["run", "build"], { cwd: REPO, encoding: "utf8" })
    if (build.status !== 0) throw new Error(`build failed: ${build.stderr}`)
  }
  const machine = `${cpus().length} × ${cpus()[0]?.model ?? "cpu"}, bun ${Bun.version}, generator ${hasWrk() ? "wrk" : "built-in"}${PIN ? ", pinned (server core 0, generator core 1)" : ", unpinned"}`
  console.log(`machine: ${machine}`)
  const only = process.argv.find((a) => a.startsWith("--only="))?.slice(7)
  const partial: Record<string, unknown> = { machine, takenAt: new Date().toISOString(), rounds: ROUNDS, durationSeconds: DURATION_S }
  // Each case's figures are written as soon as it ends, so a later failure loses nothing.
  const step = async <T>(name: string, fn: () => Promise<T>): Promise<T | null> => {
    if (only && only !== name) return null
    const value = await fn()
    partial[name] = value
    writeFileSync(join(REPO, "bench-results.json"), JSON.stringify(partial, null, 2))
    progress(`${name} done`)
    return value
  }
  const coldStart = await step("coldStart", benchColdStart)
  const startup = await step("startup", benchStartup)
  const send = await step("send", benchSend)
  const list = await step("list", benchList)
  const webhooks = await step("webhooks", benchWebhooks)
  const webhookCpu = await step("webhookCpu", benchWebhookCpu)
  const floors = await step("floors", benchFloors)
  const phones = await step("phones", async () => {
    const tools = { startWagate, stopProc, rssMiB, cpuSeconds, tempDir, cli, progress }
    const perCount: Awaited<ReturnType<typeof benchPhones>>[] = []
    for (const count of BENCH_PHONES) perCount.push(await benchPhones(tools, count))
    return perCount
  })
  for (const figures of phones ?? []) printPhones(figures)
  const reconnect = await step("reconnect", () => benchReconnect({ startWagate, stopProc, rssMiB, tempDir, progress }))
  if (reconnect) {
    const f = (n: number) => n.toFixed(1)
    console.log(
      `reconnect, ${reconnect.cycles} disconnect/connect cycles of one paired phone: lowest RSS ${f(reconnect.rssAfterWarmupMiB)} MiB in the 20 cycles after the ${reconnect.warmupCycles}-cycle warm-up → ` +
        `${f(reconnect.rssAfterCyclesMiB)} MiB in the last 20, growth ${f(reconnect.growthAfterWarmupMiB)} MiB; settled ${f(reconnect.settledRssMiB)} MiB ` +
        `(target < 10 MiB${reconnect.growthAfterWarmupMiB < 10 ? ", met" : ", MISSED"}); every ten cycles ${reconnect.rssEveryTenMiB.join(", ")} MiB; ${reconnect.secondsPerCycle.toFixed(2)} s a cycle`,
    )
  }
  const media = await step("media", () => benchMedia({ startWagate, stopProc, rssMiB, cpuSeconds, tempDir, cli, progress }))
  if (media) printMedia(media)
  const inboundMedia = await step("inboundMedia", () => benchInboundMedia({ startWagate, stopProc, rssMiB, cpuSeconds, tempDir, cli, progress }))
  if (inboundMedia) printInboundMedia(inboundMedia)
  const cluster = await step("cluster", () => benchCluster({ startWagate, stopProc, cpuSeconds, tempDir, cli, progress }))
  if (cluster) console.log(clusterRows(cluster, row).join("\n"))
  const failover = await step("clusterFailover", () => benchFailover({ progress }))
  if (failover) console.log(failoverLine(failover))
  const polls = await step("polls", benchPolls)
  if (polls) console.log(pollLines(polls).join("\n"))
  const streams = await step("streams", () => benchStreams({ startWagate, stopProc, rssMiB, tempDir, progress }))
  if (streams) console.log(streamLines(streams).join("\n"))
  const pictures = await step("pictures", () => benchPictures(progress))
  if (pictures) console.log(pictureLines(pictures).join("\n"))
  const chats = await step("chats", () => benchChats(progress))
  if (chats) console.log(chatLines(chats).join("\n"))
  const historySync = await step("historySync", () => benchHistorySync(progress))
  if (historySync) console.log(historySyncLines(historySync).join("\n"))
  const amqp = await step("amqp", () => benchAmqp(progress))
  if (amqp) console.log(amqpLines(amqp).join("\n"))
  if (webhookCpu) {
    console.log(
      `webhook CPU per sandbox message: ${webhookCpu.noEndpointUsPerMessage.toFixed(0)} µs with no endpoint, ` +
        `${webhookCpu.oneEndpointUsPerMessage.toFixed(0)} µs with one endpoint on "*" (3 deliveries), ratio ${webhookCpu.ratio.toFixed(2)} (target ≤ 3.0); ` +
        `last event ${webhookCpu.worstLastEventLagMs} ms after it fell due (target ≤ 1000); rounds ${JSON.stringify(webhookCpu.rounds)}`,
    )
  }
  if (!coldStart || !startup || !send || !list || !webhooks || !webhookCpu || !floors) return
  // What the send/bare ratio could be if a send cost the bare route plus the store floor, nothing more.
  const bareUs = 1e6 / send.bare.requestsPerSecond
  const ratioCeiling = bareUs / (bareUs + floors.storeUsPerSend)
  const f = (n: number, d = 1) => n.toFixed(d)
  console.log(
    [
      "",
      "| case | result | target | |",
      "| --- | --- | --- | --- |",
      row("bare Elysia POST (TypeBox)", `${f(send.bare.requestsPerSecond, 0)} req/s, p99 ${f(send.bare.p99Ms)} ms`, "baseline", null),
      row("sandbox send, unique idempotency keys, c=64", `${f(send.send.requestsPerSecond, 0)} req/s, p50 ${f(send.send.p50Ms)} ms, p99 ${f(send.send.p99Ms)} ms`, "", null),
      row("send / bare ratio (median of rounds)", `${f(send.sendRatio.median, 2)} (${f(send.sendRatio.min, 2)}–${f(send.sendRatio.max, 2)})`, "≥ 0.30", send.sendRatio.median >= 0.3),
      row("store floor of one sandbox send (its required writes only)", `${f(floors.storeUsPerSend)} µs; so the ratio cannot pass ${f(ratioCeiling, 2)}`, "", null),
      row("send p99 at c=64", `${f(send.send.p99Ms)} ms`, "≤ 25 ms", send.send.p99Ms <= 25),
      row("GET message by id, c=64", `${f(send.getById.requestsPerSecond, 0)} req/s, p99 ${f(send.getById.p99Ms)} ms`, "", null),
      row(`list page 1 (${list.rows} rows)`, `p50 ${f(list.page1.p50Ms, 2)} ms, ${f(list.page1.requestsPerSecond, 0)} req/s`, "p50 ≤ 1 ms", list.page1.p50Ms <= 1),
      row(`list page ${list.deepPage}`, `p50 ${f(list.pageDeep.p50Ms, 2)} ms, ${f(list.pageDeep.requestsPerSecond, 0)} req/s`, "p50 ≤ 5 ms", list.pageDeep.p50Ms <= 5),
      row(
        `sends on the ${f(list.grownDbBytes / 2 ** 30, 2)} → ${f(list.finalDbBytes / 2 ** 30, 2)} GiB database`,
        `worst p99 ${f(list.sendsOnLargeDb.worstP99Ms)} ms, max ${f(list.sendsOnLargeDb.maxMs)} ms`,
        "p99 ≤ 50 ms",
        list.sendsOnLargeDb.worstP99Ms <= 50,
      ),
      ...list.dashboardPages.map((p) =>
        row(`dashboard ${p.path.replace(/[?&]account=[^&]+&env=test/, "")} (${list.rows} rows)`, `p50 ${f(p.p50Ms, 2)} ms, max ${f(p.maxMs, 1)} ms`, `p50 ≤ ${DASHBOARD_PAGE_TARGET_MS} ms`, p.p50Ms <= DASHBOARD_PAGE_TARGET_MS),
      ),
      row("webhook deliveries", `${f(webhooks.deliveriesPerSecond, 0)} /s, median of ${webhooks.rounds.length} (${webhooks.rounds.map((r) => r.perSecond).join(", ")}); about ${f(webhooks.events, 0)} due at once; server CPU ${f(webhooks.serverCpuUsPerDelivery, 0)} µs each`, "≥ 10,000/s", webhooks.deliveriesPerSecond >= 10_000),
      row("webhook CPU per sandbox message, one endpoint on \"*\" / none", `${f(webhookCpu.oneEndpointUsPerMessage, 0)} / ${f(webhookCpu.noEndpointUsPerMessage, 0)} µs = ${f(webhookCpu.ratio, 2)} ×`, "≤ 3.0 ×", webhookCpu.ratio <= 3.0),
      row("last event's arrival after it fell due", `${f(webhookCpu.worstLastEventLagMs, 0)} ms (worst of ${webhookCpu.rounds.length})`, "≤ 1 s", webhookCpu.worstLastEventLagMs <= 1000),
      row("fetch floor (Bun fetch alone, no database)", `${f(floors.fetchesPerSecond, 0)} /s, ${f(floors.fetchCpuUs)} µs of CPU each`, "", null),
      row("cold start to first 200", `${f(coldStart.medianMs)} ms`, "≤ 150 ms", coldStart.medianMs <= 150),
      row("restart to first 200 (data directory set up)", `${f(startup.restartMs)} ms, max ${f(startup.restartMaxMs)} ms`, "< 100 ms", startup.restartMs < 100),
      row("`wagate version` / `wagate help`", `${f(startup.versionMs)} ms / ${f(startup.helpMs)} ms (compiled hello-world ${f(startup.helloWorldMs)} ms)`, "≤ 40 ms", Math.max(startup.versionMs, startup.helpMs) <= 40),
      row("idle RSS", `${f(send.idleRssMiB)} MiB`, "≤ 80 MiB", send.idleRssMiB <= 80),
      row(`RSS after ${send.sendsBeforeRss} sends`, `${f(send.rssAfterSendsMiB)} MiB`, "≤ 160 MiB", send.rssAfterSendsMiB <= 160),
      row("SIGTERM to exit", `${f(send.shutdownMs, 0)} ms`, "≤ 10 s", send.shutdownMs <= 10_000),
    ].join("\n"),
  )
  console.log("\nfigures written to bench-results.json")
}

try {
  await main()
} finally {
  for (const p of procs) if (p.exitCode === null) p.kill("SIGKILL")
  for (const d of dirs) rmSync(d, { recursive: true, force: true })
}
