import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import Stripe from "stripe"
import { WEBHOOK_MAX_IN_FLIGHT, WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT } from "../../src/deps"
import { createHarness, type Harness } from "../helpers/harness"
import { signatureTimestamp, verifySignature } from "../helpers/verify-signature"
import { WebhookReceiver, waitUntil } from "../helpers/webhook-receiver"
import { addEndpoint, deliveryRows, waitForAttempts } from "../helpers/webhooks"

let h: Harness
let receiver: WebhookReceiver
beforeEach(async () => {
  h = await createHarness()
  receiver = new WebhookReceiver()
})
afterEach(async () => {
  await h.close()
  await receiver.stop()
})

const nowSeconds = () => Math.floor(h.clock.nowMs() / 1000)
const stripe = new Stripe("sk_test_unused", { apiVersion: "2025-01-27.acacia" as never })

async function sendSandbox(key: string, from: string, to = "+14155550199") {
  const res = await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: from, to, content: "hello" } })
  return res.body.data
}

describe("sandbox sends fire signed events", () => {
  test("message.sent, message.delivered and message.read arrive in that order with exactly the spec's data, each signature valid", async () => {
    const { account, key, phone } = await h.seedTenant()
    const { secret } = await addEndpoint(h, account.id, receiver.url())
    const message = await sendSandbox(key, phone.phoneNumber)

    await h.advance(10)
    await receiver.waitFor(1)
    await h.advance(1_000)
    await receiver.waitFor(2)
    await h.advance(2_000)
    const hooks = await receiver.waitFor(3)

    expect(hooks.map((r) => r.json.event)).toEqual(["message.sent", "message.delivered", "message.read"])
    const createdMs = Date.parse(message.createdAt)
    for (const [i, hook] of hooks.entries()) {
      expect(Object.keys(hook.json)).toEqual(["event", "timestamp", "data"])
      expect(Object.keys(hook.json.data).sort()).toEqual(
        ["messageId", "from", "to", "isGroup", "groupId", "status", "sentAt", "deliveredAt", "readAt", "failedAt", "errorCode", "errorMessage"].sort(),
      )
      expect(hook.headers["content-type"]).toBe("application/json")
      expect(hook.headers["x-service-event"]).toBe(hook.json.event)
      expect(hook.headers["x-service-event-id"]).toMatch(/^evt_[0-9a-z]{26}$/)
      expect(hook.headers["x-service-delivery-attempt"]).toBe("1")
      expect(verifySignature(hook.headers["x-service-signature"]!, hook.body, secret, nowSeconds())).toBe(true)
      expect(hook.json.timestamp).toBe(new Date(createdMs + [0, 1_000, 3_000][i]!).toISOString())
    }
    expect(hooks[0]!.json.data).toEqual({
      messageId: message.id,
      from: phone.phoneNumber,
      to: "+14155550199",
      isGroup: false,
      groupId: null,
      status: "sent",
      sentAt: message.sentAt,
      deliveredAt: null,
      readAt: null,
      failedAt: null,
      errorCode: null,
      errorMessage: null,
    })
    expect(hooks[2]!.json.data).toMatchObject({ status: "read", deliveredAt: new Date(createdMs + 1_000).toISOString(), readAt: new Date(createdMs + 3_000).toISOString() })
  })

  test("Stripe's own webhook verifier accepts the signature", async () => {
    const { account, key, phone } = await h.seedTenant()
    const { secret } = await addEndpoint(h, account.id, receiver.url())
    await sendSandbox(key, phone.phoneNumber)
    await h.advance(10)
    const [hook] = await receiver.waitFor(1)
    // Stripe checks the age against the real time; our test clock is in the past, so the tolerance is opened wide.
    const ageSeconds = Math.ceil(Date.now() / 1000) - signatureTimestamp(hook!.headers["x-service-signature"]!)
    await expect(
      stripe.webhooks.signature!.verifyHeaderAsync(hook!.body, hook!.headers["x-service-signature"]!, secret, ageSeconds + 60),
    ).resolves.toBe(true)
    await expect(stripe.webhooks.signature!.verifyHeaderAsync(hook!.body, hook!.headers["x-service-signature"]!, "whsec_wrong", ageSeconds + 60)).rejects.toThrow()
  })

  test("a born-failed send fires message.failed with its error", async () => {
    const { account, key, phone } = await h.seedTenant()
    await addEndpoint(h, account.id, receiver.url())
    await sendSandbox(key, phone.phoneNumber, "+12025550101")
    await h.advance(10)
    const [hook] = await receiver.waitFor(1)
    expect(hook!.json.event).toBe("message.failed")
    expect(hook!.json.data).toMatchObject({ status: "failed", errorCode: "recipient_not_on_whatsapp", sentAt: null })
  })

  test("an idempotent replay fires no second event", async () => {
    const { account, key, phone } = await h.seedTenant()
    const { id } = await addEndpoint(h, account.id, receiver.url(), { events: ["message.sent"] })
    const body = { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "x", idempotencyKey: "once" }
    await h.request("POST", "/v1/messages/send", { key, body })
    await h.request("POST", "/v1/messages/send", { key, body })
    expect(deliveryRows(h, id)).toHaveLength(1)
  })

  test("only subscribed, enabled endpoints of the key's environment get deliveries", async () => {
    const { account, key, phone } = await h.seedTenant()
    const onlyRead = await addEndpoint(h, account.id, receiver.url("/read"), { events: ["message.read"] })
    const live = await addEndpoint(h, account.id, receiver.url("/live"), { environment: "live" })
    const disabled = await addEndpoint(h, account.id, receiver.url("/off"))
    await h.request("PATCH", `/admin/v1/webhooks/${disabled.id}`, { key: await h.adminToken(), body: { enabled: false } })
    const other = await h.seedTenant()
    const otherEndpoint = await addEndpoint(h, other.account.id, receiver.url("/other"))
    await sendSandbox(key, phone.phoneNumber)
    await h.advance(5_000)
    expect(deliveryRows(h, onlyRead.id).map((d) => d.type)).toEqual(["message.read"])
    expect(deliveryRows(h, live.id)).toEqual([])
    expect(deliveryRows(h, disabled.id)).toEqual([])
    expect(deliveryRows(h, otherEndpoint.id)).toEqual([])
  })
})

