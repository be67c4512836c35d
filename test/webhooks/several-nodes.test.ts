import { afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import type { DeliveryRow, EventRow } from "../../src/store/webhooks"
import { CLAIM_POLL_MS, claimLeaseFor } from "../../src/webhooks/dispatcher"
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

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

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
  return { n1, n2, clock, accountId: account.id, endpointId: endpoint.id }
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
  await waitUntil(async () => (await pendingCount(n1)) === 0, 10_000, "every delivery recorded as succeeded")
  expect([...perEvent().values()].every((n) => n === 1)).toBe(true)
  expect(receiver.received).toHaveLength(300)
  expect(succeededOn(n1) + succeededOn(n2)).toBe(300)
  expect(succeededOn(n1)).toBeGreaterThan(0)
  expect(succeededOn(n2)).toBeGreaterThan(0)
})

test("a node that dies holding claims: its deliveries are attempted by the live nodes once the claims expire, not before", async () => {
  const { n1, n2, clock, accountId, endpointId } = await twoNodes()
  const store = n1.services.ctx.store
  const nowMs = clock.nowMs()
  const events: EventRow[] = Array.from({ length: 20 }, (_, i) => ({ id: `evt_dead_${i}`, accountId, env: "test", type: "message.sent", body: `{"n":${i}}`, occurredAtMs: nowMs }))
  const deliveries: DeliveryRow[] = events.map((e, i) => ({
    id: `whd_dead_${String(i).padStart(2, "0")}`, eventId: e.id, endpointId, status: "pending", attemptCount: 0, firstAttemptAtMs: null,
    nextAttemptAtMs: nowMs, lastStatusCode: null, lastError: null, resentFrom: null, createdAtMs: nowMs, updatedAtMs: nowMs,
  }))
  // Written and claimed straight in the store by a node that then died: nothing woke n1 or n2.
  await store.insertEventsAndDeliveries(events, deliveries)
  const leaseMs = claimLeaseFor(WEBHOOK_TIMEOUT_MS)
  expect(await store.claimDueDeliveries("n-dead", nowMs, 100, leaseMs)).toHaveLength(20)
  // The live nodes poll every second until the last moment of the claims.
  await n2.advance(leaseMs - CLAIM_POLL_MS)
  await n2.advance(CLAIM_POLL_MS)
  expect(clock.nowMs()).toBe(nowMs + leaseMs)
  // Past it: claimable, and claimed at the next poll.
  await n2.advance(CLAIM_POLL_MS)
  await waitUntil(() => perEvent().size === 20, 10_000, "every event of the dead node at the receiver")
  await waitUntil(async () => (await pendingCount(n1)) === 0, 10_000, "every delivery recorded as succeeded")
  expect(receiver.received).toHaveLength(20)
  // Signed when attempted: none before the claims expired.
  expect(Math.min(...receiver.received.map(signedAtS))).toBeGreaterThan(Math.floor((nowMs + leaseMs) / 1000) - 1)
  expect(succeededOn(n1) + succeededOn(n2)).toBe(20)
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
  await waitUntil(() => receiver.received.length === 10, 10_000, "n2's attempts of n1's abandoned deliveries")
  await waitUntil(async () => (await pendingCount(n2)) === 0, 10_000, "every delivery recorded as succeeded")
  // The abandoned attempts were never recorded: n2's are first attempts too, long before a claim could expire.
  expect(receiver.received.slice(5).map((r) => r.headers["x-service-delivery-attempt"])).toEqual(["1", "1", "1", "1", "1"])
  expect(new Set(receiver.received.slice(5).map((r) => r.headers["x-service-event-id"]))).toEqual(new Set(receiver.received.slice(0, 5).map((r) => r.headers["x-service-event-id"])))
  expect(clock.nowMs() - startedMs).toBeLessThan(claimLeaseFor(WEBHOOK_TIMEOUT_MS))
  expect(succeededOn(n2)).toBe(5)
})
