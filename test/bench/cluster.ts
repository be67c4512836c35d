import { LEASE_DEFAULTS } from "../../src/domain/lease-timings"
import { freshDatabase } from "../helpers/postgres"
import { runLoad, runLoads, type LoadResult, type LoadSpec } from "./loadgen"
import { adminClient, poll } from "./phones"

/*
 * `bun run bench --only=cluster` (issue 21, "Done when"): wagate on PostgreSQL beside SQLite in
 * the same run, on a throwaway PostgreSQL server on 127.0.0.1 (test/helpers/postgres.ts).
 *
 * - Sandbox sends per second on one node on SQLite and one node on PostgreSQL, round by round in
 *   turn, so their ratio comes from the same minutes of the machine; then two and three nodes on
 *   the one PostgreSQL database loaded at once, per node and summed. Every wagate runs pinned
 *   like the send case (server core, generator core); PostgreSQL's own processes are not pinned.
 * - Lease upkeep at 1,000 phones: a node holding 1,000 phone leases (unpaired phones, added
 *   through the admin API: every phone has a lease row and is claimed, with no WhatsApp socket)
 *   beside an idle node with none, each on a database of its own, over the same idle window; the
 *   difference of their CPU time is what renewing 1,000 leases costs.
 * The failover after SIGKILL is the `clusterFailover` case (test/bench/failover.ts).
 */

const PHONE = "+14155550123"
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
const DURATION_S = Number(process.env.BENCH_SECONDS ?? 10)
/** The node counts loaded at once on one database, after the single node. */
const CLUSTER_SIZES = (process.env.BENCH_CLUSTER_NODES ?? "2,3").split(",").map((n) => Number(n.trim()))
const LEASE_PHONES = Number(process.env.BENCH_LEASE_PHONES ?? 1_000)
const IDLE_WINDOW_S = Number(process.env.BENCH_LEASE_IDLE_S ?? 60)
/** The keeper's renewal interval, to count the renewals in the window. */
const RENEW_EVERY_S = LEASE_DEFAULTS.renewEveryMs / 1_000
/** Lease upkeep target: a share of one core. */
export const LEASE_UPKEEP_TARGET_PERCENT = 1

interface Wagate {
  proc: ReturnType<typeof Bun.spawn>
  base: string
  out: string
}

/** What run.ts lends this case, so it starts and stops wagate as the other cases do. */
export interface ClusterBenchTools {
  startWagate(dir: string, env: Record<string, string>, firstRun?: boolean): Promise<Wagate>
  stopProc(proc: ReturnType<typeof Bun.spawn>): Promise<number>
  cpuSeconds(pid: number): number
  tempDir(): string
  cli(dir: string, args: string[], env?: Record<string, string>): string
  progress(text: string): void
}

export interface SendFigures {
  requestsPerSecond: number
  p99Ms: number
  errors: number
  runs: number[]
}

export interface ClusterFigures {
  rounds: number
  durationSeconds: number
  sqlite: SendFigures
  postgres: SendFigures
  /** One PostgreSQL node's sends/s over one SQLite node's, per round. */
  postgresRatio: { median: number; min: number; max: number }
  /** Several nodes on one database, loaded at once. */
  clusters: { nodes: number; perNode: SendFigures[]; summedPerSecond: number }[]
  leaseUpkeep: {
    phones: number
    windowSeconds: number
    cpuSeconds: number
    idleNodeCpuSeconds: number
    percentOfCore: number
    usPerRenewal: number
    usPerLeaseRenewed: number
  }
}

const median = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b)
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2
}

function figures(runs: LoadResult[]): SendFigures {
  return {
    requestsPerSecond: median(runs.map((r) => r.requestsPerSecond)),
    p99Ms: median(runs.map((r) => r.p99Ms)),
    errors: runs.reduce((sum, r) => sum + r.errors, 0),
    runs: runs.map((r) => Math.round(r.requestsPerSecond)),
  }
}

const secretOf = (out: string, label: string) => new RegExp(`${label}: +(\\w+)`).exec(out)![1]!

function sendSpec(w: Wagate, key: string, durationSeconds: number): LoadSpec {
  return {
    url: `${w.base}/v1/messages/send`,
    method: "POST",
    headers: { "Content-Type": "application/json", Authorization: `Bearer ${key}` },
    body: `{"fromPhoneId":"${PHONE}","to":"+14155550199","content":"bench","idempotencyKey":"k-{n}"}`,
    connections: 64,
    durationSeconds,
  }
}

