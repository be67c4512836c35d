import { expect, setDefaultTimeout, test } from "bun:test"
import { bornFailed, bornPending, bornSent, type StatusSignal } from "../../../src/domain/message-status"
import { utcDayStartMs } from "../../../src/lib/time"
import type { Environment, MessageStatus } from "../../../src/lib/vocabulary"
import type { MessageRow, MessageWindowQuery } from "../../../src/store/messages"
import { TEST_EPOCH_MS } from "../../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../../helpers/timeouts"
import { DAY_MS, pick, prng, seedMessage, signal } from "./message-fixtures"
import { describeStores, type ContractStore } from "./stores"

/*
 * The message lists and counters (MessagesQueries) on both stores, checked against a model kept
 * in the test: every page is what ORDER BY seq DESC with the filters, LIMIT and OFFSET would
 * give, and every count is what COUNT(*) over the rows would give. seq is dense on SQLite and
 * not on PostgreSQL, so nothing here assumes density.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const T = TEST_EPOCH_MS
const NO_COUNTS: Record<MessageStatus, number> = { pending: 0, sent: 0, delivered: 0, read: 0, failed: 0 }

/** The rows as the test wrote them; the reference for every list and count. */
class Model {
  readonly rows = new Map<string, MessageRow>()
  put(row: MessageRow): MessageRow {
    this.rows.set(row.id, row)
    return row
  }
  partition(accountId: string, env: Environment): MessageRow[] {
    return [...this.rows.values()].filter((r) => r.accountId === accountId && r.env === env).sort((a, b) => b.seq - a.seq)
  }
  page(q: { accountId: string; env: Environment; status?: MessageStatus; phoneId?: string; limit: number; offset: number }) {
    const all = this.partition(q.accountId, q.env).filter((r) => (q.status === undefined || r.status === q.status) && (q.phoneId === undefined || r.phoneId === q.phoneId))
    return { ids: all.slice(q.offset, q.offset + q.limit).map((r) => r.id), total: all.length }
  }
  window(q: MessageWindowQuery): string[] {
    const all = this.partition(q.accountId, q.env)
    const scanned = q.toAddress === undefined ? all : all.slice(0, Math.max(0, q.recipientScanLimit)).filter((r) => r.toAddress === q.toAddress)
    return scanned
      .filter((r) => (q.beforeSeq === null || r.seq < q.beforeSeq) && (q.status === undefined || r.status === q.status) && (q.phoneId === undefined || r.phoneId === q.phoneId))
      .slice(0, q.limit)
      .map((r) => r.id)
  }
}

/** 23 messages in acc_a/test over two phones, three recipients and mixed statuses, plus noise in other partitions. */
async function seedMix(store: ContractStore, model: Model): Promise<void> {
  const random = prng(99)
  let now = T
  for (let i = 0; i < 23; i++) {
    now += 1_000
    const m = model.put(
      await seedMessage(store, {
        createdAtMs: now,
        phoneId: i % 3 === 0 ? "ph_2" : "ph_1",
        toAddress: `+1415555010${i % 4 === 0 ? 1 : i % 2}`,
        birth: i % 5 === 0 ? bornPending() : bornSent(now),
      }),
    )
    const roll = random()
    if (roll < 0.3) model.put(await signal(store, m.id, { kind: "delivered", atMs: now }, now))
    else if (roll < 0.5) model.put(await signal(store, m.id, { kind: "read", atMs: now }, now))
    // Noise that must never show up in acc_a/test.
    model.put(await seedMessage(store, { env: "live", createdAtMs: now }))
    if (i % 2 === 0) model.put(await seedMessage(store, { accountId: "acc_b", createdAtMs: now }))
  }
}

const LIMITS = [1, 4, 5, 10, 23, 100]
const FILTERS: { status?: MessageStatus; phoneId?: string }[] = [
  {},
  { status: "sent" },
  { status: "delivered" },
  { status: "read" },
  { status: "pending" },
  { status: "failed" },
  { phoneId: "ph_1" },
  { phoneId: "ph_2" },
  { phoneId: "ph_none" },
  { phoneId: "ph_1", status: "sent" },
]

