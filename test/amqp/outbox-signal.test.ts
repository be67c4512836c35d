import { afterEach, expect, test } from "bun:test"
import { ulidGenerator } from "../../src/lib/ids"
import { createOutbox } from "../../src/webhooks/outbox"
import { openSqliteContractStore } from "../store/contract/stores"
import { seedAccount } from "../store/contract/webhook-rows"
import { TestClock } from "../helpers/test-clock"

/*
 * With RabbitMQ publishing on, the outbox rings the `events` signal for every event it logs, so
 * the node holding the publisher's lease wakes on commits of every node (src/webhooks/amqp/).
 */

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c()
})

async function recordOne(onLoggedCommitted: (() => void) | undefined): Promise<string[]> {
  const opened = await openSqliteContractStore()
  cleanups.push(opened.cleanup)
  const { store } = opened
  await seedAccount(store)
  const clock = new TestClock()
  const outbox = createOutbox({ ids: ulidGenerator(clock), clock, onDeliveryCommitted: () => {}, version: () => "fixed", onLoggedCommitted })
  const heard: string[] = []
  const unlisten = await store.listen("events", (payload) => heard.push(payload))
  cleanups.unshift(unlisten)
  await store.write((q, tx) => outbox.record(q, tx, { accountId: "acc_1", env: "test", type: "message.sent", data: { a: 1 }, occurredAtMs: clock.nowMs() }))
  await new Promise((r) => setImmediate(r))
  return heard
}

test("with publishing on, an event nobody streams or receives by webhook still rings the events signal of its account once", async () => {
  expect(await recordOne(() => {})).toEqual(["acc_1|test"])
})

test("with publishing off, such an event is not even logged, and nothing rings", async () => {
  expect(await recordOne(undefined)).toEqual([])
})