/** A fresh database on the throwaway server with wagate's schema, through `wagate migrate`. */
async function migratedDatabase(tools: ClusterBenchTools): Promise<string> {
  const url = await freshDatabase()
  tools.cli(tools.tempDir(), ["migrate"], { WAGATE_DATABASE_URL: url })
  return url
}

/** A first wagate on a new store with the sandbox phone; returns it and its sandbox key. */
async function firstNode(tools: ClusterBenchTools, env: Record<string, string>) {
  const w = await tools.startWagate(tools.tempDir(), env)
  const admin = adminClient(() => w.base, secretOf(w.out, "Admin token"))
  await admin("POST", `/accounts/${secretOf(w.out, "Account")}/phones`, { phoneNumber: PHONE })
  return { w, key: secretOf(w.out, "Sandbox key"), admin, accountId: secretOf(w.out, "Account") }
}

/** One node on SQLite against one on PostgreSQL, round by round; then 2 and 3 PostgreSQL nodes at once. */
async function sends(tools: ClusterBenchTools) {
  const url = await migratedDatabase(tools)
  const pgEnv = (n: number) => ({ WAGATE_DATABASE_URL: url, WAGATE_NODE_ID: `bench-${n}` })
  tools.progress("cluster: starting a SQLite node and a PostgreSQL node")
  const lite = await firstNode(tools, {})
  const pg = await firstNode(tools, pgEnv(1))
  await runLoad(sendSpec(lite.w, lite.key, 2))
  await runLoad(sendSpec(pg.w, pg.key, 2))
  const liteRuns: LoadResult[] = []
  const pgRuns: LoadResult[] = []
  for (let round = 0; round < ROUNDS; round++) {
    tools.progress(`cluster: sends, round ${round + 1} of ${ROUNDS}`)
    liteRuns.push(await runLoad(sendSpec(lite.w, lite.key, DURATION_S)))
    pgRuns.push(await runLoad(sendSpec(pg.w, pg.key, DURATION_S)))
  }
  await tools.stopProc(lite.w.proc)
  const ratios = pgRuns.map((r, i) => r.requestsPerSecond / liteRuns[i]!.requestsPerSecond)
  const nodes = [pg.w]
  const clusters: ClusterFigures["clusters"] = []
  for (const size of CLUSTER_SIZES) {
    while (nodes.length < size) nodes.push(await tools.startWagate(tools.tempDir(), pgEnv(nodes.length + 1), false))
    tools.progress(`cluster: sends on ${size} PostgreSQL nodes at once`)
    await runLoads(nodes.map((w) => sendSpec(w, pg.key, 2)))
    const perNode: LoadResult[][] = nodes.map(() => [])
    for (let round = 0; round < ROUNDS; round++) {
      const results = await runLoads(nodes.map((w) => sendSpec(w, pg.key, DURATION_S)))
      results.forEach((r, i) => perNode[i]!.push(r))
    }
    const summed = median(Array.from({ length: ROUNDS }, (_, round) => perNode.reduce((sum, runs) => sum + runs[round]!.requestsPerSecond, 0)))
    clusters.push({ nodes: size, perNode: perNode.map(figures), summedPerSecond: summed })
  }
  for (const w of nodes) await tools.stopProc(w.proc)
  return {
    sqlite: figures(liteRuns),
    postgres: figures(pgRuns),
    postgresRatio: { median: median(ratios), min: Math.min(...ratios), max: Math.max(...ratios) },
    clusters,
  }
}

