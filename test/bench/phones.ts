import { join } from "node:path"
import { startWaSim } from "../wa-sim"

/*
 * `bun run bench --only=phones`: how many phones one wagate holds (issue 14, "Phones per box").
 * It starts the WhatsApp simulator in this process and one wagate pointed at it, pairs
 * BENCH_PHONES simulated phones by QR (BENCH_PAIR_PARALLEL at a time, as people would scan), and
 * measures settled RSS per phone, `/healthz` and sandbox `GET /v1/messages/{id}` latency while
 * the phones pair and while they reconnect after a restart (timed from separate processes), and
 * how long that reconnect takes.
 */

/**
 * The phone counts to run, each on a fresh wagate: `BENCH_PHONES=1,100,1000` gives the figures
 * per N; a full run's default leaves out 1,000, which takes several minutes of both cores.
 */
export const BENCH_PHONES: number[] = (process.env.BENCH_PHONES ?? "1,100").split(",").map((n) => Number(n.trim()))
const PAIR_PARALLEL = Number(process.env.BENCH_PAIR_PARALLEL ?? 10)
const SETTLE_MS = Number(process.env.BENCH_PHONES_SETTLE_S ?? 10) * 1_000

interface Wagate {
  proc: ReturnType<typeof Bun.spawn>
  base: string
  out: string
}

/** What run.ts lends this case, so both start and stop wagate the same way. */
export interface PhonesBenchTools {
  startWagate(dir: string, env: Record<string, string>, firstRun?: boolean): Promise<Wagate>
  stopProc(proc: ReturnType<typeof Bun.spawn>): Promise<number>
  rssMiB(pid: number): number
  cpuSeconds(pid: number): number
  tempDir(): string
  cli(dir: string, args: string[]): string
  progress(text: string): void
}

export interface ProbeFigures {
  samples: number
  p50Ms: number
  p99Ms: number
  maxMs: number
}

function percentile(sorted: number[], fraction: number): number {
  if (sorted.length === 0) return 0
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!
}

function figures(latenciesMs: number[]): ProbeFigures {
  const sorted = [...latenciesMs].sort((a, b) => a - b)
  return { samples: sorted.length, p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99), maxMs: sorted.at(-1) ?? 0 }
}

/**
 * Times `url` in a separate process (test/bench/probe.ts), since this one runs the simulator's
 * crypto and would delay its own measurements; the figures come from `stop()`.
 */
function probe(url: string, bearer?: string): { stop: () => Promise<ProbeFigures> } {
  const proc = Bun.spawn(["bun", join(import.meta.dir, "probe.ts"), url, ...(bearer ? [bearer] : [])], { stdout: "pipe", stderr: "inherit" })
  return {
    async stop() {
      proc.kill("SIGTERM")
      const text = await new Response(proc.stdout).text()
      await proc.exited
      return figures(JSON.parse(text) as number[])
    },
  }
}

/** Calls the admin API of the wagate at `baseOf()`; returns `data`, throws on an error answer. */
export function adminClient(baseOf: () => string, adminToken: string) {
  return async (method: string, path: string, body?: unknown): Promise<any> => {
    const res = await fetch(`${baseOf()}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${adminToken}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const json = (await res.json()) as { data: any }
    if (res.status >= 300) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json)}`)
    return json.data
  }
}

