import { SQL } from "bun"
import { afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { LEASE_DEFAULTS } from "../../src/domain/lease-timings"
import type { DeliveryRow, EventRow } from "../../src/store/webhooks"
import { WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT } from "../../src/deps"
import { CLAIM_POLL_MS, claimLeaseFor, silentNodeAfterMs } from "../../src/webhooks/dispatcher"
import type { OutboxEvent } from "../../src/webhooks/outbox"
import { createHarness, type Harness } from "../helpers/harness"
import { testPostgres } from "../helpers/postgres"
import { TestClock } from "../helpers/test-clock"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { waitUntil, WebhookReceiver } from "../helpers/webhook-receiver"
import { addEndpoint } from "../helpers/webhooks"
import { freshMigratedDatabase } from "../store/contract/stores"

/*
 * Two nodes in one process on one PostgreSQL database share the webhook outbox through delivery
 * claims (docs/webhooks.md § "Several nodes"): each attempts only what it claimed, a dead node's
 * claims expire and the other attempts its deliveries, and a node that stops releases the claims
 * of the attempts it abandons so that the other attempts them at once. Both nodes read one test
 * clock, as nodes kept in sync by NTP read theirs.
 */

// A test waits for up to two real-time conditions (deliveries over loopback to PostgreSQL and a
// receiver), each given 30 s so that a loaded 2-core machine slows it without failing it.
setDefaultTimeout(3 * SLOW_TEST_TIMEOUT_MS)

const WEBHOOK_TIMEOUT_MS = 15_000
const nodes: Harness[] = []
let receiver: WebhookReceiver
beforeAll(async () => void (await testPostgres()), SLOW_HOOK_TIMEOUT_MS)
afterEach(async () => {
  for (const h of nodes.splice(0).reverse()) await h.close()
  await receiver?.stop()
}, SLOW_HOOK_TIMEOUT_MS)

async function twoNodes() {
  const url = await freshMigratedDatabase()
  const clock = new TestClock()
  const start = async (nodeId: string) => {
    const h = await createHarness({ clock, env: { WAGATE_DATABASE_URL: url, WAGATE_NODE_ID: nodeId, WAGATE_WEBHOOK_TIMEOUT_MS: String(WEBHOOK_TIMEOUT_MS) } })
    nodes.push(h)
    return h
  }
  const n1 = await start("n1")
  const n2 = await start("n2")
  receiver = new WebhookReceiver()
  const { account } = await n1.seedTenant()
  const endpoint = await addEndpoint(n1, account.id, receiver.url(), { events: ["message.sent"] })
  return { n1, n2, clock, url, accountId: account.id, endpointId: endpoint.id }
}

/** `count` events committed through a node's outbox, as a send would: the node is woken to claim them. */
async function commitEvents(h: Harness, accountId: string, count: number, tag: string): Promise<void> {
  const events: OutboxEvent[] = Array.from({ length: count }, (_, i) => ({
    accountId,
    env: "test",
    type: "message.sent",
    data: { tag, n: i },
    occurredAtMs: h.clock.nowMs(),
  }))
  await h.services.ctx.store.write((q, tx) => h.services.ctx.events.recordMany(q, tx, events))
}

/** How many requests the receiver got per event id. */
function perEvent(): Map<string, number> {
  const counts = new Map<string, number>()
  for (const hook of receiver.received) {
    const id = hook.headers["x-service-event-id"]!
    counts.set(id, (counts.get(id) ?? 0) + 1)
  }
  return counts
}

const succeededOn = (h: Harness) => h.services.metrics.webhookAttempts.get({ result: "succeeded" })
const signedAtS = (hook: { headers: Record<string, string> }) => Number(/t=(\d+)/.exec(hook.headers["x-service-signature"]!)![1])

/**
 * Moves the clock one poll at a time and, after each, waits until every running node's heartbeat
 * is recent enough that it will not count as silent (a lease old) at the next step: the test
 * clock does not wait for PostgreSQL, a renewal is armed only once the previous tick ended (it
 * may fall due a step or two late on a busy box), and a node whose renewals fell a lease behind
 * counts as silent (to the others and to itself), as a node whose clock jumped would.
 */
async function advanceBySeconds(h: Harness, ms: number): Promise<void> {
  const running = nodes.map((n) => n.config.nodeId)
  for (let done = 0; done < ms; done += CLAIM_POLL_MS) {
    await h.advance(Math.min(CLAIM_POLL_MS, ms - done))
    await waitUntil(async () => {
      const listed = await h.services.ctx.store.listNodes(h.clock.nowMs())
      return running.every((id) => (listed.find((n) => n.nodeId === id)?.heartbeatAtMs ?? 0) > h.clock.nowMs() + CLAIM_POLL_MS - LEASE_DEFAULTS.leaseMs)
    }, 30_000, "the running nodes' heartbeats")
  }
}

async function pendingCount(h: Harness): Promise<number> {
  return h.services.ctx.store.pendingDeliveries()
}

test("two nodes delivering 300 events committed on both at once attempt each exactly once, and both take part", async () => {
  const { n1, n2, accountId } = await twoNodes()
  // Slow enough that each node fills its endpoint share and the other claims past it.
  receiver.fallback = { delayMs: 100, status: 200 }
  await Promise.all([commitEvents(n1, accountId, 150, "n1"), commitEvents(n2, accountId, 150, "n2")])
  // One poll each, for the deliveries the other node committed; the rest is claimed as slots free.
  await n1.advance(CLAIM_POLL_MS)
  await waitUntil(() => perEvent().size === 300, 30_000, "every event at the receiver")
  await waitUntil(async () => (await pendingCount(n1)) === 0, 30_000, "every delivery recorded as succeeded")
  expect([...perEvent().values()].every((n) => n === 1)).toBe(true)
  expect(receiver.received).toHaveLength(300)
  expect(succeededOn(n1) + succeededOn(n2)).toBe(300)
  expect(succeededOn(n1)).toBeGreaterThan(0)
  expect(succeededOn(n2)).toBeGreaterThan(0)
})

/**
 * 20 deliveries written and claimed straight in the store by a node that then died: nothing woke
 * n1 or n2. `deadNode` registered a heartbeat at the same moment, or never registered at all.
 */
async function claimedByDeadNode(h: Harness, accountId: string, endpointId: string, deadNode: { registered: boolean }): Promise<number> {
  const store = h.services.ctx.store
  const nowMs = h.clock.nowMs()
  const events: EventRow[] = Array.from({ length: 20 }, (_, i) => ({ id: `evt_dead_${i}`, accountId, env: "test", type: "message.sent", body: `{"n":${i}}`, occurredAtMs: nowMs }))
  const deliveries: DeliveryRow[] = events.map((e, i) => ({
    id: `whd_dead_${String(i).padStart(2, "0")}`, eventId: e.id, endpointId, status: "pending", attemptCount: 0, firstAttemptAtMs: null,
    nextAttemptAtMs: nowMs, lastStatusCode: null, lastError: null, resentFrom: null, createdAtMs: nowMs, updatedAtMs: nowMs,
  }))
  if (deadNode.registered) await store.registerNode({ nodeId: "n-dead", instanceId: "gone", maxPhones: 10, nowMs, leaseMs: LEASE_DEFAULTS.leaseMs })
  await store.insertEventsAndDeliveries(events, deliveries)
  expect(await store.claimDueDeliveries("n-dead", nowMs, 100, claimLeaseFor(WEBHOOK_TIMEOUT_MS))).toHaveLength(20)
  return nowMs
}

test("a node that dies holding claims, with no heartbeat row: its deliveries are attempted by the live nodes once the claims expire, not before", async () => {
  const { n1, n2, clock, accountId, endpointId } = await twoNodes()
  const nowMs = await claimedByDeadNode(n1, accountId, endpointId, { registered: false })
  const leaseMs = claimLeaseFor(WEBHOOK_TIMEOUT_MS)
  // The live nodes poll every second until the last moment of the claims.
  await advanceBySeconds(n2, leaseMs)
  expect(clock.nowMs()).toBe(nowMs + leaseMs)
  expect(receiver.received).toHaveLength(0)
  // Past it: claimable, and claimed at the next poll.
  await n2.advance(CLAIM_POLL_MS)
  await waitUntil(() => perEvent().size === 20, 30_000, "every event of the dead node at the receiver")
  await waitUntil(async () => (await pendingCount(n1)) === 0, 30_000, "every delivery recorded as succeeded")
  expect(receiver.received).toHaveLength(20)
  // Signed when attempted: none before the claims expired.
  expect(Math.min(...receiver.received.map(signedAtS))).toBeGreaterThan(Math.floor((nowMs + leaseMs) / 1000) - 1)
  expect(succeededOn(n1) + succeededOn(n2)).toBe(20)
})

test("a node that dies holding claims: the live nodes attempt its deliveries once its heartbeat is a lease and an attempt old, long before its claims expire", async () => {
  const { n1, n2, clock, accountId, endpointId } = await twoNodes()
  const nowMs = await claimedByDeadNode(n1, accountId, endpointId, { registered: true })
  const silentAfterMs = silentNodeAfterMs(LEASE_DEFAULTS.leaseMs, WEBHOOK_TIMEOUT_MS)
  expect(silentAfterMs).toBeLessThan(claimLeaseFor(WEBHOOK_TIMEOUT_MS) / 1.5)
  // Up to that moment its claims hold: the live nodes poll every second and get nothing.
  await advanceBySeconds(n2, silentAfterMs)
  expect(clock.nowMs()).toBe(nowMs + silentAfterMs)
  expect(receiver.received).toHaveLength(0)
  // Past it: claimed at the next poll and attempted once each.
  await n2.advance(CLAIM_POLL_MS)
  await waitUntil(() => perEvent().size === 20, 30_000, "every event of the dead node at the receiver")
  await waitUntil(async () => (await pendingCount(n1)) === 0, 30_000, "every delivery recorded as succeeded")
  expect(receiver.received).toHaveLength(20)
  expect(Math.max(...receiver.received.map(signedAtS))).toBeLessThan(Math.floor((nowMs + claimLeaseFor(WEBHOOK_TIMEOUT_MS)) / 1000))
  expect(succeededOn(n1) + succeededOn(n2)).toBe(20)
})

test("a node whose own heartbeat is older than a lease starts no attempt: it gives its queued claims back instead", async () => {
  const { n1, accountId, url } = await twoNodes()
  receiver.fallback = { hang: true }
  // More than the endpoint's share: WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT in flight, the rest claimed and queued.
  const queued = 16
  await commitEvents(n1, accountId, WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT + queued, "n1")
  await receiver.waitFor(WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT, 30_000)
  // The clock jumps past a lease in one go, as for a node frozen that long: at most the first
  // renewal on the way commits (the next is armed once it has), so the heartbeat ends more than
  // a lease old; the attempts in flight time out (the clock passes their timeout too) and free
  // their slots, and the queued deliveries' claims still hold for most of a minute.
  n1.clock.advance(LEASE_DEFAULTS.renewEveryMs + Math.max(LEASE_DEFAULTS.leaseMs, WEBHOOK_TIMEOUT_MS) + CLAIM_POLL_MS)
  const sql = new SQL(url, { max: 1 })
  try {
    await waitUntil(async () => {
      const [row] = await sql`SELECT count(*)::int4 AS n FROM webhook_deliveries WHERE attempt_count = 0 AND claimed_by IS NULL`
      return row.n === queued
    }, 30_000, "the queued deliveries' claims given back")
  } finally {
    await sql.close()
  }
  expect(receiver.received).toHaveLength(WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT)
})

test("a node stopped with attempts in flight releases their claims: the other node attempts them at its next poll", async () => {
  const { n1, n2, clock, accountId } = await twoNodes()
  receiver.fallback = { hang: true }
  await commitEvents(n1, accountId, 5, "n1")
  await receiver.waitFor(5)
  const startedMs = clock.nowMs()
  // n2 polls meanwhile: n1 holds every claim, so n2 gets nothing.
  await n2.advance(CLAIM_POLL_MS)
  expect(receiver.received).toHaveLength(5)
  receiver.fallback = { status: 200 }
  await n1.close()
  nodes.splice(nodes.indexOf(n1), 1)
  await n2.advance(CLAIM_POLL_MS)
  await waitUntil(() => receiver.received.length === 10, 30_000, "n2's attempts of n1's abandoned deliveries")
  await waitUntil(async () => (await pendingCount(n2)) === 0, 30_000, "every delivery recorded as succeeded")
  // The abandoned attempts were never recorded: n2's are first attempts too, long before a claim could expire.
  expect(receiver.received.slice(5).map((r) => r.headers["x-service-delivery-attempt"])).toEqual(["1", "1", "1", "1", "1"])
  expect(new Set(receiver.received.slice(5).map((r) => r.headers["x-service-event-id"]))).toEqual(new Set(receiver.received.slice(0, 5).map((r) => r.headers["x-service-event-id"])))
  expect(clock.nowMs() - startedMs).toBeLessThan(claimLeaseFor(WEBHOOK_TIMEOUT_MS))
  expect(succeededOn(n2)).toBe(5)
})
