import { afterEach, describe, expect, test } from "bun:test"
import { Counter } from "../../src/lib/metrics"
import { createAmqpPublisher, type AmqpPublisher, type AmqpPublisherOptions } from "../../src/webhooks/amqp/publisher"
import type { BrokerMessage, BrokerPort } from "../../src/webhooks/amqp/port"
import type { Store } from "../../src/store/store"
import { openSqliteContractStore } from "../store/contract/stores"
import { event, seedAccount } from "../store/contract/webhook-rows"
import { TestClock } from "../helpers/test-clock"
import { recordingLogger } from "./amqp-helpers"

/*
 * The publisher loop (src/webhooks/amqp/publisher.ts) against a fake broker port passed in, on a
 * real SQLite store and the test clock: when the cursor moves, how failures back off, what is
 * logged, and who publishes.
 */

/** A broker the test drives: each publish waits until the test confirms or fails it. */
class FakePort implements BrokerPort {
  readonly batches: BrokerMessage[][] = []
  private pending: { resolve: () => void; reject: (err: Error) => void }[] = []
  private listeners: Parameters<BrokerPort["onChange"]>[0][] = []
  /** Publishes succeed at once unless set to a failure reason. */
  failWith: string | null = null
  hold = false
  closed = false
  async publish(messages: readonly BrokerMessage[]): Promise<void> {
    this.batches.push([...messages])
    if (this.failWith !== null) throw new Error(this.failWith)
    if (!this.hold) return
    await new Promise<void>((resolve, reject) => this.pending.push({ resolve, reject }))
  }
  confirmAll(): void {
    for (const p of this.pending.splice(0)) p.resolve()
  }
  emit(change: Parameters<Parameters<BrokerPort["onChange"]>[0]>[0]): void {
    for (const fn of this.listeners) fn(change)
  }
  onChange(fn: Parameters<BrokerPort["onChange"]>[0]): void {
    this.listeners.push(fn)
  }
  async close(): Promise<void> {
    this.closed = true
  }
}

const settle = async () => {
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r))
}

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c()
})

async function setup(options: Partial<AmqpPublisherOptions> = {}, nodeId = "node-a", shared?: { store: Store; clock: TestClock }) {
  const opened = shared ? null : await openSqliteContractStore()
  const store = shared?.store ?? opened!.store
  if (opened) {
    await seedAccount(store)
    cleanups.push(opened.cleanup)
  }
  const clock = shared?.clock ?? new TestClock()
  const port = new FakePort()
  const logger = recordingLogger()
  const metrics = { published: new Counter("p", "p"), failures: new Counter("f", "f") }
  const publisher: AmqpPublisher = createAmqpPublisher({ store, clock, logger, nodeId, exchange: "wagate.events", metrics, openPort: () => port, options })
  cleanups.unshift(() => publisher.stop())
  const add = async (...ids: string[]) => {
    await store.write(async (q) => q.insertEventsAndDeliveries(ids.map((id) => event(id)), []))
    publisher.wake()
    await settle()
  }
  return { store, clock, port, logger, metrics, publisher, add, opened }
}

const idsOf = (batches: BrokerMessage[][]) => batches.flat().map((m) => m.messageId)

