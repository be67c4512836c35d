import { expect, setDefaultTimeout, test } from "bun:test"
import { describeWithRabbitmq } from "../helpers/rabbitmq"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { bindQueue, drain, rabbitmqSuite, recordingLogger, takeAtLeast } from "./amqp-helpers"

/* Events published to a real RabbitMQ (docs/webhooks.md § "RabbitMQ"): what a consumer receives. */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS * 2)

describeWithRabbitmq("RabbitMQ publishing: success", () => {
  const rabbit = rabbitmqSuite()

  test("sandbox sends through the API go to the topic exchange as persistent JSON messages keyed <environment>.<account>.<event>, message_id the event id, body the webhook envelope", async () => {
    const exchange = "acme.events"
    await bindQueue(rabbit.broker.url, exchange, "all")
    const h = await rabbit.publishing(rabbit.broker.url, exchange)
    const { account, key, phone } = await h.seedTenant()
    const sent = await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "Hi" } })
    expect(sent.status).toBe(201)
    await h.advance(3_000)
    const taken = await takeAtLeast(rabbit.broker.url, "all", 3)
    expect(taken.map((m) => m.routingKey)).toEqual([`test.${account.id}.message.sent`, `test.${account.id}.message.delivered`, `test.${account.id}.message.read`])
    for (const m of taken) {
      expect(m.exchange).toBe(exchange)
      expect(m.durable).toBe(true)
      expect(m.contentType).toBe("application/json")
      const stored = await h.services.ctx.store.findEvent(m.messageId!)
      expect(stored?.body).toBe(m.body)
    }
    expect(JSON.parse(taken[0]!.body)).toMatchObject({ event: "message.sent", data: { messageId: sent.body.data.id } })
    const metrics = await h.request("GET", "/metrics", { headers: { authorization: `Bearer ${await h.adminToken()}` } })
    expect(metrics.body).toMatch(/^wagate_amqp_published_total\{node="[^"]+"\} 3$/m)
    expect(metrics.body).toMatch(/^wagate_amqp_backlog\{node="[^"]+"\} 0$/m)
  })

  test("a consumer bound to one account's routing keys gets that account's events only", async () => {
    const exchange = "per-account"
    const h = await rabbit.publishing(rabbit.broker.url, exchange)
    const first = await h.seedTenant()
    const second = await h.seedTenant()
    await bindQueue(rabbit.broker.url, exchange, "first-only", `*.${first.account.id}.#`)
    await bindQueue(rabbit.broker.url, exchange, "second-all", `#`)
    for (const t of [first, second]) {
      const sent = await h.request("POST", "/v1/messages/send", { key: t.key, body: { fromPhoneId: t.phone.phoneNumber, to: "+14155550199", content: "Hi" } })
      expect(sent.status).toBe(201)
    }
    await takeAtLeast(rabbit.broker.url, "second-all", 2)
    const firstOnly = await drain(rabbit.broker.url, "first-only")
    expect(firstOnly.map((m) => m.routingKey)).toEqual([`test.${first.account.id}.message.sent`])
  })

  test("with no webhook endpoint and no stream, events are still written to the log and published, and the broker's state is connected", async () => {
    const exchange = "no-listeners"
    await bindQueue(rabbit.broker.url, exchange, "q3")
    const logger = recordingLogger()
    const h = await rabbit.publishing(rabbit.broker.url, exchange, { logger })
    const { key, phone } = await h.seedTenant()
    await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "Hi" } })
    const [m] = await takeAtLeast(rabbit.broker.url, "q3", 1)
    expect(await h.services.ctx.store.findEvent(m!.messageId!)).not.toBeNull()
    const status = await h.services.brokerStatus!()
    expect(status).toMatchObject({ state: "connected", backlog: 0, lastError: null })
    expect(logger.lines.filter((l) => l.level === "warn")).toEqual([])
  })
})
