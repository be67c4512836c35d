import { afterAll, afterEach, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { createHarness, type Harness } from "../helpers/harness"
import { testPostgres } from "../helpers/postgres"
import { describeWithRabbitmq, startRabbitmq, type ThrowawayRabbitmq } from "../helpers/rabbitmq"
import { TestClock } from "../helpers/test-clock"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { freshMigratedDatabase } from "../store/contract/stores"
import { bindQueue, drain, takeAtLeast } from "./amqp-helpers"

/*
 * Two nodes on one PostgreSQL publishing to one broker (docs/webhooks.md § "RabbitMQ", "Several
 * nodes"): one holds the publisher's lease and publishes what both commit, each event once; when
 * it stops, the other continues from the cursor.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS * 3)

describeWithRabbitmq("RabbitMQ publishing from two nodes on PostgreSQL", () => {
  let broker: ThrowawayRabbitmq
  const nodes: Harness[] = []
  beforeAll(async () => {
    ;[broker] = await Promise.all([startRabbitmq(), testPostgres()])
  }, SLOW_HOOK_TIMEOUT_MS * 2)
  afterAll(() => broker?.remove(), SLOW_HOOK_TIMEOUT_MS)
  afterEach(async () => {
    for (const h of nodes.splice(0).reverse()) await h.close()
  }, SLOW_HOOK_TIMEOUT_MS)

  test("events committed on either node are published once each, by the lease holder; when it stops, the other node publishes what follows", async () => {
    await bindQueue(broker.url, "wagate.events", "cluster")
    const url = await freshMigratedDatabase()
    const clock = new TestClock()
    const start = async (nodeId: string) => {
      const h = await createHarness({ clock, env: { WAGATE_DATABASE_URL: url, WAGATE_NODE_ID: nodeId, WAGATE_AMQP_URL: broker.url } })
      nodes.push(h)
      return h
    }
    const n1 = await start("n1")
    const n2 = await start("n2")
    const { account, key, phone } = await n1.seedTenant()
    const send = async (h: Harness, content: string) => {
      const res = await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: "+14155550199", content } })
      expect(res.status).toBe(201)
    }
    for (let i = 0; i < 3; i++) {
      await send(n1, `one ${i}`)
      await send(n2, `two ${i}`)
    }
    // The holder wakes on the other node's commits (the events signal); the poll is the backup.
    const first = await takeAtLeast(broker.url, "cluster", 6, 60_000, () => n1.advance(1_000))
    const holder = (await n1.services.ctx.store.amqpPublisherRow())!.holder
    expect(["n1", "n2"]).toContain(holder!)
    const [stays, leaves] = holder === "n1" ? [n2, n1] : [n1, n2]
    nodes.splice(nodes.indexOf(leaves), 1)
    await leaves.close()
    await send(stays, "after the holder left")
    const second = await takeAtLeast(broker.url, "cluster", 1, 60_000, () => stays.advance(5_000))
    // The clock moved the sends on (delivered, read): let the publisher confirm all before the last look.
    for (let waited = 0; (await stays.services.brokerStatus!()).backlog > 0; waited += 50) {
      if (waited > 60_000) throw new Error("the backlog never drained")
      await Bun.sleep(50)
    }
    const all = [...first, ...second, ...(await drain(broker.url, "cluster"))]
    const logged = await stays.services.ctx.store.listLogAfter("0:0", 100)
    // Each committed event once, nothing else.
    expect(all.map((m) => m.messageId).sort()).toEqual(logged.map((e) => e.id).sort())
    for (const m of all) expect(m.routingKey).toStartWith(`test.${account.id}.`)
    expect((await stays.services.ctx.store.amqpPublisherRow())!.holder).toBe(holder === "n1" ? "n2" : "n1")
  })
})
