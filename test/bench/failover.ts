import { ClusterWorld, type NodeId } from "../cluster/cluster-world"

/*
 * `bun run bench --only=clusterFailover`: how long a node's phones are away when it goes (issue
 * 21, target ≤ 15 s with the default lease and 30 phones). Each round builds a fresh world of
 * three nodes on one PostgreSQL database with 30 simulated phones (test/cluster/cluster-world.ts),
 * stops the node that holds a third of them, and times from the signal until every phone is
 * connected on the other two (lease holder running, status connected, logged in at the simulator):
 * once after SIGKILL (its leases must run out first) and once after SIGTERM (it hands them over).
 */

const ROUNDS = Number(process.env.BENCH_FAILOVER_ROUNDS ?? 3)

export interface FailoverBenchTools {
  progress(text: string): void
}

export interface FailoverFigures {
  phones: number
  rounds: number
  /** Seconds from SIGKILL until every phone of the killed node was connected on the others, per round. */
  killSeconds: number[]
  killMedianSeconds: number
  /** The same after SIGTERM. */
  termSeconds: number[]
  termMedianSeconds: number
  /** How many phones the stopped node held, per round (kill, then term). */
  victimPhones: number[]
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/** Stops the node holding the most phones with `signal`; seconds until they are connected on the others. */
async function oneRound(signal: "SIGKILL" | "SIGTERM", tools: FailoverBenchTools): Promise<{ seconds: number; phones: number }> {
  const world = await ClusterWorld.start()
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
    tools.progress(`clusterFailover: ${signal} of ${victim} (${held} phones): connected on the others in ${seconds.toFixed(1)} s`)
    return { seconds, phones: held }
  } finally {
    await world.dispose()
  }
}

export async function benchFailover(tools: FailoverBenchTools): Promise<FailoverFigures> {
  const killSeconds: number[] = []
  const termSeconds: number[] = []
  const victimPhones: number[] = []
  for (const [signal, into] of [["SIGKILL", killSeconds], ["SIGTERM", termSeconds]] as const) {
    for (let round = 0; round < ROUNDS; round++) {
      tools.progress(`clusterFailover: ${signal} round ${round + 1} of ${ROUNDS}, building three nodes with 30 phones`)
      const result = await oneRound(signal, tools)
      into.push(result.seconds)
      victimPhones.push(result.phones)
    }
  }
  return {
    phones: 30,
    rounds: ROUNDS,
    killSeconds,
    killMedianSeconds: median(killSeconds),
    termSeconds,
    termMedianSeconds: median(termSeconds),
    victimPhones,
  }
}
