import { storeOver } from "../helpers/sqlite-store"
import { describe, expect, test } from "bun:test"
import { createAppMetrics } from "../../src/lib/app-metrics"
import { silentLogger } from "../../src/lib/logger"
import { migrate, openDatabase, type Database } from "../../src/store/sqlite/db"
import { createWriter } from "../../src/store/sqlite/writer"
import { insertDelivery, insertEndpoint, insertEvent, listAttempts, findDelivery } from "../../src/store/sqlite/webhooks"
import { type DeliveryRow } from "../../src/store/webhooks"
import { createAttemptRecorder, RECORD_WAIT_MS, type AttemptResult } from "../../src/webhooks/attempt-recorder"
import { createDeliveryQueue } from "../../src/webhooks/delivery-queue"
import { createEndpointCache } from "../../src/webhooks/endpoint-cache"
import { DEFAULT_RETRY_OFFSETS_MS } from "../../src/webhooks/retry-policy"
import { createSigner, signatureHeader } from "../../src/webhooks/signer"
import type { AttemptOutcome } from "../../src/webhooks/sender"
import { TestClock } from "../helpers/test-clock"

describe("the delivery queue", () => {
  const cases: { name: string; total: number; perEndpoint: number; queued: Record<string, number>; wave: Record<string, number> }[] = [
    { name: "a wave fills the free slots, never more than the per-endpoint cap", total: 10, perEndpoint: 2, queued: { a: 5, b: 1 }, wave: { a: 2, b: 1 } },
    { name: "a wave never exceeds the total cap", total: 3, perEndpoint: 5, queued: { a: 5, b: 5 }, wave: { a: 3 } },
    { name: "an empty queue gives an empty wave", total: 3, perEndpoint: 3, queued: {}, wave: {} },
  ]
  for (const c of cases) {
    test(c.name, () => {
      const queue = createDeliveryQueue({ maxInFlight: c.total, maxInFlightPerEndpoint: c.perEndpoint })
      for (const [endpointId, n] of Object.entries(c.queued)) for (let i = 0; i < n; i++) queue.add(`${endpointId}${i}`, endpointId)
      const counts: Record<string, number> = {}
      for (const { endpointId } of queue.takeWave()) counts[endpointId] = (counts[endpointId] ?? 0) + 1
      expect(counts).toEqual(c.wave)
    })
  }

  test("a delivery is queued or in flight once at most, and a released slot lets the next one out in order", () => {
    const queue = createDeliveryQueue({ maxInFlight: 10, maxInFlightPerEndpoint: 1 })
    expect(queue.add("d1", "a")).toBe(true)
    expect(queue.add("d1", "a")).toBe(false)
    queue.add("d2", "a")
    expect(queue.takeWave()).toEqual([{ deliveryId: "d1", endpointId: "a" }])
    expect(queue.add("d1", "a")).toBe(false)
    expect(queue.takeWave()).toEqual([])
    expect(queue.inFlightTo("a")).toBe(1)
    queue.release({ deliveryId: "d1", endpointId: "a" })
    expect(queue.has("d1")).toBe(false)
    expect(queue.takeWave()).toEqual([{ deliveryId: "d2", endpointId: "a" }])
  })

  test("its size and the endpoints holding their share count queued and in-flight deliveries alike", () => {
    const queue = createDeliveryQueue({ maxInFlight: 10, maxInFlightPerEndpoint: 1 })
    for (const [id, endpointId] of [["a1", "a"], ["a2", "a"], ["b1", "b"], ["c1", "c"], ["c2", "c"]] as const) queue.add(id, endpointId)
    queue.takeWave()
    queue.release({ deliveryId: "b1", endpointId: "b" })
    // a: one in flight, one queued; b: nothing left; c: one in flight, one queued.
    expect(queue.size).toBe(4)
    expect(queue.endpointsHolding(2).sort()).toEqual(["a", "c"])
    expect(queue.endpointsHolding(1).sort()).toEqual(["a", "c"])
    expect(queue.endpointsHolding(3)).toEqual([])
  })
})

describe("the signer", () => {
  test("prepared keys sign exactly as a fresh HMAC does, for one secret and for two during a rotation", () => {
    const signer = createSigner()
    const body = '{"event":"message.sent"}'
    for (const secrets of [["whsec_a"], ["whsec_b", "whsec_a"]]) {
      for (const t of [1767571200, 1767571260]) expect(signer.header(secrets, t, body)).toBe(signatureHeader(secrets, t, body))
    }
  })
})