describe("retries", () => {
  test("500, 500, 200 gives exactly three attempts at T0, T0+1 min and T0+5 min, fresh t, same event id, each signature valid", async () => {
    const { account, key, phone } = await h.seedTenant()
    const { id, secret } = await addEndpoint(h, account.id, receiver.url(), { events: ["message.sent"] })
    receiver.respondWith({ status: 500 }, { status: 500 }, { status: 200 })
    // A new event's first attempt (T0) is made at once.
    const t0 = h.clock.nowMs()
    await sendSandbox(key, phone.phoneNumber)
    await receiver.waitFor(1)
    const [delivery] = deliveryRows(h, id)
    await waitForAttempts(h, delivery!.id, 1)

    await h.advance(59_999)
    expect(receiver.received).toHaveLength(1)
    await h.advance(1)
    await receiver.waitFor(2)
    await waitForAttempts(h, delivery!.id, 2)
    await h.advance(300_000 - 60_000 - 1)
    expect(receiver.received).toHaveLength(2)
    await h.advance(1)
    const hooks = await receiver.waitFor(3)
    await waitForAttempts(h, delivery!.id, 3)
    await h.advance(3_600_000)
    expect(receiver.received).toHaveLength(3)

    const ts = hooks.map((r) => signatureTimestamp(r.headers["x-service-signature"]!))
    expect(ts).toEqual([Math.floor(t0 / 1000), Math.floor((t0 + 60_000) / 1000), Math.floor((t0 + 300_000) / 1000)])
    expect(new Set(hooks.map((r) => r.headers["x-service-event-id"])).size).toBe(1)
    expect(hooks.map((r) => r.headers["x-service-delivery-attempt"])).toEqual(["1", "2", "3"])
    expect(new Set(hooks.map((r) => r.body)).size).toBe(1)
    hooks.forEach((r, i) => expect(verifySignature(r.headers["x-service-signature"]!, r.body, secret, ts[i]!)).toBe(true))
    // A receiver enforcing the 300 s tolerance accepts the 5-minute retry only because it was signed afresh.
    expect(verifySignature(hooks[2]!.headers["x-service-signature"]!, hooks[2]!.body, secret, ts[0]! + 300 + 1)).toBe(true)
    expect(deliveryRows(h, id)[0]).toMatchObject({ status: "succeeded", attemptCount: 3, nextAttemptAtMs: null })
  })

  test("after the last failed retry the delivery is failed, and a resend delivers it again", async () => {
    const { account, key, phone } = await h.seedTenant()
    const { id } = await addEndpoint(h, account.id, receiver.url(), { events: ["message.sent"] })
    receiver.fallback = { status: 503 }
    await sendSandbox(key, phone.phoneNumber)
    await h.advance(10)
    const [delivery] = deliveryRows(h, id)
    for (const [n, step] of [[1, 0], [2, 60_000], [3, 240_000], [4, 600_000]] as const) {
      await h.advance(step)
      await waitForAttempts(h, delivery!.id, n)
    }
    expect(deliveryRows(h, id)[0]).toMatchObject({ status: "failed", attemptCount: 4, nextAttemptAtMs: null, lastError: "HTTP 503" })

    receiver.fallback = { status: 200 }
    const admin = await h.adminToken()
    const resent = await h.request("POST", `/admin/v1/deliveries/${delivery!.id}/resend`, { key: admin })
    expect(resent.status).toBe(201)
    expect(resent.body.data).toMatchObject({ status: "pending", resentFrom: delivery!.id, event: "message.sent", attemptCount: 0 })
    await h.advance(10)
    await waitForAttempts(h, resent.body.data.id, 1)
    expect(receiver.received).toHaveLength(5)
    expect(receiver.received[4]!.headers["x-service-event-id"]).toBe(receiver.received[0]!.headers["x-service-event-id"]!)
    const list = await h.request("GET", `/admin/v1/webhooks/${id}/deliveries?status=failed`, { key: admin })
    expect(list.body.data.pagination.total).toBe(1)
    expect(list.body.data.data[0].attempts.map((a: { statusCode: number }) => a.statusCode)).toEqual([503, 503, 503, 503])
  })

  test("a 3xx is not followed and counts as a failure", async () => {
    const { account, key, phone } = await h.seedTenant()
    const { id } = await addEndpoint(h, account.id, receiver.url(), { events: ["message.sent"] })
    receiver.respondWith({ status: 302, headers: { location: receiver.url("/elsewhere") } })
    await sendSandbox(key, phone.phoneNumber)
    await h.advance(10)
    const [delivery] = deliveryRows(h, id)
    await waitForAttempts(h, delivery!.id, 1)
    expect(receiver.received.map((r) => r.json?.event)).toEqual(["message.sent"])
    const row = deliveryRows(h, id)[0]!
    expect(row).toMatchObject({ status: "pending", attemptCount: 1 })
    expect(row.lastError).toBe(`redirect to ${receiver.url("/elsewhere")} not followed`)
  })

  test("a hanging receiver is cut at the 15 s deadline and retried", async () => {
    const { account, key, phone } = await h.seedTenant()
    const { id } = await addEndpoint(h, account.id, receiver.url(), { events: ["message.sent"] })
    receiver.respondWith({ hang: true })
    // A new event is attempted at once, so the deadline counts from the send.
    await sendSandbox(key, phone.phoneNumber)
    await receiver.waitFor(1)
    const [delivery] = deliveryRows(h, id)
    await h.advance(14_999)
    expect(deliveryRows(h, id)[0]!.attemptCount).toBe(0)
    await h.advance(1)
    await waitForAttempts(h, delivery!.id, 1)
    expect(deliveryRows(h, id)[0]).toMatchObject({ status: "pending", lastError: "timed out after 15000 ms" })
    const attempts = (await h.request("GET", `/admin/v1/webhooks/${id}/deliveries`, { key: await h.adminToken() })).body.data.data[0].attempts
    expect(attempts[0]).toMatchObject({ statusCode: null, error: "timed out after 15000 ms", latencyMs: 15_000 })
  })

  test("410 Gone stops the delivery: no more attempts", async () => {
    const { account, key, phone } = await h.seedTenant()
    const { id } = await addEndpoint(h, account.id, receiver.url(), { events: ["message.sent"] })
    receiver.respondWith({ status: 410 })
    await sendSandbox(key, phone.phoneNumber)
    await h.advance(10)
    const [delivery] = deliveryRows(h, id)
    await waitForAttempts(h, delivery!.id, 1)
    await h.advance(3_600_000)
    expect(receiver.received).toHaveLength(1)
    expect(deliveryRows(h, id)[0]).toMatchObject({ status: "failed", attemptCount: 1, nextAttemptAtMs: null })
  })

  test("a receiver that refuses connections is retried on schedule", async () => {
    const { account, key, phone } = await h.seedTenant()
    await receiver.stop()
    const { id } = await addEndpoint(h, account.id, receiver.url(), { events: ["message.sent"] })
    await sendSandbox(key, phone.phoneNumber)
    await h.advance(10)
    const [delivery] = deliveryRows(h, id)
    await waitForAttempts(h, delivery!.id, 1)
    const row = deliveryRows(h, id)[0]!
    expect(row.status).toBe("pending")
    expect(row.lastError).toBe("connection refused")
    receiver = new WebhookReceiver()
  })
})