describe("the publisher loop: success", () => {
  test("a committed event is published at once with its routing key and body, and the cursor moves only after the broker confirmed it", async () => {
    const s = await setup()
    s.publisher.start()
    await settle()
    const start = (await s.store.amqpPublisherRow())!.position
    s.port.hold = true
    await s.add("evt_1", "evt_2")
    expect(s.port.batches).toEqual([[
      { routingKey: "test.acc_1.message.delivered", messageId: "evt_1", body: event("evt_1").body, occurredAtMs: event("evt_1").occurredAtMs },
      { routingKey: "test.acc_1.message.delivered", messageId: "evt_2", body: event("evt_2").body, occurredAtMs: event("evt_2").occurredAtMs },
    ]])
    expect((await s.store.amqpPublisherRow())!.position).toBe(start)
    expect((await s.publisher.status()).backlog).toBe(2)
    s.port.confirmAll()
    await settle()
    const [, second] = await s.store.listLogAfter(start!, 10)
    expect((await s.store.amqpPublisherRow())!.position).toBe(second!.position)
    expect(await s.publisher.status()).toMatchObject({ state: "connected", backlog: 0, publishedTotal: 2 })
    expect(s.metrics.published.get()).toBe(2)
  })

  test("a backlog goes out a page at a time, in log order, without waiting for the poll", async () => {
    const s = await setup({ pageSize: 2 })
    s.publisher.start()
    await settle()
    s.port.hold = true
    await s.add("evt_1", "evt_2", "evt_3", "evt_4", "evt_5")
    s.port.hold = false
    s.port.confirmAll()
    await settle()
    expect(s.port.batches.map((b) => b.length)).toEqual([2, 2, 1])
    expect(idsOf(s.port.batches)).toEqual(["evt_1", "evt_2", "evt_3", "evt_4", "evt_5"])
  })

  test("the next page goes out as soon as a page is confirmed, while the cursor's write for it is still pending", async () => {
    const s = await setup({ pageSize: 2, pagesInFlight: 1 })
    s.publisher.start()
    await settle()
    s.port.hold = true
    await s.add("evt_1", "evt_2", "evt_3", "evt_4")
    expect(s.port.batches.length).toBe(1)
    let open: () => void = () => {}
    const gate = new Promise<void>((resolve) => (open = resolve))
    const write = s.store.write.bind(s.store)
    s.store.write = (async (fn: Parameters<Store["write"]>[0], options?: Parameters<Store["write"]>[1]) => {
      if (String(fn).includes("advanceAmqpPublisher")) await gate
      return write(fn, options)
    }) as Store["write"]
    s.port.confirmAll()
    await settle()
    expect(idsOf(s.port.batches)).toEqual(["evt_1", "evt_2", "evt_3", "evt_4"])
    open()
    s.port.hold = false
    s.port.confirmAll()
    await settle()
    expect((await s.publisher.status()).backlog).toBe(0)
  })

  test("the poll publishes what no wake-up announced (an event committed by another node)", async () => {
    const s = await setup({ pollMs: 1_000 })
    s.publisher.start()
    await settle()
    await s.store.write(async (q) => q.insertEventsAndDeliveries([event("evt_quiet")], []))
    await settle()
    expect(s.port.batches).toEqual([])
    await s.clock.advanceAndCatchUp(1_000, settle)
    expect(idsOf(s.port.batches)).toEqual(["evt_quiet"])
  })
})

describe("the publisher loop: failures", () => {
  test("a failed page keeps the cursor and is retried whole after 1 s, 2 s, 4 s … up to 30 s; commits in between do not hasten it", async () => {
    const s = await setup()
    s.publisher.start()
    await settle()
    const start = (await s.store.amqpPublisherRow())!.position
    s.port.failWith = "connection refused"
    await s.add("evt_1")
    const attemptsAt = () => s.port.batches.length
    expect(attemptsAt()).toBe(1)
    await s.add("evt_2")
    expect(attemptsAt()).toBe(1)
    const gaps = [1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]
    for (const gap of gaps) {
      await s.clock.advanceAndCatchUp(gap - 1, settle)
      const before = attemptsAt()
      await s.clock.advanceAndCatchUp(1, settle)
      expect(attemptsAt()).toBe(before + 1)
    }
    expect((await s.store.amqpPublisherRow())!.position).toBe(start)
    expect(s.metrics.failures.get()).toBe(gaps.length + 1)
    s.port.failWith = null
    await s.clock.advanceAndCatchUp(30_000, settle)
    expect(idsOf(s.port.batches.slice(-1))).toEqual(["evt_1", "evt_2"])
    expect((await s.publisher.status()).backlog).toBe(0)
  })

  test("an outage is one warning with its reason (bounded), however many failures; the return is one info line", async () => {
    const s = await setup()
    s.publisher.start()
    await settle()
    s.port.failWith = `ACCESS_REFUSED - access to vhost '/' refused\u0007${"x".repeat(5_000)}`
    await s.add("evt_1")
    s.port.emit({ connected: false, reason: "ECONNREFUSED" })
    await s.clock.advanceAndCatchUp(10_000, settle)
    const warns = s.logger.lines.filter((l) => l.level === "warn")
    expect(warns.length).toBe(1)
    const reason = String(warns[0]!.fields!.reason)
    expect(reason).toStartWith("ACCESS_REFUSED - access to vhost '/' refused")
    expect(reason.length).toBeLessThan(600)
    expect(reason).not.toContain("\u0007")
    expect((await s.publisher.status()).state).toBe("down")
    // The broker is back: the client says so, and the waiting page goes out at once.
    s.port.failWith = null
    s.port.emit({ connected: true })
    await settle()
    expect(idsOf(s.port.batches.slice(-1))).toEqual(["evt_1"])
    expect(s.logger.lines.filter((l) => l.level === "info").map((l) => l.msg)).toEqual(["RabbitMQ is reachable again: publishing the events that waited"])
    // A second outage warns again.
    s.port.emit({ connected: false, reason: "socket closed" })
    expect(s.logger.lines.filter((l) => l.level === "warn").length).toBe(2)
  })
})