function seeded(): { db: Database; deliveries: DeliveryRow[] } {
  const db = openDatabase(":memory:")
  migrate(db, 0)
  db.run("INSERT INTO accounts (id, name, email, created_at_ms, updated_at_ms) VALUES ('acc_1', 'A', 'a@b.c', 0, 0)")
  insertEndpoint(db, {
    id: "wh_1", accountId: "acc_1", env: "test", url: "http://127.0.0.1:9/", events: ["*"], enabled: true, secret: "whsec_x",
    previousSecret: null, previousSecretExpiresAtMs: null, createdAtMs: 0, updatedAtMs: 0,
  })
  const deliveries: DeliveryRow[] = []
  for (let i = 0; i < 70; i++) {
    insertEvent(db, { id: `evt_${i}`, accountId: "acc_1", env: "test", type: "message.sent", body: `{"n":${i}}`, occurredAtMs: 0 })
    const row: DeliveryRow = {
      id: `whd_${i}`, eventId: `evt_${i}`, endpointId: "wh_1", status: "pending", attemptCount: 0, firstAttemptAtMs: null,
      nextAttemptAtMs: 0, lastStatusCode: null, lastError: null, resentFrom: null, createdAtMs: 0, updatedAtMs: 0,
    }
    insertDelivery(db, row)
    deliveries.push(row)
  }
  return { db, deliveries }
}

const ok: AttemptOutcome = { delivered: true, gone: false, statusCode: 200, error: null, latencyMs: 3, responseBody: "ok" }
const failed: AttemptOutcome = { delivered: false, gone: false, statusCode: 500, error: "HTTP 500", latencyMs: 4, responseBody: "no" }
const gone: AttemptOutcome = { delivered: false, gone: true, statusCode: 410, error: "HTTP 410", latencyMs: 5, responseBody: null }

