import { afterEach, describe, expect, test } from "bun:test"
import { insertAttempt, insertDelivery, insertEndpoint, insertEvent } from "../../src/store/sqlite/webhooks"
import { type DeliveryStatus } from "../../src/store/webhooks"
import { RETENTION_BATCH, RETENTION_FIRST_DELAY_MS, RETENTION_INTERVAL_MS } from "../../src/webhooks/retention"
import { createHarness, type Harness } from "../helpers/harness"

const DAY_MS = 86_400_000
let h: Harness
afterEach(() => h.close())

let seq = 0
/** Stores an event with one delivery per given status (and one attempt each), as the dispatcher would have left them. */
async function storeEvent(occurredAtMs: number, statuses: DeliveryStatus[]): Promise<string> {
  const eventId = `evt_retention_${String(++seq).padStart(6, "0")}`
  await h.services.ctx.store.write(async (q) => {
    await q.insertEvent({ id: eventId, accountId: ACCOUNT, env: "test", type: "message.sent", body: "{}", occurredAtMs })
    for (const [i, status] of statuses.entries()) {
      const id = `${eventId}_d${i}`
      await q.insertDelivery({
        id,
        eventId,
        endpointId: ENDPOINT,
        status,
        attemptCount: 1,
        firstAttemptAtMs: occurredAtMs,
        nextAttemptAtMs: status === "pending" ? occurredAtMs + 60_000 : null,
        lastStatusCode: 200,
        lastError: null,
        resentFrom: null,
        createdAtMs: occurredAtMs,
        updatedAtMs: occurredAtMs,
      })
      await q.insertAttempt({ deliveryId: id, attemptNumber: 1, attemptedAtMs: occurredAtMs, statusCode: 200, error: null, latencyMs: 1, responseBody: null })
    }
  })
  return eventId
}

let ACCOUNT = ""
const ENDPOINT = "we_retention"
async function setUp(env: Record<string, string> = {}) {
  // The dispatcher must not pick up the stored pending deliveries: their retries are far off.
  h = await createHarness({ env: { WAGATE_WEBHOOK_RETRY_OFFSETS_MS: "86400000", ...env } })
  const account = await h.seedAccount()
  ACCOUNT = account.id
  const nowMs = h.clock.nowMs()
  await h.services.ctx.store.write((q) =>
    q.insertEndpoint({
      id: ENDPOINT,
      accountId: ACCOUNT,
      env: "test",
      url: "http://127.0.0.1:9/hook",
      events: ["*"],
      enabled: true,
      secret: "whsec_retention",
      previousSecret: null,
      previousSecretExpiresAtMs: null,
      createdAtMs: nowMs,
      updatedAtMs: nowMs,
    }),
  )
}

const count = (table: string) => (h.services.sqlite!.query(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n
const exists = (eventId: string) => h.services.sqlite!.query("SELECT 1 FROM events WHERE id = ?").get(eventId) !== null

describe("webhook retention", () => {
  test("events older than the retention whose deliveries all ended go, with their deliveries and attempts; younger ones and ones still pending stay", async () => {
    await setUp()
    const now = h.clock.nowMs()
    const oldDone = await storeEvent(now - 31 * DAY_MS, ["succeeded", "failed"])
    const oldPending = await storeEvent(now - 31 * DAY_MS, ["succeeded", "pending"])
    const young = await storeEvent(now - 29 * DAY_MS, ["succeeded"])

    expect(await h.services.webhookRetention.prune()).toBe(1)

    expect([exists(oldDone), exists(oldPending), exists(young)]).toEqual([false, true, true])
    expect(h.services.sqlite!.query("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE event_id = ?").get(oldDone)).toEqual({ n: 0 })
    expect(count("webhook_deliveries")).toBe(3)
    expect(count("webhook_attempts")).toBe(3)
  })

  test("one pass deletes more than one batch", async () => {
    await setUp()
    const old = h.clock.nowMs() - 40 * DAY_MS
    for (let i = 0; i < RETENTION_BATCH * 2 + 7; i++) await storeEvent(old + i, ["succeeded"])
    // Stored last: SQLite keeps its newest event whatever its age (src/store/sqlite/webhooks.ts).
    await storeEvent(h.clock.nowMs(), ["succeeded"])

    expect(await h.services.webhookRetention.prune()).toBe(RETENTION_BATCH * 2 + 7)
    expect([count("events"), count("webhook_deliveries"), count("webhook_attempts")]).toEqual([1, 1, 1])
  })

  test("passes run by themselves a minute after start and then every hour", async () => {
    await setUp({ WAGATE_WEBHOOK_RETENTION_DAYS: "7" })
    const first = await storeEvent(h.clock.nowMs() - 8 * DAY_MS, ["succeeded"])
    // Young events stored after each old one: SQLite keeps its newest event whatever its age.
    await storeEvent(h.clock.nowMs(), ["succeeded"])
    await h.advance(RETENTION_FIRST_DELAY_MS)
    expect(exists(first)).toBe(false)

    // Eight days minus half an hour old now: old enough within the next hour.
    const second = await storeEvent(h.clock.nowMs() - 8 * DAY_MS + DAY_MS - 1_800_000, ["succeeded"])
    await storeEvent(h.clock.nowMs(), ["succeeded"])
    await h.advance(RETENTION_INTERVAL_MS - 1)
    expect(exists(second)).toBe(true)
    await h.advance(1)
    expect(exists(second)).toBe(false)
  })

  test("SQLite keeps its newest event however old, so a new event's rowid never falls below an open stream's position", async () => {
    await setUp()
    const older = await storeEvent(h.clock.nowMs() - 41 * DAY_MS, ["succeeded"])
    const newest = await storeEvent(h.clock.nowMs() - 40 * DAY_MS, ["succeeded"])
    expect(await h.services.webhookRetention.prune()).toBe(1)
    expect([exists(older), exists(newest)]).toEqual([false, true])
  })

  test("a pass forgets a stream consumer not seen within the retention, and the outbox stops keeping that account's events", async () => {
    h = await createHarness()
    const { ctx } = h.services
    const account = await h.seedAccount()
    const other = await h.seedAccount({ name: "Other" })
    await ctx.store.write((q) => q.touchEventConsumer(account.id, "test", h.clock.nowMs() - 31 * DAY_MS), { changed: ["event_consumers"] })
    await ctx.store.write((q) => q.touchEventConsumer(other.id, "test", h.clock.nowMs() - 29 * DAY_MS), { changed: ["event_consumers"] })
    const record = (accountId: string) =>
      ctx.store.write((q, tx) => ctx.events.record(q, tx, { accountId, env: "test", type: "message.received", data: {}, occurredAtMs: h.clock.nowMs() }))
    await record(account.id)
    expect(count("events")).toBe(1)
    await h.advance(RETENTION_FIRST_DELAY_MS)
    expect([await ctx.store.hasEventConsumer(account.id, "test"), await ctx.store.hasEventConsumer(other.id, "test")]).toEqual([false, true])
    await record(account.id)
    await record(other.id)
    expect(count("events")).toBe(2)
  })

  test("a retention of 0 keeps every event", async () => {
    await setUp({ WAGATE_WEBHOOK_RETENTION_DAYS: "0" })
    const ancient = await storeEvent(h.clock.nowMs() - 3_650 * DAY_MS, ["succeeded"])
    await h.advance(RETENTION_FIRST_DELAY_MS + 2 * RETENTION_INTERVAL_MS)
    expect(exists(ancient)).toBe(true)
  })
})
