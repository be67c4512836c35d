import type { NodeSummary } from "../store/leases"

/*
 * The nodes as `wagate nodes` and the dashboard show them (docs/architecture.md § "Nodes and
 * leases"): each with its state and ages rather than raw times, computed from one reading of the
 * clock so every row agrees.
 */

/** live: heartbeating; stopping: released its phones at shutdown; silent: no heartbeat for a lease (dead, paused or cut off). */
export type NodeState = "live" | "stopping" | "silent"

export interface NodeListEntry {
  nodeId: string
  state: NodeState
  phones: number
  maxPhones: number
  /** Where it takes forwarded requests (WAGATE_NODE_URL); null when it set none. */
  url: string | null
  heartbeatAgeMs: number
  /** Since this process of the node registered. */
  upForMs: number
  /** Age of its oldest and newest lease; null when it holds none. */
  oldestLeaseAgeMs: number | null
  newestLeaseAgeMs: number | null
}

/** Whether a node counts as running: it heartbeat within a lease and has not released. */
export function isLiveNode(node: Pick<NodeSummary, "heartbeatAtMs" | "stopping">, nowMs: number, leaseMs: number): boolean {
  return !node.stopping && node.heartbeatAtMs > nowMs - leaseMs
}

/** The nodes with their state and ages, in the store's order (by node id). */
export function nodeList(nodes: readonly NodeSummary[], nowMs: number, leaseMs: number): NodeListEntry[] {
  const age = (atMs: number | null) => (atMs === null ? null : Math.max(0, nowMs - atMs))
  return nodes.map((n) => ({
    nodeId: n.nodeId,
    state: n.stopping ? "stopping" : isLiveNode(n, nowMs, leaseMs) ? "live" : "silent",
    phones: n.phones,
    maxPhones: n.maxPhones,
    url: n.url,
    heartbeatAgeMs: age(n.heartbeatAtMs)!,
    upForMs: age(n.startedAtMs)!,
    oldestLeaseAgeMs: age(n.oldestLeaseAcquiredAtMs),
    newestLeaseAgeMs: age(n.newestLeaseAcquiredAtMs),
  }))
}
