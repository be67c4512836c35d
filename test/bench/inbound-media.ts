import { randomBytes } from "node:crypto"
import { writeFileSync } from "node:fs"
import { join } from "node:path"
import { hasTaskset } from "./loadgen"
import { generateLoopbackCertificate, startWaSim } from "../wa-sim"
import { adminClient, poll, type PhonesBenchTools } from "./phones"

/*
 * `bun run bench --only=inboundMedia`: a simulated contact sends a BENCH_INBOUND_MIB MiB document
 * (default 10) to a paired phone; the first GET /v1/messages/inbound/{id}/media downloads and
 * decrypts it into the media cache. Then two figures (issue 20): serving the cached file
 * (request to last byte, sequential) costs under 20 ms, and wagate's RSS stays flat while
 * BENCH_INBOUND_CLIENTS clients (default 20) download it at once, several rounds, because the
 * file is streamed from disk and never read into memory (docs/api.md § "Inbound media: GET
 * /v1/messages/inbound/{messageId}/media").
 */

const MiB = 1024 * 1024
const FILE_BYTES = Number(process.env.BENCH_INBOUND_MIB ?? 10) * MiB
const CLIENTS = Number(process.env.BENCH_INBOUND_CLIENTS ?? 20)
const SERIAL_REQUESTS = 50
const CONCURRENT_ROUNDS = 5
/** The serving target: request to last byte of the cached file, median. */
export const INBOUND_SERVE_TARGET_MS = 20
/** "Flat": the RSS rise while every client downloads stays under one file's size (a server that buffered would rise by clients × size). */
export const INBOUND_RSS_RISE_TARGET_MIB = FILE_BYTES / MiB

export interface InboundMediaFigures {
  fileMiB: number
  firstDownloadMs: number
  serveP50Ms: number
  serveP95Ms: number
  /** The same loop against Bun.serve + Bun.file alone, pinned the same way: what this machine allows right now. */
  floorP50Ms: number
  clients: number
  idleRssMiB: number
  peakRssMiB: number
  riseMiB: number
  concurrentRoundMs: number[]
}

/** Sequential downloads of `url`, request to last byte, sorted; each must be `bytes` long. */
async function serialDownloads(url: string, headers: Record<string, string>, bytes: number, count: number): Promise<number[]> {
  const times: number[] = []
  for (let i = 0; i < count + 5; i++) {
    const started = performance.now()
    const res = await fetch(url, { headers })
    const got = (await res.arrayBuffer()).byteLength
    if (res.status !== 200 || got !== bytes) throw new Error(`GET ${url}: ${res.status}, ${got} bytes`)
    // The first five warm the connection and the page cache.
    if (i >= 5) times.push(performance.now() - started)
  }
  return times.sort((a, b) => a - b)
}

