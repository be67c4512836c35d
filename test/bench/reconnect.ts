import { startWaSim } from "../wa-sim"
import { adminClient, poll, type PhonesBenchTools } from "./phones"

/*
 * `bun run bench --only=reconnect`: what reconnecting costs a long-running wagate in memory
 * (issue 27, "Reconnect memory"; WhiskeySockets/Baileys#2806). One paired phone is disconnected
 * and connected again through the admin API BENCH_RECONNECT_CYCLES times (default 100) against
 * the simulator. Bun collects garbage when it likes, so one RSS reading swings by 20 to 40 MiB
 * between cycles; what a leak raises is the floor, the reading just after a collection. The
 * figure is the growth of the lowest RSS of the 20 cycles after the warm-up
 * (BENCH_RECONNECT_WARMUP cycles, default 10) to the lowest of the last 20, read after each cycle.
 */

const CYCLES = Number(process.env.BENCH_RECONNECT_CYCLES ?? 100)
const WARMUP = Number(process.env.BENCH_RECONNECT_WARMUP ?? 10)
const SETTLE_MS = 3_000
const PHONE = "+15550081111"
/** Cycles in each window whose lowest RSS reading is compared. */
const WINDOW = 20

function lowest(values: number[]): number {
  return Math.min(...values)
}

export interface ReconnectFigures {
  cycles: number
  warmupCycles: number
  idleRssMiB: number
  /** Lowest RSS of the 20 cycles after the warm-up. */
  rssAfterWarmupMiB: number
  /** Lowest RSS of the last 20 cycles. */
  rssAfterCyclesMiB: number
  growthAfterWarmupMiB: number
  /** RSS after every tenth cycle. */
  rssEveryTenMiB: number[]
  /** RSS after the last cycle and a few seconds of quiet. */
  settledRssMiB: number
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

      const rssByCycle: number[] = []
      const rssEveryTenMiB: number[] = []
      const started = performance.now()
      for (let cycle = 1; cycle <= CYCLES; cycle++) {
        await admin("POST", `/phones/${phoneId}/disconnect`)
        await status(phoneId, "disconnected")
        await admin("POST", `/phones/${phoneId}/connect`, { method: "qr" })
        await status(phoneId, "connected")
        rssByCycle.push(tools.rssMiB(wagate.proc.pid))
        if (cycle % 10 === 0) {
          rssEveryTenMiB.push(Math.round(tools.rssMiB(wagate.proc.pid) * 10) / 10)
          tools.progress(`reconnect: ${cycle} cycles, RSS ${rssEveryTenMiB.at(-1)} MiB`)
        }
      }
      const secondsPerCycle = (performance.now() - started) / 1000 / CYCLES
      await Bun.sleep(SETTLE_MS)
      const settledRssMiB = tools.rssMiB(wagate.proc.pid)
      const rssAfterWarmupMiB = lowest(rssByCycle.slice(WARMUP, WARMUP + WINDOW))
      const rssAfterCyclesMiB = lowest(rssByCycle.slice(-WINDOW))
      return {
        cycles: CYCLES,
        warmupCycles: WARMUP,
        idleRssMiB,
        rssAfterWarmupMiB,
        rssAfterCyclesMiB,
        growthAfterWarmupMiB: rssAfterCyclesMiB - rssAfterWarmupMiB,
        rssEveryTenMiB,
        settledRssMiB,
        secondsPerCycle,
      }
    } finally {
      await tools.stopProc(wagate.proc)
    }
  } finally {
    await sim.stop()
  }
}