export async function poll<T>(probeOnce: () => Promise<T | undefined>, what: string, timeoutMs: number, gapMs = 200): Promise<T> {
  const deadline = performance.now() + timeoutMs
  while (performance.now() < deadline) {
    const value = await probeOnce()
    if (value !== undefined) return value
    await Bun.sleep(gapMs)
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
}

export async function benchPhones(tools: PhonesBenchTools, phones: number) {
  const sim = await startWaSim()
  try {
    const dir = tools.tempDir()
    const env = { WAGATE_WA_WS_URL: sim.wsUrl, WAGATE_WA_VERSION: "2.3000.1027934701", WAGATE_LOG_LEVEL: "error" }
    tools.progress(`phones: starting wagate for ${phones} phones`)
    let wagate = await tools.startWagate(dir, env)
    const adminToken = /Admin token: +(adm_\w+)/.exec(wagate.out)![1]!
    const sandboxKey = /Sandbox key: +(sk_test_\w+)/.exec(wagate.out)![1]!
    const accountId = /Account: +(acc_\w+)/.exec(wagate.out)![1]!
    // The base is read at each call: a restart below gives wagate a new port.
    const admin = adminClient(() => wagate.base, adminToken)

    // One sandbox message to read back while the phones pair and reconnect.
    const sandboxPhone = "+14155550123"
    tools.cli(dir, ["phones", "add", sandboxPhone])
    const sandboxHeaders = { authorization: `Bearer ${sandboxKey}`, "content-type": "application/json" }
    const sent = await fetch(`${wagate.base}/v1/messages/send`, {
      method: "POST",
      headers: sandboxHeaders,
      body: JSON.stringify({ fromPhoneId: sandboxPhone, to: "+14155550199", content: "bench", idempotencyKey: "phones-bench" }),
    })
    const messageId = ((await sent.json()) as { data: { id: string } }).data.id
    await Bun.sleep(2_000)
    const idleRssMiB = tools.rssMiB(wagate.proc.pid)

    const numbers = Array.from({ length: phones }, (_, index) => `+1555${String(2_000_000 + index).padStart(7, "0")}`)
    const phoneIds: string[] = []
    for (const phoneNumber of numbers) phoneIds.push((await admin("POST", `/accounts/${accountId}/phones`, { phoneNumber })).id)

    const startProbes = () => ({
      healthz: probe(`${wagate.base}/healthz`),
      message: probe(`${wagate.base}/v1/messages/${messageId}`, sandboxKey),
    })
    const stopProbes = (running: ReturnType<typeof startProbes>) => Promise.all([running.healthz.stop(), running.message.stop()])
    const pairOne = async (index: number) => {
      const phoneId = phoneIds[index]!
      await admin("POST", `/phones/${phoneId}/connect`, { method: "qr" })
      // The simulator retires the first QR's secret, as WhatsApp does: the phone scans the QR shown next.
      await sim.primary(numbers[index]!).scanShownQr(async () => (await admin("GET", `/phones/${phoneId}/pairing`)).qr ?? undefined, 60_000)
      await poll(async () => ((await admin("GET", `/phones/${phoneId}/pairing`)).connectionStatus === "connected" ? true : undefined), `phone ${index} connected`, 60_000)
    }
    // The first phone alone: loading Baileys is paid once per process, not per phone, so the
    // marginal RSS per phone is counted from here. With one phone, that phone is the one timed.
    const firstAlone = phones > 1
    let oneRssMiB = 0
    if (firstAlone) {
      await pairOne(0)
      await Bun.sleep(2_000)
      oneRssMiB = tools.rssMiB(wagate.proc.pid)
    }
    const timedPhones = firstAlone ? phones - 1 : phones

    tools.progress(`phones: pairing ${timedPhones}${firstAlone ? " more" : ""}, ${PAIR_PARALLEL} at a time`)
    let probes = startProbes()
    const pairStartedAt = performance.now()
    const cpuBefore = process.cpuUsage()
    const wagateCpuBefore = tools.cpuSeconds(wagate.proc.pid)
    let next = firstAlone ? 1 : 0
    const worker = async () => {
      while (next < phoneIds.length) await pairOne(next++)
    }
    await Promise.all(Array.from({ length: PAIR_PARALLEL }, worker))
    const pairSeconds = (performance.now() - pairStartedAt) / 1_000
    const simCpu = process.cpuUsage(cpuBefore)
    const wagateCpuPairingS = tools.cpuSeconds(wagate.proc.pid) - wagateCpuBefore
    const [healthzWhilePairing, messageWhilePairing] = await stopProbes(probes)

    tools.progress(`phones: ${phones} paired in ${pairSeconds.toFixed(1)} s; settling ${SETTLE_MS / 1_000} s`)
    await Bun.sleep(SETTLE_MS)
    const settledRssMiB = tools.rssMiB(wagate.proc.pid)
    if (!firstAlone) oneRssMiB = settledRssMiB

    tools.progress("phones: restarting wagate")
    await tools.stopProc(wagate.proc)
    await poll(async () => (sim.loggedInConnections().length === 0 ? true : undefined), "the old connections to close", 20_000, 50)
    const restartedAt = performance.now()
    wagate = await tools.startWagate(dir, env, false)
    probes = startProbes()
    await poll(async () => (sim.loggedInConnections().length >= phones ? true : undefined), `${phones} phones to log in again`, 120_000, 50)
    const reconnectSeconds = (performance.now() - restartedAt) / 1_000
    // From process start: includes the boot itself (tens of ms), small beside N reconnects.
    const wagateCpuReconnectingS = tools.cpuSeconds(wagate.proc.pid)
    const [healthzWhileReconnecting, messageWhileReconnecting] = await stopProbes(probes)
    await Bun.sleep(SETTLE_MS)
    const settledRssAfterRestartMiB = tools.rssMiB(wagate.proc.pid)
    await tools.stopProc(wagate.proc)

    return {
      phones,
      pairParallel: PAIR_PARALLEL,
      idleRssMiB,
      settledRssMiB,
      rssPerPhoneMiB: (settledRssMiB - idleRssMiB) / phones,
      oneRssMiB,
      marginalRssPerPhoneMiB: phones > 1 ? (settledRssMiB - oneRssMiB) / (phones - 1) : 0,
      settledRssAfterRestartMiB,
      rssPerPhoneAfterRestartMiB: (settledRssAfterRestartMiB - idleRssMiB) / phones,
      marginalRssPerPhoneAfterRestartMiB: phones > 1 ? (settledRssAfterRestartMiB - oneRssMiB) / (phones - 1) : 0,
      pairSeconds,
      wagateCpuMsPerPhonePairing: (wagateCpuPairingS * 1_000) / timedPhones,
      wagateCpuMsPerPhoneReconnecting: (wagateCpuReconnectingS * 1_000) / phones,
      simulatorCpuSecondsWhilePairing: (simCpu.user + simCpu.system) / 1e6,
      healthzWhilePairing,
      messageWhilePairing,
      reconnectSeconds,
      healthzWhileReconnecting,
      messageWhileReconnecting,
    }
  } finally {
    await sim.stop()
  }
}
