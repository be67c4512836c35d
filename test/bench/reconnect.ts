import { startWaSim } from "../wa-sim"
import { adminClient, poll, type PhonesBenchTools } from "./phones"

/*
 * `bun run bench --only=reconnect`: what reconnecting costs a long-running wagate in memory
 * (issue 27, "Reconnect memory"; WhiskeySockets/Baileys#2806). One paired phone is disconnected
 * and connected again through the admin API BENCH_RECONNECT_CYCLES times (default 100) against
 * the simulator; the figure is wagate's RSS growth from the end of the warm-up
 * (BENCH_RECONNECT_WARMUP cycles, default 10) to the end, each read after the process settled.
 */

const CYCLES = Number(process.env.BENCH_RECONNECT_CYCLES ?? 100)
const WARMUP = Number(process.env.BENCH_RECONNECT_WARMUP ?? 10)
const SETTLE_MS = 3_000
const PHONE = "+15550081111"

export interface ReconnectFigures {
  cycles: number
  warmupCycles: number
  idleRssMiB: number
  rssAfterWarmupMiB: number
  rssAfterCyclesMiB: number
  growthAfterWarmupMiB: number
  /** RSS after every tenth cycle, settled only at the warm-up and the end. */
  rssEveryTenMiB: number[]
  secondsPerCycle: number
}

export async function benchReconnect(tools: Pick<PhonesBenchTools, "startWagate" | "stopProc" | "rssMiB" | "tempDir" | "progress">): Promise<ReconnectFigures> {
  const sim = await startWaSim()
  try {
    const dir = tools.tempDir()
    const wagate = await tools.startWagate(dir, { WAGATE_WA_WS_URL: sim.wsUrl, WAGATE_WA_VERSION: "2.3000.1027934701", WAGATE_LOG_LEVEL: "error" })
    try {
      const admin = adminClient(() => wagate.base, /Admin token: +(adm_\w+)/.exec(wagate.out)![1]!)
      const accountId = /Account: +(acc_\w+)/.exec(wagate.out)![1]!
      const status = async (phoneId: string, wanted: string) =>
        poll(async () => ((await admin("GET", `/phones/${phoneId}/pairing`)).connectionStatus === wanted ? true : undefined), `phone ${wanted}`, 60_000, 50)
      await Bun.sleep(SETTLE_MS)
      const idleRssMiB = tools.rssMiB(wagate.proc.pid)
      const phoneId: string = (await admin("POST", `/accounts/${accountId}/phones`, { phoneNumber: PHONE })).id
      await admin("POST", `/phones/${phoneId}/connect`, { method: "qr" })
      await sim.primary(PHONE).scanShownQr(async () => (await admin("GET", `/phones/${phoneId}/pairing`)).qr ?? undefined, 60_000)
      await status(phoneId, "connected")
      tools.progress("reconnect: paired; cycling")

      let rssAfterWarmupMiB = 0
      const rssEveryTenMiB: number[] = []
      const started = performance.now()
      for (let cycle = 1; cycle <= CYCLES; cycle++) {
        await admin("POST", `/phones/${phoneId}/disconnect`)
        await status(phoneId, "disconnected")
        await admin("POST", `/phones/${phoneId}/connect`, { method: "qr" })
        await status(phoneId, "connected")
        if (cycle === WARMUP) {
          await Bun.sleep(SETTLE_MS)
          rssAfterWarmupMiB = tools.rssMiB(wagate.proc.pid)
        }
        if (cycle % 10 === 0) {
          rssEveryTenMiB.push(Math.round(tools.rssMiB(wagate.proc.pid) * 10) / 10)
          tools.progress(`reconnect: ${cycle} cycles, RSS ${rssEveryTenMiB.at(-1)} MiB`)
        }
      }
      const secondsPerCycle = (performance.now() - started) / 1000 / CYCLES
      await Bun.sleep(SETTLE_MS)
      const rssAfterCyclesMiB = tools.rssMiB(wagate.proc.pid)
      return {
        cycles: CYCLES,
        warmupCycles: WARMUP,
        idleRssMiB,
        rssAfterWarmupMiB,
        rssAfterCyclesMiB,
        growthAfterWarmupMiB: rssAfterCyclesMiB - rssAfterWarmupMiB,
        rssEveryTenMiB,
        secondsPerCycle,
      }
    } finally {
      await tools.stopProc(wagate.proc)
    }
  } finally {
    await sim.stop()
  }
}
