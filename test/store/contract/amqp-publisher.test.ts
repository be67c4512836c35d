import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { SLOW_TEST_TIMEOUT_MS } from "../../helpers/timeouts"
import { describeStores, type ContractStore } from "./stores"
import { idsAcrossLateCommit } from "./late-commit"
import { event, seedAccount, T0 } from "./webhook-rows"

/*
 * The RabbitMQ publisher's row (AmqpPublisherQueries, SQLite migration 34 / PostgreSQL 22) and
 * its read of the whole event log, on both stores.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const LEASE = 30_000
const insert = (store: ContractStore, ...rows: Parameters<typeof event>[]) => store.write(async (q) => q.insertEventsAndDeliveries(rows.map((r) => event(...r)), []))
const ids = (rows: { id: string }[]) => rows.map((r) => r.id)

describeStores("the RabbitMQ publisher's cursor and lease", (open) => {
  test("the whole log comes back after a position in commit order, every account and environment, a page at a time", async () => {
    const store = await open()
    await seedAccount(store)
    await seedAccount(store, "acc_2")
    await insert(store, ["evt_b"])
    await insert(store, ["evt_a", { accountId: "acc_2" }], ["evt_live", { env: "live" }])
    await insert(store, ["evt_c"])
    const all = await store.listLogAfter("0", 10)
    expect(ids(all)).toEqual(["evt_b", "evt_a", "evt_live", "evt_c"])
    expect(all[1]).toMatchObject(event("evt_a", { accountId: "acc_2" }))
    expect(ids(await store.listLogAfter(all[0]!.position, 2))).toEqual(["evt_a", "evt_live"])
    expect(await store.listLogAfter(all[3]!.position, 10)).toEqual([])
    expect(await store.countLogAfter(all[0]!.position, 10)).toBe(3)
    expect(await store.countLogAfter(all[3]!.position, 10)).toBe(0)
  })

  test("the backlog's count stops at its limit, so a scrape during a long outage reads a bounded range", async () => {
    const store = await open()
    await seedAccount(store)
    await insert(store, ["evt_1"], ["evt_2"], ["evt_3"], ["evt_4"])
    expect(await store.countLogAfter("0", 2)).toBe(2)
    expect(await store.countLogAfter("0", 4)).toBe(4)
    expect(await store.countLogAfter("0", 100)).toBe(4)
  })

  test("the first claim starts the cursor at the log's head, so older events are not published; the holder renews and moves it", async () => {
    const store = await open()
    await seedAccount(store)
    expect(await store.amqpPublisherRow()).toBeNull()
    await insert(store, ["evt_old"])
    const cursor = await store.write((q) => q.claimAmqpPublisher("node-a", T0, LEASE))
    expect(cursor).not.toBeNull()
    expect(await store.listLogAfter(cursor!, 10)).toEqual([])
    await insert(store, ["evt_new"])
    const [fresh] = await store.listLogAfter(cursor!, 10)
    expect(fresh!.id).toBe("evt_new")
    expect(await store.write((q) => q.advanceAmqpPublisher("node-a", fresh!.position, T0 + 1_000, LEASE))).toBe(true)
    expect(await store.amqpPublisherRow()).toEqual({ position: fresh!.position, holder: "node-a", leaseExpiresAtMs: T0 + 1_000 + LEASE })
    // A renewal by the holder keeps the cursor where it is.
    expect(await store.write((q) => q.claimAmqpPublisher("node-a", T0 + 2_000, LEASE))).toBe(fresh!.position)
  })

  test("another node gets nothing while the lease runs, and cannot move the cursor; it takes over with the cursor once the lease ran out or was released", async () => {
    const store = await open()
    const start = await store.write((q) => q.claimAmqpPublisher("node-a", T0, LEASE))
    expect(await store.write((q) => q.claimAmqpPublisher("node-b", T0 + LEASE - 1, LEASE))).toBeNull()
    expect(await store.write((q) => q.advanceAmqpPublisher("node-b", "999", T0 + 1, LEASE))).toBe(false)
    expect(await store.write((q) => q.claimAmqpPublisher("node-b", T0 + LEASE, LEASE))).toBe(start)
    // node-a's lease ran out: it may not move the cursor any more.
    expect(await store.write((q) => q.advanceAmqpPublisher("node-a", "999", T0 + LEASE + 1, LEASE))).toBe(false)
    await store.write((q) => q.releaseAmqpPublisher("node-b"))
    expect(await store.write((q) => q.claimAmqpPublisher("node-a", T0 + LEASE + 2, LEASE))).toBe(start)
    expect((await store.amqpPublisherRow())?.holder).toBe("node-a")
  })

  test("pruning spares old events past the publisher's cursor and deletes those before it", async () => {
    const store = await open()
    await seedAccount(store)
    await insert(store, ["evt_1"], ["evt_2"], ["evt_3"], ["evt_4"])
    const [first, second] = await store.listLogAfter("0", 10)
    // Every event is old; SQLite keeps the newest anyway, so the cursor stops short of it.
    expect(await store.write((q) => q.pruneEvents(T0 + 1, 10, second!.position))).toBe(2)
    expect(ids(await store.listLogAfter("0", 10))).toEqual(["evt_3", "evt_4"])
    expect(await store.findEvent(first!.id)).toBeNull()
  })
})

describe("the PostgreSQL whole-log read under concurrent writers", () => {
  test("a transaction that took its id first but commits last is not skipped by the publisher's read in between", async () => {
    const seen = await idsAcrossLateCommit({ accounts: ["acc_1", "acc_2"], read: (store, after) => store.listLogAfter(after ?? "0:0", 10) })
    expect(seen).toEqual(["evt_1", "evt_2"])
  })
})
