import { SQL } from "bun"
import { LEASE_DEFAULTS } from "../../src/domain/lease-timings"
import { pgLeaseQueries } from "../../src/store/postgres/leases"
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
 * - Lease upkeep at 1,000 phones: the CPU of the renewals a node makes in one idle window while
 *   it holds 1,000 phone leases, made with the node's own statements (leaseUpkeep says why not
 *   by a running node).
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

/**
 * The CPU a node spends keeping LEASE_PHONES leases, over one idle window's worth of renewals.
 * Only phones that need a connection are leased (docs/architecture.md § "Nodes and leases"), and
 * a wagate node connects those it gains, so 1,000 leases on a live node would be 1,000 WhatsApp
 * sockets. The renewals are therefore made by this process with the node's own statements
 * (pgLeaseQueries) on 1,000 phones marked as needing a connection, back to back: the CPU they
 * take here is what the keeper spends on them, without the sockets.
 */
async function leaseUpkeep(tools: ClusterBenchTools): Promise<ClusterFigures["leaseUpkeep"]> {
  const url = await migratedDatabase(tools)
  tools.progress(`cluster: ${LEASE_PHONES} phones that need a connection`)
  const maker = await tools.startWagate(tools.tempDir(), { WAGATE_DATABASE_URL: url, WAGATE_NODE_ID: "maker" })
  const admin = adminClient(() => maker.base, secretOf(maker.out, "Admin token"))
  const accountId = secretOf(maker.out, "Account")
  for (let i = 0; i < LEASE_PHONES; i++) await admin("POST", `/accounts/${accountId}/phones`, { phoneNumber: `+1555${String(3_000_000 + i).padStart(7, "0")}` })
  await tools.stopProc(maker.proc)
  const sql = new SQL(url, { max: 1 })
  try {
    await sql`UPDATE phones SET connection_status = 'disconnected'`
    const leases = pgLeaseQueries(sql)
    const node = { nodeId: "leases", instanceId: "bench" }
    const { leaseMs } = LEASE_DEFAULTS
    await leases.registerNode({ ...node, maxPhones: LEASE_PHONES, nowMs: Date.now(), leaseMs })
    const claimed = await leases.claimPhones(node, LEASE_PHONES, Date.now(), leaseMs)
    if (claimed.length !== LEASE_PHONES) throw new Error(`claimed ${claimed.length} leases, not ${LEASE_PHONES}`)
    const renewals = IDLE_WINDOW_S / RENEW_EVERY_S
    tools.progress(`cluster: ${renewals} renewals of ${LEASE_PHONES} leases`)
    const before = process.cpuUsage()
    for (let i = 0; i < renewals; i++) {
      const renewed = await leases.renewLeases(node, Date.now(), leaseMs)
      if (renewed.held.length !== LEASE_PHONES) throw new Error(`a renewal kept ${renewed.held.length} leases, not ${LEASE_PHONES}`)
    }
    const used = process.cpuUsage(before)
    const cpuSeconds = (used.user + used.system) / 1e6
    return {
      phones: LEASE_PHONES,
      windowSeconds: IDLE_WINDOW_S,
      cpuSeconds,
      percentOfCore: (cpuSeconds / IDLE_WINDOW_S) * 100,
      usPerRenewal: (cpuSeconds * 1e6) / renewals,
      usPerLeaseRenewed: (cpuSeconds * 1e6) / (renewals * LEASE_PHONES),
    }
  } finally {
    await sql.close()
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
      `lease upkeep, ${u.phones} phones (the renewals of ${u.windowSeconds} s: ${f(u.cpuSeconds, 2)} s of CPU)`,
      `${f(u.percentOfCore, 2)} % of a core; ${f(u.usPerRenewal, 0)} µs per renewal, ${f(u.usPerLeaseRenewed, 2)} µs per lease`,
      `< ${LEASE_UPKEEP_TARGET_PERCENT} % of a core`,
      u.percentOfCore < LEASE_UPKEEP_TARGET_PERCENT,
    ),
  ]
}
