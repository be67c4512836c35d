import { expect, setDefaultTimeout, test } from "bun:test"
import { openPostgresStore } from "../../../src/store/postgres/store"
import { SLOW_TEST_TIMEOUT_MS } from "../../helpers/timeouts"
import { describeStores, freshMigratedDatabase, type ContractStore } from "./stores"
import { delivery, endpoint, event, nth, seedDue, T0 } from "./webhook-rows"

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const LEASE_MS = 30_000
const ids = (claims: readonly { delivery: { id: string } }[]) => claims.map((c) => c.delivery.id)

const BATCH = 7

/**
 * Two nodes claim in small batches, concurrently, until neither gets anything; returns what each
 * got. Each stops after as many batches as `due` deliveries could fill, so a store that claims a
 * delivery twice fails the test instead of looping for ever (SQLite's calls never yield to a timer).
 */
async function claimAll(a: ContractStore, b: ContractStore, nowMs: number, due: number): Promise<[string[], string[]]> {
  const got: [string[], string[]] = [[], []]
  const node = async (store: ContractStore, nodeId: string, into: string[]) => {
    for (let batch = 0; batch <= Math.ceil(due / BATCH); batch++) {
      const claimed = await store.claimDueDeliveries(nodeId, nowMs, BATCH, LEASE_MS)
      if (claimed.length === 0) return
      into.push(...ids(claimed))
    }
  }
  await Promise.all([node(a, "node-a", got[0]), node(b, "node-b", got[1])])
  return got
}

function expectPartition([a, b]: [string[], string[]], all: readonly string[]): void {
  const inBoth = a.filter((id) => new Set(b).has(id))
  expect(inBoth).toEqual([])
  expect([...a, ...b].sort()).toEqual([...all].sort())
}

