import { beforeEach, describe, expect, test } from "bun:test"
import { applySignal, bornFailed, bornPending, bornSent, type StatusSignal, type Transition } from "../../src/domain/message-status"
import { ulidGenerator, type IdGenerator } from "../../src/lib/ids"
import { utcDayStartMs } from "../../src/lib/time"
import type { Environment, MessageStatus } from "../../src/lib/vocabulary"
import { migrate, openDatabase, type Database } from "../../src/store/sqlite/db"
import { countMessages, countMessagesSince, findMessage, findMessageByIdempotencyKey, findScopedMessage, insertMessage, listMessages, updateMessageStatuses } from "../../src/store/sqlite/messages"
import { IdempotencyKeyTaken, type MessageRow } from "../../src/store/messages"
import { TestClock } from "../helpers/test-clock"

let db: Database
let clock: TestClock
let ids: IdGenerator

beforeEach(() => {
  clock = new TestClock()
  ids = ulidGenerator(clock)
  db = openDatabase(":memory:")
  migrate(db, clock.nowMs())
})

const DAY_MS = 86_400_000

interface Seed {
  accountId?: string
  env?: Environment
  phoneId?: string
  birth?: Transition
  idempotencyKey?: string | null
  createdAtMs?: number
}

/** Inserts one message in its own transaction, as the domain does. */
function seed(s: Seed = {}): MessageRow {
  const now = s.createdAtMs ?? clock.nowMs()
  const birth = s.birth ?? bornSent(now)
  return db.transaction(() =>
    insertMessage(db, {
      id: ids.newId("msg"),
      accountId: s.accountId ?? "acc_a",
      env: s.env ?? "test",
      phoneId: s.phoneId ?? "ph_1",
      apiKeyId: "key_1",
      fromNumber: "+14155550100",
      toAddress: "+14155550199",
      isGroup: false,
      content: "hello",
      mediaUrls: ["https://files.example.com/a.png"],
      ...birth.state,
      idempotencyKey: s.idempotencyKey ?? null,
      requestFingerprint: "fp",
      createdAtMs: now,
      updatedAtMs: now,
    }),
  )()
}

/** Applies a signal through the status machine and stores the result, as the domain does. */
function signal(id: string, sig: StatusSignal): MessageRow {
  return db.transaction(() => {
    const before = findMessage(db, id)!
    const { state } = applySignal(before, sig)
    const patch = { ...state, sandboxDeliveredDueMs: before.sandboxDeliveredDueMs, sandboxReadDueMs: before.sandboxReadDueMs }
    return updateMessageStatuses(db, [{ before, patch }], clock.nowMs())[0]!
  })()
}

/** mulberry32: a tiny seeded PRNG, so a failing run is reproducible from its seed. */
function prng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)]!

describe("insertMessage", () => {
  test("seq numbers each (account, environment) densely from 1", () => {
    const order: [string, Environment][] = [
      ["acc_a", "test"],
      ["acc_a", "live"],
      ["acc_a", "test"],
      ["acc_b", "test"],
      ["acc_a", "test"],
      ["acc_a", "live"],
      ["acc_b", "test"],
    ]
    const seqs = order.map(([accountId, env]) => `${accountId}/${env}#${seed({ accountId, env }).seq}`)
    expect(seqs).toEqual(["acc_a/test#1", "acc_a/live#1", "acc_a/test#2", "acc_b/test#1", "acc_a/test#3", "acc_a/live#2", "acc_b/test#2"])
  })

  test("the stored row reads back field for field", () => {
    const stored = seed({ idempotencyKey: "order-1" })
    expect(findMessage(db, stored.id)).toEqual(stored)
    expect(stored.mediaUrls).toEqual(["https://files.example.com/a.png"])
    expect(stored.isGroup).toBe(false)
  })

  test("an idempotency key is unique per account and environment only", () => {
    seed({ idempotencyKey: "k" })
    expect(() => seed({ idempotencyKey: "k" })).toThrow(IdempotencyKeyTaken)
    expect(seed({ idempotencyKey: "k", env: "live" }).idempotencyKey).toBe("k")
    expect(seed({ idempotencyKey: "k", accountId: "acc_b" }).idempotencyKey).toBe("k")
  })

  test("a failed insert leaves neither the row, the seq nor the counters behind", () => {
    seed({ idempotencyKey: "k" })
    expect(() => seed({ idempotencyKey: "k" })).toThrow()
    expect(countMessages(db, "acc_a", "test")).toBe(1)
    expect(seed().seq).toBe(2)
  })
})