/** The CPU a node spends keeping LEASE_PHONES leases, beyond an idle node's, over one idle window. */
async function leaseUpkeep(tools: ClusterBenchTools): Promise<ClusterFigures["leaseUpkeep"]> {
  const [busyUrl, idleUrl] = await Promise.all([migratedDatabase(tools), migratedDatabase(tools)])
  const maxPhones = String(LEASE_PHONES + 10)
  tools.progress(`cluster: a node with ${LEASE_PHONES} phone leases and an idle one`)
  const busy = await tools.startWagate(tools.tempDir(), { WAGATE_DATABASE_URL: busyUrl, WAGATE_NODE_ID: "leases", WAGATE_NODE_MAX_PHONES: maxPhones })
  const idle = await tools.startWagate(tools.tempDir(), { WAGATE_DATABASE_URL: idleUrl, WAGATE_NODE_ID: "idle", WAGATE_NODE_MAX_PHONES: maxPhones })
  const admin = adminClient(() => busy.base, secretOf(busy.out, "Admin token"))
  const accountId = secretOf(busy.out, "Account")
  for (let i = 0; i < LEASE_PHONES; i++) await admin("POST", `/accounts/${accountId}/phones`, { phoneNumber: `+1555${String(3_000_000 + i).padStart(7, "0")}` })
  const held = async () => ((await admin("GET", "/nodes")).nodes as { nodeId: string; phones: number }[]).find((n) => n.nodeId === "leases")?.phones ?? 0
  await poll(async () => ((await held()) >= LEASE_PHONES ? true : undefined), `${LEASE_PHONES} leases held`, 60_000, 500)
  // Let the admin requests' work settle before the window opens.
  await Bun.sleep(2 * RENEW_EVERY_S * 1_000)
  const busyBefore = tools.cpuSeconds(busy.proc.pid)
  const idleBefore = tools.cpuSeconds(idle.proc.pid)
  tools.progress(`cluster: measuring lease upkeep for ${IDLE_WINDOW_S} s`)
  await Bun.sleep(IDLE_WINDOW_S * 1_000)
  const cpuSeconds = tools.cpuSeconds(busy.proc.pid) - busyBefore
  const idleNodeCpuSeconds = tools.cpuSeconds(idle.proc.pid) - idleBefore
  const stillHeld = await held()
  if (stillHeld < LEASE_PHONES) throw new Error(`the node held ${stillHeld} leases at the end of the window, not ${LEASE_PHONES}`)
  await tools.stopProc(busy.proc)
  await tools.stopProc(idle.proc)
  const upkeepS = Math.max(0, cpuSeconds - idleNodeCpuSeconds)
  const renewals = IDLE_WINDOW_S / RENEW_EVERY_S
  return {
    phones: LEASE_PHONES,
    windowSeconds: IDLE_WINDOW_S,
    cpuSeconds,
    idleNodeCpuSeconds,
    percentOfCore: (upkeepS / IDLE_WINDOW_S) * 100,
    usPerRenewal: (upkeepS * 1e6) / renewals,
    usPerLeaseRenewed: (upkeepS * 1e6) / (renewals * LEASE_PHONES),
  }
}

export async function benchCluster(tools: ClusterBenchTools): Promise<ClusterFigures> {
  const sent = await sends(tools)
  return { rounds: ROUNDS, durationSeconds: DURATION_S, ...sent, leaseUpkeep: await leaseUpkeep(tools) }
}

/** The case's rows for the printed table, with run.ts's row format. */
export function clusterRows(c: ClusterFigures, row: (name: string, value: string, target: string, met: boolean | null) => string): string[] {
  const f = (n: number, d = 1) => n.toFixed(d)
  const rps = (s: SendFigures) => `${f(s.requestsPerSecond, 0)} req/s, p99 ${f(s.p99Ms)} ms (${s.runs.join(", ")})`
  const u = c.leaseUpkeep
  return [
    "",
    `| cluster case (sandbox sends c=64 per node, ${c.rounds} rounds of ${c.durationSeconds} s; PostgreSQL on 127.0.0.1) | result | target | |`,
    "| --- | --- | --- | --- |",
    row("one node on SQLite", rps(c.sqlite), "", null),
    row("one node on PostgreSQL", rps(c.postgres), "", null),
    row("PostgreSQL / SQLite, one node (median of rounds)", `${f(c.postgresRatio.median, 2)} (${f(c.postgresRatio.min, 2)}–${f(c.postgresRatio.max, 2)})`, "reported", null),
    ...c.clusters.map((k) =>
      row(
        `${k.nodes} nodes on one PostgreSQL at once, per node`,
        `${k.perNode.map((n) => f(n.requestsPerSecond, 0)).join(" + ")} = ${f(k.summedPerSecond, 0)} req/s (${f(k.summedPerSecond / c.sqlite.requestsPerSecond, 2)} × one SQLite node)`,
        "reported",
        null,
      ),
    ),
    row(
      `lease upkeep, ${u.phones} phones (${u.windowSeconds} s idle, minus an idle node's ${f(u.idleNodeCpuSeconds, 2)} s)`,
      `${f(u.percentOfCore, 2)} % of a core; ${f(u.usPerRenewal, 0)} µs per renewal, ${f(u.usPerLeaseRenewed, 2)} µs per lease`,
      `< ${LEASE_UPKEEP_TARGET_PERCENT} % of a core`,
      u.percentOfCore < LEASE_UPKEEP_TARGET_PERCENT,
    ),
  ]
}
