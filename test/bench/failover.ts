import { FAST_FAILOVER_LEASE_MS, LEASE_DEFAULTS } from "../../src/domain/lease-timings"
import { ClusterWorld, type NodeId } from "../cluster/cluster-world"

/*
 * `bun run bench --only=clusterFailover`: how long a node's phones are away when it goes (issue
 * 28: a median ≤ 10 s after SIGKILL with the default lease, ≤ 5 s with WAGATE_NODE_LEASE_MS at
 * FAST_FAILOVER_LEASE_MS). Each round builds a fresh world of three nodes on one PostgreSQL
 * database with 30 simulated phones (test/cluster/cluster-world.ts), stops the node that holds
 * the most of them, and times from the signal until every phone is connected on the other two
 * (lease holder running, status connected, logged in at the simulator): after SIGKILL with the
 * default lease (its leases must run out first), after SIGKILL with the fast lease, and after
 * SIGTERM (it hands them over).
 */

/** The median targets after SIGKILL, in seconds: default lease, fast lease. */
export const FAILOVER_TARGET_S = { default: 10, fast: 5 } as const

const ROUNDS = Number(process.env.BENCH_FAILOVER_ROUNDS ?? 3)

export interface FailoverBenchTools {
  progress(text: string): void
}

export interface FailoverFigures {
  phones: number
  rounds: number
  /** Seconds from SIGKILL until every phone of the killed node was connected on the others, per round (default lease). */
  killSeconds: number[]
  killMedianSeconds: number
  /** The same with WAGATE_NODE_LEASE_MS at FAST_FAILOVER_LEASE_MS. */
  fastKillSeconds: number[]
  fastKillMedianSeconds: number
  defaultLeaseMs: number
  fastLeaseMs: number
  /** The same after SIGTERM. */
  termSeconds: number[]
  termMedianSeconds: number
  /** How many phones the stopped node held, per round (kill, fast kill, then term). */
  victimPhones: number[]
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** Stops the node holding the most phones with `signal`; seconds until they are connected on the others. */
async function oneRound(signal: "SIGKILL" | "SIGTERM", env: Record<string, string>, tools: FailoverBenchTools): Promise<{ seconds: number; phones: number }> {
  const world = await ClusterWorld.start({ env })
  try {
    let victim: NodeId = "n1"
    let held = 0
    for (const node of world.nodes) {
      const phones = (await world.phonesHeldBy(node.nodeId)).length
      if (phones > held) [victim, held] = [node.nodeId, phones]
    }
    const node = world.node(victim)
    const stoppedAt = performance.now()
    if (signal === "SIGKILL") await node.kill()
    else node.proc.kill("SIGTERM")
    await world.waitAllConnected({ timeoutMs: 120_000, notOn: [victim] })
    const seconds = (performance.now() - stoppedAt) / 1_000
    tools.progress(`clusterFailover: ${signal} of ${victim} (${held} phones, ${JSON.stringify(env)}): connected on the others in ${seconds.toFixed(1)} s`)
    return { seconds, phones: held }
  } finally {
    await world.dispose()
  }
}

export async function benchFailover(tools: FailoverBenchTools): Promise<FailoverFigures> {
  const killSeconds: number[] = []
  const fastKillSeconds: number[] = []
  const termSeconds: number[] = []
  const victimPhones: number[] = []
  const fast = { WAGATE_NODE_LEASE_MS: String(FAST_FAILOVER_LEASE_MS) }
  const cases = [["SIGKILL", {}, killSeconds], ["SIGKILL", fast, fastKillSeconds], ["SIGTERM", {}, termSeconds]] as const
  for (const [signal, env, into] of cases) {
    for (let round = 0; round < ROUNDS; round++) {
      tools.progress(`clusterFailover: ${signal} ${JSON.stringify(env)} round ${round + 1} of ${ROUNDS}, building three nodes with 30 phones`)
      const result = await oneRound(signal, env, tools)
      into.push(result.seconds)
      victimPhones.push(result.phones)
    }
  }
  return {
    phones: 30,
    rounds: ROUNDS,
    killSeconds,
    killMedianSeconds: median(killSeconds),
    fastKillSeconds,
    fastKillMedianSeconds: median(fastKillSeconds),
    defaultLeaseMs: LEASE_DEFAULTS.leaseMs,
    fastLeaseMs: FAST_FAILOVER_LEASE_MS,
    termSeconds,
    termMedianSeconds: median(termSeconds),
    victimPhones,
  }
}

/** The bench's line for the figures, each median judged against its target. */
export function failoverLine(f: FailoverFigures): string {
  const judged = (median: number, target: number) => `target ≤ ${target} s${median <= target ? ", met" : ", MISSED"}`
  const rounds = (values: readonly number[]) => values.map((s) => s.toFixed(1)).join(", ")
  return (
    `cluster failover, 3 nodes, ${f.phones} phones: SIGKILL of the node holding the most → its phones connected on the others in ` +
    `${f.killMedianSeconds.toFixed(1)} s median with the default lease of ${f.defaultLeaseMs} ms (${judged(f.killMedianSeconds, FAILOVER_TARGET_S.default)}; rounds ${rounds(f.killSeconds)}), ` +
    `${f.fastKillMedianSeconds.toFixed(1)} s median with WAGATE_NODE_LEASE_MS=${f.fastLeaseMs} (${judged(f.fastKillMedianSeconds, FAILOVER_TARGET_S.fast)}; rounds ${rounds(f.fastKillSeconds)}); ` +
    `after SIGTERM ${f.termMedianSeconds.toFixed(1)} s median (rounds ${rounds(f.termSeconds)})`
  )
}