/** Every counter table checked against COUNT(*) over the messages themselves. */
function expectCountersMatchGroundTruth(): void {
  const counts = db
    .query("SELECT account_id, env, phone_id, status, n FROM message_counts WHERE n <> 0 ORDER BY 1, 2, 3, 4")
    .all()
  const countsTruth = db
    .query("SELECT account_id, env, phone_id, status, COUNT(*) AS n FROM messages GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4")
    .all()
  expect(counts).toEqual(countsTruth)

  const daily = db.query("SELECT account_id, env, day_ms, status, n FROM message_daily_counts WHERE n <> 0 ORDER BY 1, 2, 3, 4").all()
  const dailyTruth = db
    .query(
      `SELECT account_id, env, (created_at_ms / ${DAY_MS}) * ${DAY_MS} AS day_ms, status, COUNT(*) AS n
       FROM messages GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4`,
    )
    .all()
  expect(daily).toEqual(dailyTruth)

  const sequences = db.query("SELECT account_id, env, last_seq AS n FROM message_sequences ORDER BY 1, 2").all()
  const sequencesTruth = db.query("SELECT account_id, env, COUNT(*) AS n FROM messages GROUP BY 1, 2 ORDER BY 1, 2").all()
  expect(sequences).toEqual(sequencesTruth)

  // Dense: in every partition the seqs are exactly 1..n.
  const gaps = db
    .query("SELECT account_id, env FROM messages GROUP BY 1, 2 HAVING MIN(seq) <> 1 OR MAX(seq) <> COUNT(*) OR COUNT(DISTINCT seq) <> COUNT(*)")
    .all()
  expect(gaps).toEqual([])

  const negatives = db
    .query("SELECT 'counts' FROM message_counts WHERE n < 0 UNION ALL SELECT 'daily' FROM message_daily_counts WHERE n < 0")
    .all()
  expect(negatives).toEqual([])
}

describe("counters stay equal to COUNT(*)", () => {
  const ACCOUNTS = ["acc_a", "acc_b"]
  const ENVS: Environment[] = ["test", "live"]
  const PHONES = ["ph_1", "ph_2", "ph_3"]

  test.each([1, 7, 42, 1234])("seed %d: random inserts and status updates across days", (seedValue) => {
    const random = prng(seedValue)
    const created: string[] = []
    for (let step = 0; step < 400; step++) {
      // Time moves on by up to 6 hours, so creations and updates straddle UTC days.
      clock.advance(Math.floor(random() * 6 * 3_600_000))
      const now = clock.nowMs()
      if (created.length === 0 || random() < 0.45) {
        const birth = pick(random, [bornPending(), bornSent(now), bornFailed(now, "recipient_not_on_whatsapp", "not on WhatsApp")])
        created.push(seed({ accountId: pick(random, ACCOUNTS), env: pick(random, ENVS), phoneId: pick(random, PHONES), birth }).id)
      } else {
        const sig = pick<StatusSignal>(random, [
          { kind: "sent", atMs: now },
          { kind: "delivered", atMs: now },
          { kind: "read", atMs: now },
          { kind: "failed", atMs: now, errorCode: "send_timeout", errorMessage: "no ack" },
        ])
        signal(pick(random, created), sig)
      }
    }
    expectCountersMatchGroundTruth()
    // The run must have produced every status, or the updates were not exercised.
    const statuses = db.query<{ status: string }, []>("SELECT DISTINCT status FROM messages ORDER BY status").all().map((r) => r.status)
    expect(statuses).toEqual(["delivered", "failed", "pending", "read", "sent"])

    // The read helpers agree with ground truth too.
    for (const accountId of ACCOUNTS) {
      let both = 0
      for (const env of ENVS) {
        const truth = db.query<{ n: number }, [string, string]>("SELECT COUNT(*) AS n FROM messages WHERE account_id = ? AND env = ?").get(accountId, env)!.n
        expect(countMessages(db, accountId, env)).toBe(truth)
        both += truth
        const since = utcDayStartMs(clock.nowMs()) - 3 * DAY_MS
        const byStatus = db
          .query<{ status: MessageStatus; n: number }, [string, string, number]>(
            "SELECT status, COUNT(*) AS n FROM messages WHERE account_id = ? AND env = ? AND created_at_ms >= ? GROUP BY status",
          )
          .all(accountId, env, since)
        const expected: Record<MessageStatus, number> = { pending: 0, sent: 0, delivered: 0, read: 0, failed: 0 }
        for (const r of byStatus) expected[r.status] = r.n
        expect(countMessagesSince(db, accountId, env, since)).toEqual(expected)
      }
      expect(countMessages(db, accountId)).toBe(both)
    }
  })

  test("a status change moves the count of the creation day, not of the update day", () => {
    const m = seed({ birth: bornPending() })
    const createdDay = utcDayStartMs(m.createdAtMs)
    clock.advance(3 * DAY_MS)
    signal(m.id, { kind: "sent", atMs: clock.nowMs() })
    expect(countMessagesSince(db, "acc_a", "test", createdDay)).toEqual({ pending: 0, sent: 1, delivered: 0, read: 0, failed: 0 })
    expect(countMessagesSince(db, "acc_a", "test", utcDayStartMs(clock.nowMs()))).toEqual({
      pending: 0,
      sent: 0,
      delivered: 0,
      read: 0,
      failed: 0,
    })
    expectCountersMatchGroundTruth()
  })

  test("an update that keeps the status (a late timestamp) does not move the counters", () => {
    const m = seed({ birth: bornSent(clock.nowMs()) })
    signal(m.id, { kind: "read", atMs: clock.nowMs() + 10 })
    signal(m.id, { kind: "delivered", atMs: clock.nowMs() + 20 })
    expect(findMessage(db, m.id)).toMatchObject({ status: "read", deliveredAtMs: clock.nowMs() + 20 })
    expect(db.query("SELECT status, n FROM message_counts WHERE n <> 0").all()).toEqual([{ status: "read", n: 1 }])
    expectCountersMatchGroundTruth()
  })
})

