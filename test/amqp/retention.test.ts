import { afterEach, expect, test } from "bun:test"
import { silentLogger } from "../../src/lib/logger"
import { createScheduler } from "../../src/lib/scheduler"
import { createWebhookRetention } from "../../src/webhooks/retention"
import { TestClock } from "../helpers/test-clock"
import { openSqliteContractStore } from "../store/contract/stores"
import { event, seedAccount } from "../store/contract/webhook-rows"

/* Retention while RabbitMQ publishing is on (docs/webhooks.md § "RabbitMQ"): what waits for the broker stays. */

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c()
})

for (const amqpPublishing of [true, false]) {
  test(`old events the publisher has not had confirmed are ${amqpPublishing ? "kept while publishing is on" : "pruned when it is off"}`, async () => {
    const opened = await openSqliteContractStore()
    cleanups.push(opened.cleanup)
    const { store } = opened
    await seedAccount(store)
    const clock = new TestClock()
    // The publisher starts at the head (nothing yet), then four old events wait for it.
    await store.write((q) => q.claimAmqpPublisher("node-a", clock.nowMs(), 30_000))
    await store.write(async (q) => q.insertEventsAndDeliveries(["evt_1", "evt_2", "evt_3", "evt_4"].map((id) => event(id)), []))
    const scheduler = createScheduler(clock)
    cleanups.push(async () => scheduler.stop())
    const retention = createWebhookRetention({ store, clock, logger: silentLogger, scheduler, retentionDays: 30, amqpPublishing })
    // The events occurred weeks before the test clock's now, past a 30-day retention.
    await retention.prune()
    const left = (await store.listLogAfter("0", 10)).map((e) => e.id)
    // SQLite always keeps the newest event (src/store/sqlite/webhooks.ts).
    expect(left).toEqual(amqpPublishing ? ["evt_1", "evt_2", "evt_3", "evt_4"] : ["evt_4"])
  })
}