describe("secret rotation", () => {
  test("for 24 h after a rotation both secrets sign (two v1 values); then only the new one", async () => {
    const { account, key, phone } = await h.seedTenant()
    const { id, secret: oldSecret } = await addEndpoint(h, account.id, receiver.url(), { events: ["message.sent"] })
    const rotated = await h.request("POST", `/admin/v1/webhooks/${id}/rotate-secret`, { key: await h.adminToken() })
    const newSecret = rotated.body.data.secret
    expect(newSecret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(newSecret).not.toBe(oldSecret)

    await sendSandbox(key, phone.phoneNumber)
    await h.advance(10)
    const [during] = await receiver.waitFor(1)
    const header = during!.headers["x-service-signature"]!
    expect(header.match(/v1=/g)).toHaveLength(2)
    expect(verifySignature(header, during!.body, oldSecret, nowSeconds())).toBe(true)
    expect(verifySignature(header, during!.body, newSecret, nowSeconds())).toBe(true)

    await h.advance(24 * 3_600_000)
    await sendSandbox(key, phone.phoneNumber)
    await h.advance(10)
    const after = (await receiver.waitFor(2))[1]!
    const afterHeader = after.headers["x-service-signature"]!
    expect(afterHeader.match(/v1=/g)).toHaveLength(1)
    expect(verifySignature(afterHeader, after.body, newSecret, nowSeconds())).toBe(true)
    expect(verifySignature(afterHeader, after.body, oldSecret, nowSeconds())).toBe(false)
  })
})

describe("isolation between endpoints", () => {
  test("a slow endpoint (10 s per request, many queued) does not delay deliveries to another endpoint", async () => {
    const { account, key, phone } = await h.seedTenant()
    const slow = new WebhookReceiver()
    slow.fallback = { delayMs: 10_000, status: 200 }
    try {
      await addEndpoint(h, account.id, slow.url(), { events: ["message.sent"] })
      // More sends than the slow endpoint has slots, so its queue backs up.
      for (let i = 0; i < WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT + 8; i++) await sendSandbox(key, phone.phoneNumber, `+1415555${String(2000 + i)}`)
      await h.advance(10)
      await slow.waitFor(WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT)
      const fast = await addEndpoint(h, account.id, receiver.url(), { events: ["message.sent"] })
      const startedMs = performance.now()
      await sendSandbox(key, phone.phoneNumber)
      await h.advance(10)
      await receiver.waitFor(1, 2_000)
      expect(performance.now() - startedMs).toBeLessThan(2_000)
      expect(deliveryRows(h, fast.id)).toHaveLength(1)
      await waitUntil(() => deliveryRows(h, fast.id)[0]!.status === "succeeded", 2_000, "the fast delivery to be recorded")
    } finally {
      await slow.stop()
    }
  })

  test("a slow endpoint's backlog larger than all the node's attempt slots does not delay deliveries to another endpoint", async () => {
    // More sends than the default rate limit lets through in a minute.
    const account = await h.seedAccount({ rateLimitPerMinute: 1_000 })
    const phone = await h.seedPhone(account.id)
    const key = await h.seedKey(account.id)
    const slow = new WebhookReceiver()
    slow.fallback = { delayMs: 10_000, status: 200 }
    try {
      await addEndpoint(h, account.id, slow.url(), { events: ["message.sent"] })
      // Due before the fast endpoint's delivery, and more than every slot of the node: claims
      // taken earliest first, without passing over the slow endpoint, would give it every slot.
      for (let i = 0; i < WEBHOOK_MAX_IN_FLIGHT + 44; i++) await sendSandbox(key, phone.phoneNumber, `+1415556${String(2000 + i)}`)
      await h.advance(10)
      await slow.waitFor(WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT)
      const fast = await addEndpoint(h, account.id, receiver.url(), { events: ["message.sent"] })
      await sendSandbox(key, phone.phoneNumber)
      await h.advance(10)
      await receiver.waitFor(1, 2_000)
      expect(slow.received).toHaveLength(WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT)
      expect(deliveryRows(h, fast.id)).toHaveLength(1)
    } finally {
      await slow.stop()
    }
  })
})
