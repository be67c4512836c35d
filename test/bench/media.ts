import { randomBytes } from "node:crypto"
import { generateLoopbackCertificate, startWaSim } from "../wa-sim"
import { adminClient, poll, type PhonesBenchTools } from "./phones"

/*
 * `bun run bench --only=media`: a live key sends BENCH_MEDIA_FILES documents of BENCH_MEDIA_MIB
 * MiB each (default ten of 100 MiB) through one paired phone, and wagate's RSS is sampled while
 * it downloads, encrypts and uploads them. The target (issue 19): RSS rises by no more than
 * WAGATE_MEDIA_MEMORY_MB, because downloads stream to disk and hand-offs share that budget
 * (docs/live-whatsapp.md § "On disk, not in memory").
 */

const MiB = 1024 * 1024
const FILES = Number(process.env.BENCH_MEDIA_FILES ?? 10)
// WhatsApp's document cap is 100 MiB, and the simulator's upload cap counts the encrypted file
// (padding and a MAC on top), so the plaintext stays just under it.
const FILE_BYTES = Math.min(Number(process.env.BENCH_MEDIA_MIB ?? 100) * MiB, 100 * MiB - 64)
const BUDGET_MIB = Number(process.env.BENCH_MEDIA_MEMORY_MB ?? 64)

export interface MediaFigures {
  files: number
  fileMiB: number
  budgetMiB: number
  idleRssMiB: number
  peakRssMiB: number
  riseMiB: number
  seconds: number
}

export async function benchMedia(tools: PhonesBenchTools): Promise<MediaFigures> {
  const cert = await generateLoopbackCertificate()
  const sim = await startWaSim({ mediaCert: cert })
  // One file's bytes, served at FILES paths: the bench process holds it once.
  const document = new Uint8Array(FILE_BYTES)
  document.set(new TextEncoder().encode("%PDF-1.7\n"))
  document.set(randomBytes(1024 * 1024), 16)
  const files = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    tls: { cert: cert.certPem, key: cert.keyPem },
    // `?bytes=N` serves the first N bytes only (the warm-up's small file).
    fetch: (request) => {
      const bytes = Number(new URL(request.url).searchParams.get("bytes") ?? document.length)
      return new Response(document.subarray(0, bytes), { headers: { "content-type": "application/pdf" } })
    },
  })
  try {
    const me = "+15550101000"
    const to = "+15550102000"
    sim.contact({ phoneNumber: to, name: "Receiver" })
    const dir = tools.tempDir()
    const wagate = await tools.startWagate(dir, {
      WAGATE_WA_WS_URL: sim.wsUrl,
      WAGATE_WA_VERSION: "2.3000.1027934701",
      WAGATE_LOG_LEVEL: "error",
      NODE_EXTRA_CA_CERTS: sim.mediaCaPath,
      WAGATE_OUTBOUND_ALLOW_CIDRS: "127.0.0.1/32",
      WAGATE_SEND_INTERVAL_MS: "0",
      WAGATE_MEDIA_MEMORY_MB: String(BUDGET_MIB),
    })
    const adminToken = /Admin token: +(adm_\w+)/.exec(wagate.out)![1]!
    const accountId = /Account: +(acc_\w+)/.exec(wagate.out)![1]!
    const admin = adminClient(() => wagate.base, adminToken)
    const phoneId = (await admin("POST", `/accounts/${accountId}/phones`, { phoneNumber: me })).id
    await admin("POST", `/phones/${phoneId}/connect`, { method: "qr" })
    await sim.primary(me).scanShownQr(async () => (await admin("GET", `/phones/${phoneId}/pairing`)).qr ?? undefined, 60_000)
    await poll(async () => ((await admin("GET", `/phones/${phoneId}/pairing`)).connectionStatus === "connected" ? true : undefined), "the phone connected", 60_000)
    const key = (await admin("POST", `/accounts/${accountId}/keys`, { environment: "live", name: "media bench", scopes: ["messages:send", "messages:read"] })).key
    const api = { authorization: `Bearer ${key}`, "content-type": "application/json" }

    const sendOne = async (url: string): Promise<string> => {
      const res = await fetch(`${wagate.base}/v1/messages/send`, { method: "POST", headers: api, body: JSON.stringify({ fromPhoneId: me, to, mediaUrls: [url] }) })
      if (res.status !== 201) throw new Error(`send ${url}: ${res.status} ${await res.text()}`)
      return ((await res.json()) as { data: { id: string } }).data.id
    }
    const sent = (id: string) =>
      poll(
        async () => {
          const m = (await (await fetch(`${wagate.base}/v1/messages/${id}`, { headers: api })).json()) as { data: { status: string; errorMessage: string | null } }
          if (m.data.status === "failed") throw new Error(`message ${id} failed: ${m.data.errorMessage}`)
          return m.data.status === "pending" ? undefined : true
        },
        `message ${id} sent`,
        600_000,
        200,
      )
    // One small document first: the code of a media send (TLS, the type sniffer, Baileys' upload)
    // loads once per process, and is not what the budget bounds.
    await sent(await sendOne(`https://127.0.0.1:${files.port}/warm-up.pdf?bytes=1048576`))
    await Bun.sleep(2_000)
    const idleRssMiB = tools.rssMiB(wagate.proc.pid)
    let peakRssMiB = idleRssMiB
    const sampler = setInterval(() => (peakRssMiB = Math.max(peakRssMiB, tools.rssMiB(wagate.proc.pid))), 20)
    const started = performance.now()
    const ids: string[] = []
    for (let i = 0; i < FILES; i++) ids.push(await sendOne(`https://127.0.0.1:${files.port}/report-${i}.pdf`))
    tools.progress(`media: ${FILES} sends of ${(FILE_BYTES / MiB).toFixed(0)} MiB queued`)
    for (const id of ids) await sent(id)
    const seconds = (performance.now() - started) / 1000
    clearInterval(sampler)
    await tools.stopProc(wagate.proc)
    return { files: FILES, fileMiB: FILE_BYTES / MiB, budgetMiB: BUDGET_MIB, idleRssMiB, peakRssMiB, riseMiB: peakRssMiB - idleRssMiB, seconds }
  } finally {
    await files.stop(true)
    await sim.stop()
  }
}