describeStores("webhook delivery claims", (open) => {
  test("a claim takes due deliveries earliest first, at most `limit`, each with its event, until now + lease", async () => {
    const store = await open()
    const due = await seedDue(store, 5)
    const claimed = await store.claimDueDeliveries("node-a", T0 + 10, 3, LEASE_MS)
    expect(claimed).toEqual(due.slice(0, 3).map((d) => ({ delivery: d, eventType: "message.delivered", body: event(d.eventId).body, claimExpiresAtMs: T0 + 10 + LEASE_MS })))
  })

  test("a delivery not yet due, or no longer pending, is never claimed", async () => {
    const store = await open()
    const due = await seedDue(store, 3)
    await store.insertDelivery(delivery("whd_done", nth("evt", 0), "wh_1", { status: "succeeded", nextAttemptAtMs: null }))
    await store.insertDelivery(delivery("whd_failed", nth("evt", 0), "wh_1", { status: "failed", nextAttemptAtMs: T0 }))
    // Due at T0, T0 + 1 and T0 + 2: at T0 + 1 the last is one millisecond early.
    expect(ids(await store.claimDueDeliveries("node-a", T0 + 1, 100, LEASE_MS))).toEqual([due[0]!.id, due[1]!.id])
    expect(await store.claimDueDeliveries("node-b", T0 + 1, 100, LEASE_MS)).toEqual([])
    expect(ids(await store.claimDueDeliveries("node-b", T0 + 2, 100, LEASE_MS))).toEqual([due[2]!.id])
  })

  test("a claim holds until it expires; then another node claims the delivery", async () => {
    const store = await open()
    const [d] = await seedDue(store, 1)
    expect(ids(await store.claimDueDeliveries("node-a", T0, 10, LEASE_MS))).toEqual([d!.id])
    expect(await store.claimDueDeliveries("node-b", T0 + LEASE_MS, 10, LEASE_MS)).toEqual([])
    const taken = await store.claimDueDeliveries("node-b", T0 + LEASE_MS + 1, 10, LEASE_MS)
    expect(taken.map((c) => [c.delivery.id, c.claimExpiresAtMs])).toEqual([[d!.id, T0 + 2 * LEASE_MS + 1]])
    // node-a woke up late: its release must not free node-b's claim.
    expect(await store.releaseClaims("node-a", [d!.id])).toBe(0)
    expect(await store.claimDueDeliveries("node-a", T0 + LEASE_MS + 2, 10, LEASE_MS)).toEqual([])
  })

  test("a released claim is claimable at once, by any node", async () => {
    const store = await open()
    const due = await seedDue(store, 2)
    await store.claimDueDeliveries("node-a", T0 + 1, 10, LEASE_MS)
    expect(await store.releaseClaims("node-a", [due[1]!.id, "whd_none"])).toBe(1)
    expect(await store.releaseClaims("node-a", [])).toBe(0)
    expect(ids(await store.claimDueDeliveries("node-b", T0 + 1, 10, LEASE_MS))).toEqual([due[1]!.id])
  })

  test("an attempt recorded for a retry and released in the same write is claimed by any node when the retry falls due, not before", async () => {
    const store = await open()
    const [d] = await seedDue(store, 1)
    const [claim] = await store.claimDueDeliveries("node-a", T0, 10, LEASE_MS)
    const retryAtMs = T0 + 5_000
    await store.write(async (q) => {
      await q.recordAttempts(
        [{ deliveryId: d!.id, attemptNumber: 1, attemptedAtMs: T0, statusCode: 503, error: "HTTP 503", latencyMs: 4, responseBody: null }],
        [{ id: d!.id, status: "pending", attemptCount: 1, firstAttemptAtMs: T0, nextAttemptAtMs: retryAtMs, lastStatusCode: 503, lastError: "HTTP 503", updatedAtMs: T0 + 1 }],
      )
      await q.releaseClaims("node-a", [claim!.delivery.id])
    })
    expect(await store.claimDueDeliveries("node-b", retryAtMs - 1, 10, LEASE_MS)).toEqual([])
    const [retry] = await store.claimDueDeliveries("node-b", retryAtMs, 10, LEASE_MS)
    expect(retry!.delivery).toMatchObject({ id: d!.id, attemptCount: 1, nextAttemptAtMs: retryAtMs })
  })

  test("a claim passes over the deliveries to the endpoints it is told to skip, and takes the later ones to the others", async () => {
    const store = await open()
    const due = await seedDue(store, 3)
    await store.insertEndpoint(endpoint("wh_2"))
    await store.insertDelivery(delivery("whd_other", nth("evt", 0), "wh_2", { nextAttemptAtMs: T0 + 50 }))
    expect(ids(await store.claimDueDeliveries("node-a", T0 + 100, 2, LEASE_MS, ["wh_1"]))).toEqual(["whd_other"])
    expect(ids(await store.claimDueDeliveries("node-a", T0 + 100, 10, LEASE_MS, []))).toEqual(due.map((d) => d.id))
  })

  test("the claims of a node whose heartbeat came before `silentBeforeMs` are claimable at once; a node heartbeating since, or with no node row, keeps its own until they expire", async () => {
    const store = await open()
    const [silent, live, rowless] = await seedDue(store, 3)
    await store.registerNode({ nodeId: "node-silent", instanceId: "i1", maxPhones: 10, nowMs: T0, leaseMs: LEASE_MS })
    await store.registerNode({ nodeId: "node-live", instanceId: "i2", maxPhones: 10, nowMs: T0 + 5_000, leaseMs: LEASE_MS })
    await store.claimDueDeliveries("node-silent", T0, 1, LEASE_MS)
    await store.claimDueDeliveries("node-live", T0 + 1, 1, LEASE_MS)
    await store.claimDueDeliveries("node-rowless", T0 + 2, 1, LEASE_MS)
    const nowMs = T0 + 10_000
    // Without a bound (one process), every claim holds until it expires.
    expect(await store.hasClaimableDeliveries(nowMs)).toBe(false)
    expect(await store.claimDueDeliveries("node-b", nowMs, 10, LEASE_MS)).toEqual([])
    // Silent since before T0 + 1: nothing yet (the heartbeat at T0 is not before T0).
    expect(await store.hasClaimableDeliveries(nowMs, [], T0)).toBe(false)
    expect(await store.claimDueDeliveries("node-b", nowMs, 10, LEASE_MS, [], T0)).toEqual([])
    expect(await store.hasClaimableDeliveries(nowMs, ["wh_1"], T0 + 1)).toBe(false)
    expect(await store.hasClaimableDeliveries(nowMs, [], T0 + 1)).toBe(true)
    const taken = await store.claimDueDeliveries("node-b", nowMs, 10, LEASE_MS, [], T0 + 1)
    expect(taken.map((c) => [c.delivery.id, c.claimExpiresAtMs])).toEqual([[silent!.id, nowMs + LEASE_MS]])
    expect(await store.hasClaimableDeliveries(nowMs, [], T0 + 1)).toBe(false)
    expect([live!.id, rowless!.id]).not.toContain(taken[0]!.delivery.id)
  })

  test("whether anything is claimable agrees with the claim: due, pending, unclaimed or expired, to endpoints not skipped", async () => {
    const store = await open()
    const due = await seedDue(store, 2)
    expect(await store.hasClaimableDeliveries(T0 - 1)).toBe(false)
    expect(await store.hasClaimableDeliveries(T0)).toBe(true)
    expect(await store.hasClaimableDeliveries(T0 + 5, ["wh_1"])).toBe(false)
    await store.claimDueDeliveries("node-a", T0 + 5, 10, LEASE_MS)
    expect(await store.hasClaimableDeliveries(T0 + 5)).toBe(false)
    expect(await store.hasClaimableDeliveries(T0 + 5 + LEASE_MS + 1)).toBe(true)
    expect(ids(await store.claimDueDeliveries("node-b", T0 + 5 + LEASE_MS + 1, 10, LEASE_MS))).toEqual(due.map((d) => d.id))
  })

  test("two nodes claiming 500 due deliveries concurrently get every one, and never the same one", async () => {
    const store = await open()
    const due = await seedDue(store, 500)
    expectPartition(await claimAll(store, store, T0 + 1_000, due.length), due.map((d) => d.id))
  })
})

test("on PostgreSQL, two nodes on their own connections claiming 500 due deliveries in a loop get every one, and never the same one", async () => {
  // Two stores on one database: two pools, as two nodes have.
  const url = await freshMigratedDatabase()
  const [a, b] = await Promise.all([openPostgresStore(url, { maxConnections: 2 }), openPostgresStore(url, { maxConnections: 2 })])
  const due = await seedDue(a, 500)
  const all = due.map((d) => d.id)
  for (let round = 0; round < 3; round++) {
    // Each round, every claim has expired: both nodes race for all 500 again.
    const nowMs = T0 + 1_000 + round * (LEASE_MS + 1)
    expectPartition(await claimAll(a, b, nowMs, all.length), all)
  }
  await Promise.all([a.close(), b.close()])
})