describe("the publisher loop: several nodes", () => {
  test("only the lease holder publishes; when it stops, the other node takes over from the cursor and publishes the rest once", async () => {
    const a = await setup({ leaseMs: 9_000 }, "node-a")
    const b = await setup({ leaseMs: 9_000 }, "node-b", { store: a.store, clock: a.clock })
    a.publisher.start()
    await settle()
    b.publisher.start()
    await settle()
    await a.add("evt_1")
    await b.add("evt_2")
    await a.clock.advanceAndCatchUp(3_000, settle)
    expect(idsOf(a.port.batches)).toEqual(["evt_1", "evt_2"])
    expect(b.port.batches).toEqual([])
    await a.publisher.stop()
    await a.add("evt_3")
    await a.clock.advanceAndCatchUp(3_000, settle)
    expect(idsOf(b.port.batches)).toEqual(["evt_3"])
    expect((await a.store.amqpPublisherRow())!.holder).toBe("node-b")
    // Before the lease it waited for would have run out, the new holder publishes on a commit's wake-up.
    await b.add("evt_4")
    expect(idsOf(b.port.batches)).toEqual(["evt_3", "evt_4"])
  })

  test("the holder publishes an event another node committed on the events signal, without waiting for the poll", async () => {
    const s = await setup({ pollMs: 60_000 })
    s.publisher.start()
    await settle()
    // Another node's commit: nothing calls this publisher's wake(); only the store's signal reaches it.
    await s.store.write(async (q, tx) => {
      await q.insertEventsAndDeliveries([event("evt_elsewhere")], [])
      tx.notify("events", "acc_1|test")
    })
    await settle()
    expect(idsOf(s.port.batches)).toEqual(["evt_elsewhere"])
  })

  test("a holder that died (its lease never renewed) is replaced within one 10 s lease; the standby does not claim on every commit meanwhile, then publishes every event once, in order", async () => {
    const a = await setup({}, "node-b")
    // A node claimed the lease and died: it never renews or releases it.
    await a.store.write((q) => q.claimAmqpPublisher("node-dead", a.clock.nowMs(), 10_000))
    a.publisher.start()
    await settle()
    let claims = 0
    const write = a.store.write.bind(a.store)
    a.store.write = ((fn: Parameters<Store["write"]>[0], options?: Parameters<Store["write"]>[1]) => {
      if (String(fn).includes("claimAmqpPublisher")) claims++
      return write(fn, options)
    }) as Store["write"]
    for (const id of ["evt_1", "evt_2", "evt_3"]) {
      await a.add(id)
      await a.clock.advanceAndCatchUp(2_000, settle)
    }
    // 6 s in: the dead node's lease still runs; the three commits did not make the standby claim,
    // only its timer did (every third of a lease, in case the holder let the lease go).
    expect(a.port.batches).toEqual([])
    expect(claims).toBe(1)
    for (let second = 7; second <= 10; second++) await a.clock.advanceAndCatchUp(1_000, settle)
    expect(idsOf(a.port.batches)).toEqual(["evt_1", "evt_2", "evt_3"])
    expect((await a.store.amqpPublisherRow())!.holder).toBe("node-b")
    await a.add("evt_4")
    expect(idsOf(a.port.batches)).toEqual(["evt_1", "evt_2", "evt_3", "evt_4"])
  })
})
