import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { SLOW_TEST_TIMEOUT_MS } from "../../helpers/timeouts"
import { describeStores, type ContractStore } from "./stores"
import { idsAcrossLateCommit } from "./late-commit"
import { event, seedAccount, T0 } from "./webhook-rows"

/*
 * The event log read in commit order (EventStreamsQueries, SQLite migration 33 / PostgreSQL 21)
 * on both stores, and the consumers that keep an account's events in it.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const insert = (store: ContractStore, ...ids: string[]) => store.write(async (q) => q.insertEventsAndDeliveries(ids.map((id) => event(id)), []))
const ids = (rows: { id: string }[]) => rows.map((r) => r.id)

describeStores("event streams", (open) => {
  test("events come back in commit order after a position, each with its own position, the account and environment's only", async () => {
    const store = await open()
    await seedAccount(store)
    await seedAccount(store, "acc_2")
    const start = await store.eventLogHead("acc_1", "test")
    // Commit order differs from id order: the log follows commits.
    await insert(store, "evt_b")
    await insert(store, "evt_a")
    await store.write(async (q) => q.insertEventsAndDeliveries([event("evt_other", { accountId: "acc_2" }), event("evt_live", { env: "live" })], []))
    await insert(store, "evt_c")
    const all = await store.listEventsAfter("acc_1", "test", start, 10)
    expect(ids(all)).toEqual(["evt_b", "evt_a", "evt_c"])
    expect(all[0]).toMatchObject({ ...event("evt_b") })
    expect(ids(await store.listEventsAfter("acc_1", "test", all[0]!.position, 10))).toEqual(["evt_a", "evt_c"])
    expect(ids(await store.listEventsAfter("acc_1", "test", start, 2))).toEqual(["evt_b", "evt_a"])
    expect(await store.listEventsAfter("acc_1", "test", all[2]!.position, 10)).toEqual([])
  })

  test("an event's position reads back for its own account and environment only; the head is past every event", async () => {
    const store = await open()
    await seedAccount(store)
    await insert(store, "evt_a", "evt_b")
    const [a, b] = await store.listEventsAfter("acc_1", "test", "0", 10)
    expect(await store.eventPosition("acc_1", "test", "evt_a")).toBe(a!.position)
    expect(await store.eventPosition("acc_1", "live", "evt_a")).toBeNull()
    expect(await store.eventPosition("acc_2", "test", "evt_a")).toBeNull()
    expect(await store.eventPosition("acc_1", "test", "evt_unknown")).toBeNull()
    const head = await store.eventLogHead("acc_1", "test")
    expect(await store.listEventsAfter("acc_1", "test", head, 10)).toEqual([])
    expect(head).toBe(b!.position)
  })

  test("a consumer is recorded once, refreshed, and forgotten when not seen since the cutoff", async () => {
    const store = await open()
    await seedAccount(store)
    expect(await store.hasEventConsumer("acc_1", "test")).toBe(false)
    await store.write((q) => q.touchEventConsumer("acc_1", "test", T0))
    await store.write((q) => q.touchEventConsumer("acc_1", "test", T0 + 10))
    expect(await store.hasEventConsumer("acc_1", "test")).toBe(true)
    expect(await store.hasEventConsumer("acc_1", "live")).toBe(false)
    expect(await store.write((q) => q.pruneEventConsumers(T0 + 10))).toBe(0)
    expect(await store.write((q) => q.pruneEventConsumers(T0 + 11))).toBe(1)
    expect(await store.hasEventConsumer("acc_1", "test")).toBe(false)
  })

  test("after old events are pruned, a new event never takes a position a stream has passed", async () => {
    const store = await open()
    await seedAccount(store)
    await insert(store, "evt_a", "evt_b")
    const head = await store.eventLogHead("acc_1", "test")
    // Every event is old; SQLite keeps its newest (rowids must not go back), PostgreSQL's sequence never does.
    await store.write((q) => q.pruneEvents(T0 + 1, 10))
    await insert(store, "evt_c")
    expect(ids(await store.listEventsAfter("acc_1", "test", head, 10))).toEqual(["evt_c"])
  })
})

describe("the PostgreSQL event log under concurrent writers", () => {
  test("a transaction that took its id first but commits last is not skipped by a reader that ran in between", async () => {
    let start = ""
    const seen = await idsAcrossLateCommit({
      accounts: ["acc_1", "acc_1"],
      prepare: async (store) => void (start = await store.eventLogHead("acc_1", "test")),
      read: (store, after) => store.listEventsAfter("acc_1", "test", after ?? start, 10),
    })
    expect(seen).toEqual(["evt_1", "evt_2"])
  })
})