/** The floor: the same file served by a bare Bun.serve in its own process, on the same core as wagate. */
async function floorP50Ms(tools: PhonesBenchTools, bytes: Uint8Array): Promise<number> {
  const path = join(tools.tempDir(), "floor.bin")
  writeFileSync(path, bytes)
  const cmd = ["bun", join(import.meta.dir, "file-floor.ts"), path]
  const proc = Bun.spawn(hasTaskset() && process.env.BENCH_PIN !== "0" ? ["taskset", "-c", "0", ...cmd] : cmd, { stdout: "pipe", stderr: "inherit" })
  try {
    const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader()
    let out = ""
    while (!/listening on (\d+)/.test(out)) {
      const { done, value } = await reader.read()
      if (done) throw new Error(`the floor server ended: ${out}`)
      out += new TextDecoder().decode(value)
    }
    const port = /listening on (\d+)/.exec(out)![1]
    return percentile(await serialDownloads(`http://127.0.0.1:${port}/`, {}, bytes.length, SERIAL_REQUESTS), 0.5)
  } finally {
    await tools.stopProc(proc)
  }
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!

export async function benchInboundMedia(tools: PhonesBenchTools): Promise<InboundMediaFigures> {
  const cert = await generateLoopbackCertificate()
  const sim = await startWaSim({ mediaCert: cert })
  try {
    const me = "+15550111000"
    const contact = sim.contact({ phoneNumber: "+15550112000", name: "Sender" })
    const wagate = await tools.startWagate(tools.tempDir(), {
      WAGATE_WA_WS_URL: sim.wsUrl,
      WAGATE_WA_VERSION: "2.3000.1027934701",
      WAGATE_LOG_LEVEL: "error",
      NODE_EXTRA_CA_CERTS: sim.mediaCaPath,
      WAGATE_RATE_LIMIT_PER_MINUTE: "1000000",
    })
    const adminToken = /Admin token: +(adm_\w+)/.exec(wagate.out)![1]!
    const accountId = /Account: +(acc_\w+)/.exec(wagate.out)![1]!
    const admin = adminClient(() => wagate.base, adminToken)
    const phoneId = (await admin("POST", `/accounts/${accountId}/phones`, { phoneNumber: me })).id
    await admin("POST", `/phones/${phoneId}/connect`, { method: "qr" })
    await sim.primary(me).scanShownQr(async () => (await admin("GET", `/phones/${phoneId}/pairing`)).qr ?? undefined, 60_000)
    await poll(async () => ((await admin("GET", `/phones/${phoneId}/pairing`)).connectionStatus === "connected" ? true : undefined), "the phone connected", 60_000)
    const key = (await admin("POST", `/accounts/${accountId}/keys`, { environment: "live", name: "inbound media bench", scopes: ["messages:read"] })).key
    const auth = { authorization: `Bearer ${key}` }

    const document = new Uint8Array(randomBytes(FILE_BYTES))
    await sim.sendInbound(contact, { document, fileName: "scan.pdf", mimetype: "application/pdf" })
    const id = await poll(
      async () => ((await (await fetch(`${wagate.base}/v1/messages/inbound`, { headers: auth })).json()) as { data: { data: { id: string }[] } }).data.data[0]?.id,
      "the inbound document",
      60_000,
    )
    const url = `${wagate.base}/v1/messages/inbound/${id}/media`
    /** One download, request to last byte; checks the length. */
    const download = async (): Promise<number> => {
      const started = performance.now()
      const res = await fetch(url, { headers: auth })
      const bytes = (await res.arrayBuffer()).byteLength
      if (res.status !== 200 || bytes !== FILE_BYTES) throw new Error(`GET ${url}: ${res.status}, ${bytes} bytes`)
      return performance.now() - started
    }
    const firstDownloadMs = await download()
    const serial = await serialDownloads(url, auth, FILE_BYTES, SERIAL_REQUESTS)

    await Bun.sleep(1_000)
    const idleRssMiB = tools.rssMiB(wagate.proc.pid)
    let peakRssMiB = idleRssMiB
    const sampler = setInterval(() => (peakRssMiB = Math.max(peakRssMiB, tools.rssMiB(wagate.proc.pid))), 5)
    const concurrentRoundMs: number[] = []
    for (let round = 0; round < CONCURRENT_ROUNDS; round++) {
      const started = performance.now()
      await Promise.all(Array.from({ length: CLIENTS }, () => download()))
      concurrentRoundMs.push(Math.round(performance.now() - started))
    }
    clearInterval(sampler)
    await tools.stopProc(wagate.proc)
    const floor = await floorP50Ms(tools, document)
    return {
      fileMiB: FILE_BYTES / MiB,
      firstDownloadMs,
      serveP50Ms: percentile(serial, 0.5),
      serveP95Ms: percentile(serial, 0.95),
      floorP50Ms: floor,
      clients: CLIENTS,
      idleRssMiB,
      peakRssMiB,
      riseMiB: peakRssMiB - idleRssMiB,
      concurrentRoundMs,
    }
  } finally {
    await sim.stop()
  }
}
