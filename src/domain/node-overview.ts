import { toIso } from "../lib/time"
import type { LeaseQueries } from "../store/leases"
import type { PhonesQueries } from "../store/store"
import { nodeList, type NodeState } from "./node-list"

/*
 * What the operator sees of the nodes (docs/admin.md § "Nodes"): the admin route
 * `GET /admin/v1/nodes`, `wagate nodes --json` and the dashboard's Nodes page all show this one
 * shape, built from one reading of the clock. On SQLite the one running process is the only node
 * and registers no node row, so the list is empty there and `explanation` says why, instead of
 * an entry made up for a process the store knows nothing about.
 */

/** Said on SQLite, where there is no list of nodes to show. */
export const SQLITE_NODES_EXPLANATION =
  "This wagate keeps its data in SQLite, so it runs as one node that owns every phone and registers no node row. " +
  "Nodes share the phones only when they share a PostgreSQL database (WAGATE_DATABASE_URL); see docs/operations.md, \"Running several nodes\"."

/** A phone a node holds, with its lease. */
export interface NodeLeaseView {
  phoneId: string
  /** Null when the phone was removed after its lease was read. */
  phoneNumber: string | null
  connectionStatus: string | null
  token: number
  acquiredAt: string
  ageMs: number
  expiresAt: string
}

export interface NodeView {
  nodeId: string
  state: NodeState
  phones: number
  maxPhones: number
  /** Where it takes forwarded requests (WAGATE_NODE_URL); null when it set none. */
  url: string | null
  startedAt: string
  heartbeatAt: string
  heartbeatAgeMs: number
  upForMs: number
  oldestLeaseAgeMs: number | null
  newestLeaseAgeMs: number | null
  /** Only when the phones were asked for: the node's held leases, by phone id. */
  leases?: NodeLeaseView[]
}

export interface NodeOverview {
  store: "sqlite" | "postgres"
  /** How long a lease runs without renewal; a node silent this long is `silent`. */
  leaseMs: number
  /** On SQLite, why no node is listed; null on PostgreSQL. */
  explanation: string | null
  /** Phones no node holds now (no owner, released or expired); null on SQLite, where the one process owns them all. */
  unownedPhones: number | null
  nodes: NodeView[]
}

/** What the overview reads of the store. */
export type NodeOverviewStore = Pick<LeaseQueries, "listNodes" | "listPhoneLeases" | "countUnownedPhones"> &
  Pick<PhonesQueries, "listAllPhones"> & { readonly kind: "sqlite" | "postgres" }

export interface NodeOverviewOptions {
  nowMs: number
  leaseMs: number
  /** List each node's phones with their leases (reads every phone: for one look, not for polling at scale). */
  withPhones: boolean
}

/** The nodes with their state, ages and (when asked) phones. */
export async function nodeOverview(store: NodeOverviewStore, options: NodeOverviewOptions): Promise<NodeOverview> {
  const { nowMs, leaseMs } = options
  const summaries = await store.listNodes(nowMs)
  const leasesByNode = options.withPhones ? await heldLeasesByNode(store, nowMs) : null
  const nodes = nodeList(summaries, nowMs, leaseMs).map((entry, i): NodeView => {
    const summary = summaries[i]!
    return {
      nodeId: entry.nodeId,
      state: entry.state,
      phones: entry.phones,
      maxPhones: entry.maxPhones,
      url: entry.url,
      startedAt: toIso(summary.startedAtMs),
      heartbeatAt: toIso(summary.heartbeatAtMs),
      heartbeatAgeMs: entry.heartbeatAgeMs,
      upForMs: entry.upForMs,
      oldestLeaseAgeMs: entry.oldestLeaseAgeMs,
      newestLeaseAgeMs: entry.newestLeaseAgeMs,
      ...(leasesByNode ? { leases: leasesByNode.get(entry.nodeId) ?? [] } : {}),
    }
  })
  const sqlite = store.kind === "sqlite"
  return {
    store: store.kind,
    leaseMs,
    explanation: sqlite ? SQLITE_NODES_EXPLANATION : null,
    unownedPhones: sqlite ? null : await store.countUnownedPhones(nowMs),
    nodes,
  }
}

/** The leases held at `nowMs` (an owner and not expired, as listNodes counts them), grouped by node. */
async function heldLeasesByNode(store: NodeOverviewStore, nowMs: number): Promise<Map<string, NodeLeaseView[]>> {
  const [leases, phones] = await Promise.all([store.listPhoneLeases(), store.listAllPhones()])
  const phoneById = new Map(phones.map((p) => [p.id, p]))
  const byNode = new Map<string, NodeLeaseView[]>()
  for (const lease of leases) {
    if (lease.nodeId === null || lease.expiresAtMs <= nowMs) continue
    const phone = phoneById.get(lease.phoneId)
    let list = byNode.get(lease.nodeId)
    if (!list) byNode.set(lease.nodeId, (list = []))
    list.push({
      phoneId: lease.phoneId,
      phoneNumber: phone?.phoneNumber ?? null,
      connectionStatus: phone?.connectionStatus ?? null,
      token: lease.token,
      acquiredAt: toIso(lease.acquiredAtMs),
      ageMs: Math.max(0, nowMs - lease.acquiredAtMs),
      expiresAt: toIso(lease.expiresAtMs),
    })
  }
  return byNode
}
