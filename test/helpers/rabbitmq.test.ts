import { afterAll, beforeAll, expect, setDefaultTimeout, test } from "bun:test"
import { Connection } from "rabbitmq-client"
import { describeWithRabbitmq, startRabbitmq, type ThrowawayRabbitmq } from "./rabbitmq"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "./timeouts"

// Each broker boots in seconds and stops in a few more; the restart test does both.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS * 4)

/** A connection with the few operations these tests need, over rabbitmq-client. */
async function amqpConnect(url: string, timeoutMs: number) {
  const rabbit = new Connection({ url, connectionTimeout: timeoutMs, retryLow: 60_000, retryHigh: 60_000 })
  rabbit.on("error", () => {})
  try {
    await rabbit.onConnect(timeoutMs)
  } catch (err) {
    rabbit.unsafeDestroy()
    throw err
  }
  const publisher = rabbit.createPublisher({ confirm: true })
  const publish = (queue: string, body: string) => publisher.send({ routingKey: queue, durable: true }, body)
  return {
    declareQueue: async (queue: string) => void (await rabbit.queueDeclare({ queue, durable: true })),
    publish,
    async publishMany(queue: string, n: number, body: (i: number) => string) {
      await Promise.all(Array.from({ length: n }, (_, i) => publish(queue, body(i))))
    },
    async get(queue: string): Promise<string | null> {
      const m = await rabbit.basicGet({ queue, noAck: true })
      return m ? String(m.body) : null
    },
    close: () => void publisher.close().finally(() => rabbit.close()),
  }
}

describeWithRabbitmq("the throwaway RabbitMQ", () => {
  let broker: ThrowawayRabbitmq
  beforeAll(async () => {
    broker = await startRabbitmq()
  }, SLOW_HOOK_TIMEOUT_MS * 2)
  afterAll(() => broker?.remove(), SLOW_HOOK_TIMEOUT_MS)

  test("a started broker takes a persistent message and hands it back", async () => {
    const connection = await amqpConnect(broker.url, 10_000)
    try {
      await connection.declareQueue("round-trip")
      await connection.publish("round-trip", '{"id":"evt_1"}')
      expect(await connection.get("round-trip")).toBe('{"id":"evt_1"}')
      expect(await connection.get("round-trip")).toBeNull()
    } finally {
      connection.close()
    }
  })

  test("a pipelined confirming publisher has every message in the queue once all are confirmed", async () => {
    const connection = await amqpConnect(broker.url, 10_000)
    try {
      await connection.declareQueue("pipelined")
      await connection.publish("pipelined", "first, alone")
      await connection.publishMany("pipelined", 500, (i) => `m${i}`)
      const listed = await broker.ctl("list_queues", "--quiet", "--no-table-headers", "name", "messages")
      expect(listed).toMatch(/^pipelined\s+501$/m)
      expect(await connection.get("pipelined")).toBe("first, alone")
      expect(await connection.get("pipelined")).toBe("m0")
    } finally {
      connection.close()
    }
  })

  test("listens on 127.0.0.1 on a port of its own, under a node name of its own", () => {
    expect(broker.url).toBe(`amqp://guest:guest@127.0.0.1:${broker.port}`)
    expect(broker.port).not.toBe(5672)
    expect(broker.nodename).toMatch(/^wagate-test-[0-9a-f]{8}@localhost$/)
  })

  test("a stopped broker refuses connections, and started again on the same port keeps its durable messages", async () => {
    const before = await amqpConnect(broker.url, 10_000)
    await before.declareQueue("kept")
    await before.publish("kept", "survives a restart")
    before.close()
    await broker.stop()
    expect(broker.running).toBe(false)
    await expect(amqpConnect(broker.url, 2_000)).rejects.toThrow()
    await broker.start()
    const after = await amqpConnect(broker.url, 10_000)
    try {
      expect(await after.get("kept")).toBe("survives a restart")
    } finally {
      after.close()
    }
  })

  test("a killed broker comes back too (no graceful shutdown), with confirmed messages kept", async () => {
    const before = await amqpConnect(broker.url, 10_000)
    await before.declareQueue("killed")
    await before.publish("killed", "confirmed before the kill")
    before.close()
    await broker.stop({ kill: true })
    await broker.start()
    const after = await amqpConnect(broker.url, 10_000)
    try {
      expect(await after.get("killed")).toBe("confirmed before the kill")
    } finally {
      after.close()
    }
  })

  test("a user without permissions is refused by the broker (ACCESS_REFUSED on the vhost)", async () => {
    const url = await broker.addUserWithoutPermissions("refused", "p@ss word")
    const error = await amqpConnect(url, 10_000).then(
      (c) => (c.close(), null),
      (err: unknown) => err,
    )
    expect(String(error)).toMatch(/failed to connect/)
    expect(String((error as Error).cause ?? "")).toMatch(/ACCESS_REFUSED|NOT_ALLOWED|access to vhost/i)
  })

  test("two brokers run side by side without sharing ports, names or messages", async () => {
    const second = await startRabbitmq()
    try {
      expect(second.port).not.toBe(broker.port)
      expect(second.nodename).not.toBe(broker.nodename)
      const a = await amqpConnect(broker.url, 10_000)
      const b = await amqpConnect(second.url, 10_000)
      await a.declareQueue("shared-name")
      await b.declareQueue("shared-name")
      await a.publish("shared-name", "only on the first")
      expect(await b.get("shared-name")).toBeNull()
      expect(await a.get("shared-name")).toBe("only on the first")
      a.close()
      b.close()
    } finally {
      await second.remove()
    }
  })
})