describe("the attempt recorder", () => {
  function recorder(db: Database, clock: TestClock, inFlight: () => number, writer = createWriter(db)) {
    const retries: [string, number][] = []
    const recorded: string[] = []
    const r = createAttemptRecorder({
      store: storeOver(db, writer), nodeId: "node-a", clock, logger: silentLogger, metrics: createAppMetrics({ nodeId: "test-node" }), retryOffsetsMs: DEFAULT_RETRY_OFFSETS_MS,
      scheduleRetry: (id, dueMs) => retries.push([id, dueMs]),
      onRecorded: (results) => recorded.push(...results.map((x) => x.delivery.id)),
      inFlightTo: inFlight,
    })
    return { r, retries, recorded }
  }
  const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

  test("a wave of outcomes is written together: every attempt logged, every delivery moved on, retries scheduled only after the commit", async () => {
    const { db, deliveries } = seeded()
    const clock = new TestClock(1_000_000)
    const { r, retries, recorded } = recorder(db, clock, () => 0)
    const outcomes = [ok, failed, gone]
    deliveries.slice(0, 67).forEach((delivery, i) => r.add({ delivery, attemptedAtMs: 1_000_000, outcome: outcomes[i % 3]! }))
    expect(retries).toEqual([])
    await nextTurn()
    await nextTurn()
    expect(recorded).toHaveLength(67)
    expect(findDelivery(db, "whd_0")).toMatchObject({ status: "succeeded", attemptCount: 1, firstAttemptAtMs: 1_000_000, nextAttemptAtMs: null, lastStatusCode: 200 })
    expect(findDelivery(db, "whd_1")).toMatchObject({ status: "pending", attemptCount: 1, nextAttemptAtMs: 1_060_000, lastError: "HTTP 500" })
    expect(findDelivery(db, "whd_2")).toMatchObject({ status: "failed", nextAttemptAtMs: null, lastStatusCode: 410 })
    expect(listAttempts(db, "whd_66")).toEqual([
      { deliveryId: "whd_66", attemptNumber: 1, attemptedAtMs: 1_000_000, statusCode: 200, error: null, latencyMs: 3, responseBody: "ok" },
    ])
    expect(retries).toHaveLength(22)
    expect(retries[0]).toEqual(["whd_1", 1_060_000])
    expect(findDelivery(db, "whd_67")).toMatchObject({ status: "pending", attemptCount: 0 })
  })

  test("while other attempts to the endpoint are out, a result waits up to RECORD_WAIT_MS for others", async () => {
    const { db, deliveries } = seeded()
    const clock = new TestClock()
    const { r, recorded } = recorder(db, clock, () => 1)
    r.add({ delivery: deliveries[0]!, attemptedAtMs: clock.nowMs(), outcome: ok })
    await nextTurn()
    expect(recorded).toEqual([])
    clock.advance(RECORD_WAIT_MS)
    await nextTurn()
    await nextTurn()
    expect(recorded).toEqual(["whd_0"])
  })

  test("results waiting when another write commits are written in that commit", async () => {
    const { db, deliveries } = seeded()
    const clock = new TestClock()
    const writer = createWriter(db)
    const { r, recorded } = recorder(db, clock, () => 1, writer)
    r.add({ delivery: deliveries[7]!, attemptedAtMs: clock.nowMs(), outcome: ok })
    await writer.write((w) => w.run("UPDATE accounts SET name = 'B'"))
    expect(recorded).toEqual(["whd_7"])
    expect(listAttempts(db, "whd_7")).toHaveLength(1)
  })

  test("the write that records outcomes releases this node's claims on the retries among them, and leaves another node's claim alone", async () => {
    const { db, deliveries } = seeded()
    const { r } = recorder(db, new TestClock(), () => 0)
    const claim = (id: string, nodeId: string) => db.run("UPDATE webhook_deliveries SET claimed_by = ?, claim_expires_at_ms = 9e12 WHERE id = ?", [nodeId, id])
    claim("whd_0", "node-a")
    claim("whd_1", "node-a")
    claim("whd_2", "node-b")
    claim("whd_9", "node-a")
    const claimOf = (id: string) => db.query("SELECT claimed_by AS node FROM webhook_deliveries WHERE id = ?").get(id)
    // A failing statement after the release would roll it back with the outcomes: both in one write.
    db.run("CREATE TRIGGER no_release BEFORE UPDATE OF claimed_by ON webhook_deliveries WHEN NEW.claimed_by IS NULL AND OLD.id = 'whd_1' BEGIN SELECT RAISE(ABORT, 'refused'); END")
    r.add({ delivery: deliveries[1]!, attemptedAtMs: 0, outcome: failed })
    await r.flush()
    expect(findDelivery(db, "whd_1")).toMatchObject({ attemptCount: 0 })
    expect(claimOf("whd_1")).toEqual({ node: "node-a" })
    db.run("DROP TRIGGER no_release")
    for (const i of [0, 1, 2]) r.add({ delivery: deliveries[i]!, attemptedAtMs: 0, outcome: i === 1 ? failed : ok })
    await r.flush()
    expect(findDelivery(db, "whd_1")).toMatchObject({ status: "pending", attemptCount: 1 })
    // whd_0 succeeded: no claim takes it again, whoever's name it still carries.
    expect(findDelivery(db, "whd_0")).toMatchObject({ status: "succeeded" })
    expect([claimOf("whd_1"), claimOf("whd_2"), claimOf("whd_9")]).toEqual([{ node: null }, { node: "node-b" }, { node: "node-a" }])
  })

  test("a disabled endpoint's delivery fails without an attempt row", async () => {
    const { db, deliveries } = seeded()
    const { r } = recorder(db, new TestClock(), () => 0)
    r.add({ delivery: deliveries[5]!, attemptedAtMs: 0, outcome: null } satisfies AttemptResult)
    await r.flush()
    expect(findDelivery(db, "whd_5")).toMatchObject({ status: "failed", attemptCount: 0, lastError: "endpoint disabled" })
    expect(listAttempts(db, "whd_5")).toEqual([])
  })

  test("an outcome whose delivery was removed meanwhile is dropped, and the rest of the wave is still written", async () => {
    const { db, deliveries } = seeded()
    const { r } = recorder(db, new TestClock(), () => 0)
    db.run("DELETE FROM webhook_deliveries WHERE id = 'whd_3'")
    r.add({ delivery: deliveries[3]!, attemptedAtMs: 0, outcome: ok })
    r.add({ delivery: deliveries[4]!, attemptedAtMs: 0, outcome: ok })
    await r.flush()
    expect(listAttempts(db, "whd_3")).toEqual([])
    expect(listAttempts(db, "whd_4")).toHaveLength(1)
  })
})

describe("the endpoint cache", () => {
  test("serves endpoints from memory until the change version moves", async () => {
    const { db } = seeded()
    let version = "1"
    const cache = createEndpointCache(storeOver(db), () => version)
    expect((await cache.get("wh_1"))?.url).toBe("http://127.0.0.1:9/")
    db.run("UPDATE webhook_endpoints SET url = 'http://127.0.0.1:10/' WHERE id = 'wh_1'")
    expect((await cache.get("wh_1"))?.url).toBe("http://127.0.0.1:9/")
    version = "2"
    expect((await cache.get("wh_1"))?.url).toBe("http://127.0.0.1:10/")
    expect((await cache.get("wh_gone"))).toBeNull()
  })
})
