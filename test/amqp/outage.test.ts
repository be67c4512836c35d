import { expect, setDefaultTimeout, test } from "bun:test"
import type { Harness } from "../helpers/harness"
import { describeWithRabbitmq } from "../helpers/rabbitmq"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { bindQueue, rabbitmqSuite, recordingLogger, takeAtLeast, type Taken } from "./amqp-helpers"

/*
 * The broker goes away and comes back (docs/webhooks.md § "RabbitMQ"): events wait in the store,
 * counted in /metrics, the API stays ready, one warning per outage, and when the broker is back
 * every event goes out with each message's events in order.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS * 6)

const LIFECYCLE = ["message.sent", "message.delivered", "message.read"]

async function sendSome(h: Harness, key: string, from: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const res = await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: from, to: "+14155550199", content: `m${i}` } })
    expect(res.status).toBe(201)
  }
}

/** Waits, in real time, until `check` holds (the broker and the client's reconnects run on real time). */
async function until(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
  const deadline = performance.now() + timeoutMs
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await Bun.sleep(50)
  }
}

async function metricValue(h: Harness, name: string): Promise<number> {
  const res = await h.request("GET", "/metrics", { headers: { authorization: `Bearer ${await h.adminToken()}` } })
  const line = (res.body as string).split("\n").find((l) => l.startsWith(`${name}{`))
  return line ? Number(line.split(" ").at(-1)) : Number.NaN
}

describeWithRabbitmq("RabbitMQ publishing: the broker stopped and started", () => {
  const rabbit = rabbitmqSuite()

  test("sends flowing across a stop and a start: nothing lost, each message's events in order, one warning for the outage and one notice of the return", async () => {
    await bindQueue(rabbit.broker.url, "wagate.events", "flow")
    const logger = recordingLogger()
    const h = await rabbit.publishing(rabbit.broker.url, "wagate.events", { logger })
    const { key, phone } = await h.seedTenant()
    await sendSome(h, key, phone.phoneNumber, 3)
    const before = await takeAtLeast(rabbit.broker.url, "flow", 3)
    await rabbit.broker.stop()
    // The transitions of the first sends and new sends happen while the broker is down.
    await h.advance(1_000)
    await sendSome(h, key, phone.phoneNumber, 4)
    await h.advance(3_000)
    await until(() => logger.lines.some((l) => l.level === "warn"), "the outage's warning")
    await rabbit.broker.start()
    await sendSome(h, key, phone.phoneNumber, 2)
    await h.advance(3_000)
    const logged = await h.services.ctx.store.listLogAfter("0", 1_000)
    expect(logged.length).toBe(27)
    // Our backoff runs on the test clock: moving it lets a retry happen if the reconnect was missed.
    const taken: Taken[] = [...before, ...(await takeAtLeast(rabbit.broker.url, "flow", 27 - before.length, 90_000, () => h.advance(1_000)))]
    const ids = new Set(taken.map((m) => m.messageId))
    for (const e of logged) expect(ids.has(e.id)).toBe(true)
    // At-least-once: a page cut by the stop may come again whole, after what it holds; what
    // matters is that each event first arrives after the message's earlier events.
    const byMessage = new Map<string, string[]>()
    for (const m of taken) {
      const envelope = JSON.parse(m.body) as { event: string; data: { messageId: string } }
      const seen = byMessage.get(envelope.data.messageId) ?? []
      if (!seen.includes(envelope.event)) seen.push(envelope.event)
      byMessage.set(envelope.data.messageId, seen)
    }
    expect(byMessage.size).toBe(9)
    for (const events of byMessage.values()) expect(events).toEqual(LIFECYCLE)
    const warns = logger.lines.filter((l) => l.level === "warn")
    expect(warns.length).toBe(1)
    expect(String(warns[0]!.fields?.reason)).not.toBe("")
    await until(() => logger.lines.some((l) => l.level === "info" && l.msg.includes("reachable again")), "the return's notice")
    expect(logger.lines.filter((l) => l.msg.includes("reachable again")).length).toBe(1)
  })

  test("while the broker is down, the waiting events are counted in /metrics and /readyz still answers 200", async () => {
    const h = await rabbit.publishing(rabbit.broker.url, "wagate.events")
    const { key, phone } = await h.seedTenant()
    await sendSome(h, key, phone.phoneNumber, 1)
    await until(async () => (await metricValue(h, "wagate_amqp_published_total")) === 1, "the first publish")
    await rabbit.broker.stop()
    await sendSome(h, key, phone.phoneNumber, 2)
    await until(async () => (await h.services.brokerStatus!()).state === "down", "the down state")
    expect(await metricValue(h, "wagate_amqp_backlog")).toBe(2)
    expect(await metricValue(h, "wagate_amqp_connected")).toBe(0)
    expect((await h.request("GET", "/readyz")).status).toBe(200)
    await rabbit.broker.start()
    await until(async () => (await metricValue(h, "wagate_amqp_backlog")) === 0, "the backlog drained", 90_000)
    expect(await metricValue(h, "wagate_amqp_published_total")).toBeGreaterThanOrEqual(3)
  })

  test("a broker that refuses wagate's user (no permission on the vhost): one warning with the broker's reason, however often the client retries", async () => {
    const url = await rabbit.broker.addUserWithoutPermissions("nobody", "s3cret-pw")
    const logger = recordingLogger()
    const h = await rabbit.publishing(url, "wagate.events", { logger })
    const { key, phone } = await h.seedTenant()
    await sendSome(h, key, phone.phoneNumber, 1)
    await until(() => logger.lines.some((l) => l.level === "warn"), "the warning")
    // The client retries on its own backoff (1 s, then longer); a few seconds see several refusals.
    await Bun.sleep(4_000)
    await h.advance(30_000)
    const warns = logger.lines.filter((l) => l.level === "warn")
    expect(warns.length).toBe(1)
    expect(String(warns[0]!.fields?.reason)).toMatch(/ACCESS_REFUSED|access to vhost/i)
    expect(JSON.stringify(logger.lines)).not.toContain("s3cret-pw")
    const status = await h.services.brokerStatus!()
    expect(status.state).toBe("down")
    expect(status.lastError).toMatch(/ACCESS_REFUSED|access to vhost/i)
    // The send's message.sent, then (the clock moved) its message.delivered and message.read.
    expect(status.backlog).toBe(3)
  })
})