describe("listMessages", () => {
  /** The reference page: what a plain ORDER BY seq DESC LIMIT/OFFSET query returns. */
  function referencePage(q: { accountId: string; env: Environment; status?: MessageStatus; phoneId?: string; limit: number; offset: number }) {
    const where = ["account_id = $accountId", "env = $env"]
    if (q.status !== undefined) where.push("status = $status")
    if (q.phoneId !== undefined) where.push("phone_id = $phoneId")
    const params: Record<string, string | number> = { accountId: q.accountId, env: q.env, limit: q.limit, offset: q.offset }
    if (q.status !== undefined) params.status = q.status
    if (q.phoneId !== undefined) params.phoneId = q.phoneId
    const rows = db.query<{ id: string }, Record<string, string | number>>(
      `SELECT id FROM messages WHERE ${where.join(" AND ")} ORDER BY seq DESC LIMIT $limit OFFSET $offset`,
    )
    const total = db.query<{ n: number }, Record<string, string | number>>(`SELECT COUNT(*) AS n FROM messages WHERE ${where.join(" AND ")}`)
    const { limit: _l, offset: _o, ...countParams } = params
    return { ids: rows.all(params).map((r) => r.id), total: total.get(countParams)!.n }
  }

  /** 23 messages in acc_a/test over two phones and mixed statuses, plus noise in other partitions. */
  function seedMix(): void {
    const random = prng(99)
    for (let i = 0; i < 23; i++) {
      clock.advance(1_000)
      const m = seed({ phoneId: i % 3 === 0 ? "ph_2" : "ph_1", birth: i % 5 === 0 ? bornPending() : bornSent(clock.nowMs()) })
      const roll = random()
      if (roll < 0.3) signal(m.id, { kind: "delivered", atMs: clock.nowMs() })
      else if (roll < 0.5) signal(m.id, { kind: "read", atMs: clock.nowMs() })
      // Noise that must never show up in acc_a/test.
      seed({ env: "live" })
      if (i % 2 === 0) seed({ accountId: "acc_b" })
    }
  }

  const LIMITS = [1, 4, 5, 10, 23, 100]

  test("the mix holds pending, sent, delivered and read messages on both phones", () => {
    seedMix()
    const groups = db
      .query("SELECT status, COUNT(*) AS n FROM messages WHERE account_id = 'acc_a' AND env = 'test' GROUP BY status ORDER BY status")
      .all() as { status: string; n: number }[]
    expect(groups.map((g) => g.status)).toEqual(["delivered", "pending", "read", "sent"])
    expect(groups.every((g) => g.n >= 2)).toBe(true)
  })

  test("every unfiltered page equals ORDER BY seq DESC LIMIT/OFFSET, past the end included", () => {
    seedMix()
    let pages = 0
    for (const limit of LIMITS) {
      const lastPage = Math.ceil(23 / limit)
      for (let page = 1; page <= lastPage + 2; page++) {
        const q = { accountId: "acc_a", env: "test" as const, limit, offset: (page - 1) * limit }
        const got = listMessages(db, q)
        const want = referencePage(q)
        expect({ page, limit, ids: got.rows.map((r) => r.id), total: got.total }).toEqual({ page, limit, ...want })
        pages++
      }
    }
    expect(pages).toBeGreaterThan(40)
  })

  test.each([
    { name: "status sent", filter: { status: "sent" as const } },
    { name: "status delivered", filter: { status: "delivered" as const } },
    { name: "status read", filter: { status: "read" as const } },
    { name: "status pending", filter: { status: "pending" as const } },
    { name: "status failed (no such messages)", filter: { status: "failed" as const } },
    { name: "phone ph_1", filter: { phoneId: "ph_1" } },
    { name: "phone ph_2", filter: { phoneId: "ph_2" } },
    { name: "an unknown phone", filter: { phoneId: "ph_none" } },
    { name: "phone and status", filter: { phoneId: "ph_1", status: "sent" as const } },
  ])("every page filtered by $name equals the reference query", ({ filter }) => {
    seedMix()
    for (const limit of LIMITS) {
      const total = referencePage({ accountId: "acc_a", env: "test", ...filter, limit: 1, offset: 0 }).total
      for (let page = 1; page <= Math.ceil(total / limit) + 1; page++) {
        const q = { accountId: "acc_a", env: "test" as const, ...filter, limit, offset: (page - 1) * limit }
        const got = listMessages(db, q)
        expect({ ids: got.rows.map((r) => r.id), total: got.total }).toEqual(referencePage(q))
      }
    }
  })

  test("rows come back complete, newest first", () => {
    seedMix()
    const { rows } = listMessages(db, { accountId: "acc_a", env: "test", limit: 100, offset: 0 })
    expect(rows[0]).toEqual(findMessage(db, rows[0]!.id)!)
    expect(rows.map((r) => r.seq)).toEqual(Array.from({ length: 23 }, (_, i) => 23 - i))
    const created = rows.map((r) => r.createdAtMs)
    expect([...created].sort((a, b) => b - a)).toEqual(created)
  })

  test("each (account, environment) sees only its own messages", () => {
    const a = seed()
    const aLive = seed({ env: "live" })
    const b = seed({ accountId: "acc_b" })
    const list = (accountId: string, env: Environment) =>
      listMessages(db, { accountId, env, limit: 100, offset: 0 }).rows.map((r) => r.id)
    expect(list("acc_a", "test")).toEqual([a.id])
    expect(list("acc_a", "live")).toEqual([aLive.id])
    expect(list("acc_b", "test")).toEqual([b.id])
    expect(list("acc_b", "live")).toEqual([])
    expect(listMessages(db, { accountId: "acc_a", env: "live", status: "sent", limit: 100, offset: 0 }).rows.map((r) => r.id)).toEqual([aLive.id])
  })

  test("an empty partition has total 0 and no rows on any page", () => {
    seed()
    expect(listMessages(db, { accountId: "acc_z", env: "test", limit: 20, offset: 0 })).toEqual({ rows: [], total: 0 })
    expect(listMessages(db, { accountId: "acc_z", env: "test", limit: 20, offset: 40 })).toEqual({ rows: [], total: 0 })
    expect(listMessages(db, { accountId: "acc_z", env: "test", status: "sent", limit: 20, offset: 0 })).toEqual({ rows: [], total: 0 })
  })
})

describe("scoped look-ups", () => {
  test("findScopedMessage sees a message only in its own account and environment", () => {
    const m = seed()
    expect(findScopedMessage(db, "acc_a", "test", m.id)?.id).toBe(m.id)
    expect(findScopedMessage(db, "acc_a", "live", m.id)).toBeNull()
    expect(findScopedMessage(db, "acc_b", "test", m.id)).toBeNull()
    expect(findScopedMessage(db, "acc_a", "test", "msg_missing")).toBeNull()
  })

  test("findMessageByIdempotencyKey is partitioned the same way", () => {
    const test1 = seed({ idempotencyKey: "order-7" })
    const live1 = seed({ idempotencyKey: "order-7", env: "live" })
    expect(findMessageByIdempotencyKey(db, "acc_a", "test", "order-7")?.id).toBe(test1.id)
    expect(findMessageByIdempotencyKey(db, "acc_a", "live", "order-7")?.id).toBe(live1.id)
    expect(findMessageByIdempotencyKey(db, "acc_b", "test", "order-7")).toBeNull()
    expect(findMessageByIdempotencyKey(db, "acc_a", "test", "order-8")).toBeNull()
  })
})
