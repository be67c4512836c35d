import { expect, test } from "bun:test"
import { isLiveNode, nodeList } from "../../src/domain/node-list"
import type { NodeSummary } from "../../src/store/leases"

const NOW = 1_000_000_000
const LEASE = 15_000
const node = (over: Partial<NodeSummary>): NodeSummary => ({
  nodeId: "n",
  instanceId: "i",
  startedAtMs: NOW - 60_000,
  heartbeatAtMs: NOW - 1_000,
  maxPhones: 1000,
  stopping: false,
  url: null,
  phones: 0,
  oldestLeaseAcquiredAtMs: null,
  newestLeaseAcquiredAtMs: null,
  ...over,
})

test.each([
  ["a fresh heartbeat is live", node({}), true],
  ["a heartbeat just under a lease old is live", node({ heartbeatAtMs: NOW - LEASE + 1 }), true],
  ["a heartbeat a lease old is not", node({ heartbeatAtMs: NOW - LEASE }), false],
  ["a node that released is not, however fresh", node({ stopping: true }), false],
] as const)("isLiveNode: %s", (_name, n, live) => {
  expect(isLiveNode(n, NOW, LEASE)).toBe(live)
})

test("nodeList gives each node its state and ages, in the store's order", () => {
  const nodes = [
    node({ nodeId: "a", url: "http://10.0.0.1:3000", phones: 2, oldestLeaseAcquiredAtMs: NOW - 50_000, newestLeaseAcquiredAtMs: NOW - 5_000 }),
    node({ nodeId: "b", stopping: true, heartbeatAtMs: NOW - 2_000 }),
    node({ nodeId: "c", heartbeatAtMs: NOW - 40_000, startedAtMs: NOW - 90_000 }),
  ]
  expect(nodeList(nodes, NOW, LEASE)).toEqual([
    { nodeId: "a", state: "live", phones: 2, maxPhones: 1000, url: "http://10.0.0.1:3000", heartbeatAgeMs: 1_000, upForMs: 60_000, oldestLeaseAgeMs: 50_000, newestLeaseAgeMs: 5_000 },
    { nodeId: "b", state: "stopping", phones: 0, maxPhones: 1000, url: null, heartbeatAgeMs: 2_000, upForMs: 60_000, oldestLeaseAgeMs: null, newestLeaseAgeMs: null },
    { nodeId: "c", state: "silent", phones: 0, maxPhones: 1000, url: null, heartbeatAgeMs: 40_000, upForMs: 90_000, oldestLeaseAgeMs: null, newestLeaseAgeMs: null },
  ])
})