describeStores("messages: lists", (open) => {
  test("every page, filtered or not, is ORDER BY seq DESC LIMIT/OFFSET with the counters' total, past the end included", async () => {
    const store = await open()
    const model = new Model()
    await seedMix(store, model)
    const statuses = new Set(model.partition("acc_a", "test").map((r) => r.status))
    expect([...statuses].sort()).toEqual(["delivered", "pending", "read", "sent"])
    let pages = 0
    for (const filter of FILTERS) {
      for (const limit of LIMITS) {
        const total = model.page({ accountId: "acc_a", env: "test", ...filter, limit, offset: 0 }).total
        for (let page = 1; page <= Math.ceil(total / limit) + 2; page++) {
          const q = { accountId: "acc_a", env: "test" as const, ...filter, limit, offset: (page - 1) * limit }
          const got = await store.listMessages(q)
          expect({ filter, limit, page, ids: got.rows.map((r) => r.id), total: got.total }).toEqual({ filter, limit, page, ...model.page(q) })
          pages++
        }
      }
    }
    expect(pages).toBeGreaterThan(150)
    const { rows } = await store.listMessages({ accountId: "acc_a", env: "test", limit: 100, offset: 0 })
    expect(rows).toEqual(model.partition("acc_a", "test"))
  })

  test("each (account, environment) lists only its own messages; an empty one has total 0 on every page", async () => {
    const store = await open()
    const a = await seedMessage(store)
    const aLive = await seedMessage(store, { env: "live" })
    const b = await seedMessage(store, { accountId: "acc_b" })
    const list = async (accountId: string, env: Environment) => (await store.listMessages({ accountId, env, limit: 100, offset: 0 })).rows.map((r) => r.id)
    expect(await list("acc_a", "test")).toEqual([a.id])
    expect(await list("acc_a", "live")).toEqual([aLive.id])
    expect(await list("acc_b", "test")).toEqual([b.id])
    expect(await list("acc_b", "live")).toEqual([])
    expect(await store.listMessages({ accountId: "acc_z", env: "test", limit: 20, offset: 0 })).toEqual({ rows: [], total: 0 })
    expect(await store.listMessages({ accountId: "acc_z", env: "test", limit: 20, offset: 40 })).toEqual({ rows: [], total: 0 })
    expect(await store.listMessages({ accountId: "acc_z", env: "test", status: "sent", limit: 20, offset: 0 })).toEqual({ rows: [], total: 0 })
  })

  test("keyset windows walk every filter to the end in the reference order, from before=null to an empty page", async () => {
    const store = await open()
    const model = new Model()
    await seedMix(store, model)
    const windows: Omit<MessageWindowQuery, "beforeSeq" | "limit">[] = [
      ...FILTERS.map((f) => ({ accountId: "acc_a", env: "test" as const, recipientScanLimit: 1_000, ...f })),
      { accountId: "acc_a", env: "test", toAddress: "+14155550101", recipientScanLimit: 1_000 },
      { accountId: "acc_a", env: "test", toAddress: "+14155550101", recipientScanLimit: 10 },
      { accountId: "acc_a", env: "test", toAddress: "+14155550100", recipientScanLimit: 7, phoneId: "ph_1" },
      { accountId: "acc_a", env: "test", toAddress: "+14155550100", recipientScanLimit: 0 },
      { accountId: "acc_a", env: "test", toAddress: "+14155550100", recipientScanLimit: -5 },
      { accountId: "acc_a", env: "test", toAddress: "+14155550199", recipientScanLimit: 100 },
      { accountId: "acc_z", env: "test", recipientScanLimit: 100 },
    ]
    for (const w of windows) {
      for (const limit of [1, 3, 10, 50]) {
        let beforeSeq: number | null = null
        const walked: string[] = []
        for (let guard = 0; guard < 100; guard++) {
          const q: MessageWindowQuery = { ...w, beforeSeq, limit }
          const got = await store.listMessagesWindow(q)
          expect({ w, limit, beforeSeq, ids: got.map((r) => r.id) }).toEqual({ w, limit, beforeSeq, ids: model.window(q) })
          if (got.length === 0) break
          expect(got[0]).toEqual(model.rows.get(got[0]!.id)!)
          walked.push(...got.map((r) => r.id))
          beforeSeq = got.at(-1)!.seq
        }
        expect(walked).toEqual(model.window({ ...w, beforeSeq: null, limit: 1_000 }))
      }
    }
  })
})

describeStores("messages: counters", (open) => {
  test.each([7, 1234])("seed %d: random inserts and status changes across UTC days keep every count equal to the rows", async (seedValue) => {
    const store = await open()
    const model = new Model()
    const random = prng(seedValue)
    const ACCOUNTS = ["acc_a", "acc_b"]
    const ENVS: Environment[] = ["test", "live"]
    const PHONES = ["ph_1", "ph_2", "ph_3"]
    let now = T
    const created: string[] = []
    for (let step = 0; step < 160; step++) {
      // Time moves on by up to 6 hours, so creations and changes straddle UTC days.
      now += Math.floor(random() * 6 * 3_600_000)
      if (created.length === 0 || random() < 0.45) {
        const birth = pick(random, [bornPending(), bornSent(now), bornFailed(now, "recipient_not_on_whatsapp", "not on WhatsApp")])
        const m = await seedMessage(store, { accountId: pick(random, ACCOUNTS), env: pick(random, ENVS), phoneId: pick(random, PHONES), birth, createdAtMs: now })
        created.push(model.put(m).id)
      } else {
        const sig = pick<StatusSignal>(random, [
          { kind: "sent", atMs: now },
          { kind: "delivered", atMs: now },
          { kind: "read", atMs: now },
          { kind: "failed", atMs: now, errorCode: "send_timeout", errorMessage: "no ack" },
        ])
        model.put(await signal(store, pick(random, created), sig, now))
      }
    }
    expect(new Set([...model.rows.values()].map((r) => r.status)).size).toBe(5)
    const since = utcDayStartMs(now) - 3 * DAY_MS
    for (const accountId of ACCOUNTS) {
      let both = 0
      for (const env of ENVS) {
        const rows = model.partition(accountId, env)
        both += rows.length
        expect(await store.countMessages(accountId, env)).toBe(rows.length)
        const byStatus = { ...NO_COUNTS }
        for (const r of rows.filter((r) => r.createdAtMs >= since)) byStatus[r.status]++
        expect(await store.countMessagesSince(accountId, env, since)).toEqual(byStatus)
        const daily = new Map<string, { dayMs: number; status: MessageStatus; n: number }>()
        for (const r of rows.filter((r) => r.createdAtMs >= since)) {
          const key = `${utcDayStartMs(r.createdAtMs)}|${r.status}`
          const d = daily.get(key) ?? daily.set(key, { dayMs: utcDayStartMs(r.createdAtMs), status: r.status, n: 0 }).get(key)!
          d.n++
        }
        const want = [...daily.values()].sort((a, b) => a.dayMs - b.dayMs || a.status.localeCompare(b.status))
        expect((await store.dailyMessageCounts(accountId, env, since)).filter((d) => d.n !== 0)).toEqual(want)
        for (const phoneId of PHONES) {
          const total = (await store.listMessages({ accountId, env, phoneId, limit: 1, offset: 0 })).total
          expect(total).toBe(rows.filter((r) => r.phoneId === phoneId).length)
        }
      }
      expect(await store.countMessages(accountId)).toBe(both)
    }
  })

  test("day counts split at UTC midnight, by creation day, with a counter left at zero still listed", async () => {
    const store = await open()
    const beforeMidnight = await seedMessage(store, { createdAtMs: T - 1, birth: bornPending() })
    await seedMessage(store, { createdAtMs: T, birth: bornSent(T) })
    await seedMessage(store, { createdAtMs: T + DAY_MS - 1, birth: bornSent(T + DAY_MS - 1) })
    await seedMessage(store, { createdAtMs: T, env: "live" })
    await signal(store, beforeMidnight.id, { kind: "sent", atMs: T + 5 }, T + 5)
    expect(await store.dailyMessageCounts("acc_a", "test", T - DAY_MS)).toEqual([
      { dayMs: T - DAY_MS, status: "pending", n: 0 },
      { dayMs: T - DAY_MS, status: "sent", n: 1 },
      { dayMs: T, status: "sent", n: 2 },
    ])
    expect(await store.dailyMessageCounts("acc_a", "test", T)).toEqual([{ dayMs: T, status: "sent", n: 2 }])
    expect(await store.dailyMessageCounts("acc_a", "test", T + DAY_MS)).toEqual([])
    expect(await store.countMessagesSince("acc_a", "test", T)).toEqual({ ...NO_COUNTS, sent: 2 })
    expect(await store.countMessagesSince("acc_a", "test", T - DAY_MS)).toEqual({ ...NO_COUNTS, sent: 3 })
    expect(await store.countMessagesSince("acc_a", "live", T)).toEqual({ ...NO_COUNTS, sent: 1 })
    expect(await store.countMessagesSince("acc_b", "test", 0)).toEqual(NO_COUNTS)
  })
})
