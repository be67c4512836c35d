import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { Envelope } from "../../src/http/models/common"
import { Message } from "../../src/http/models/messages"
import { createHarness, expectErrorEnvelope, expectSchema, type Harness } from "../helpers/harness"

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

const send = (key: string, body: unknown) => h.request("POST", "/v1/messages/send", { key, body })

describe("POST /v1/messages/send: success", () => {
  test("a test-key send returns 201 sent with every Message field, sentAt set", async () => {
    const { key, phone } = await h.seedTenant()
    const res = await send(key, { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "Hello" })
    expect(res.status).toBe(201)
    expectSchema(Envelope(Message), res.body)
    const m = res.body.data
    expect(m).toMatchObject({
      from: phone.phoneNumber,
      to: "+14155550199",
      isGroup: false,
      groupId: null,
      content: "Hello",
      mediaUrls: [],
      environment: "test",
      status: "sent",
      deliveredAt: null,
      readAt: null,
      failedAt: null,
      errorCode: null,
      errorMessage: null,
    })
    expect(m.id).toMatch(/^msg_[0-9a-z]{26}$/)
    expect(m.sentAt).toBe(m.createdAt)
    expect(m.createdAt).toBe(new Date(h.clock.nowMs()).toISOString())
    expect(res.headers.get("idempotent-replayed")).toBe("false")
  })

  test("fromPhoneId accepts the phone id as well as its E.164 number", async () => {
    const { key, phone } = await h.seedTenant()
    const res = await send(key, { fromPhoneId: phone.id, to: "+14155550199", content: "Hi" })
    expect(res.status).toBe(201)
    expect(res.body.data.from).toBe(phone.phoneNumber)
  })

  test("the send reads back delivered and then read at the configured delays", async () => {
    h = await createHarness({ env: { WAGATE_SANDBOX_DELIVERED_MS: "500", WAGATE_SANDBOX_READ_MS: "2000" } })
    const { key, phone } = await h.seedTenant()
    const { body } = await send(key, { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "Hi" })
    const id = body.data.id
    const get = async () => (await h.request("GET", `/v1/messages/${id}`, { key })).body.data

    await h.advance(499)
    expect((await get()).status).toBe("sent")
    await h.advance(1)
    const delivered = await get()
    expect(delivered.status).toBe("delivered")
    expect(delivered.deliveredAt).toBe(new Date(Date.parse(body.data.createdAt) + 500).toISOString())
    await h.advance(1499)
    expect((await get()).status).toBe("delivered")
    await h.advance(1)
    const read = await get()
    expect(read.status).toBe("read")
    expect(read.readAt).toBe(new Date(Date.parse(body.data.createdAt) + 2000).toISOString())
  })

  test("media with a caption is accepted and a test key never fetches the URL", async () => {
    const { key, phone } = await h.seedTenant()
    const res = await send(key, {
      fromPhoneId: phone.phoneNumber,
      to: "+14155550199",
      content: "Invoice",
      mediaUrls: ["https://files.example.com/invoice.pdf"],
    })
    expect(res.status).toBe(201)
    expect(res.body.data.mediaUrls).toEqual(["https://files.example.com/invoice.pdf"])
    expect(res.body.data.content).toBe("Invoice")
  })

  test("content counts Unicode code points: 4096 emoji are accepted, 4097 are not", async () => {
    const { key, phone } = await h.seedTenant()
    const ok = await send(key, { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "😀".repeat(4096) })
    expect(ok.status).toBe(201)
    const tooLong = await send(key, { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "😀".repeat(4097) })
    expect(expectErrorEnvelope(tooLong, 400, "Bad Request")).toEqual(["content must be at most 4096 characters"])
  })
})

describe("POST /v1/messages/send: validation (400)", () => {
  test.each([
    ["to is not E.164 nor a group JID", { to: "14155550199", content: "x" }, ["to must be an E.164 number (+ and 8–15 digits), a group JID or a …@lid JID"]],
    ["to is missing", { content: "x" }, ["to is required"]],
    ["content and mediaUrls both empty", { to: "+14155550199" }, ["content is required when mediaUrls is empty"]],
    ["content is whitespace only", { to: "+14155550199", content: "   " }, ["content is required when mediaUrls is empty"]],
    ["content has the wrong type", { to: "+14155550199", content: 5 }, ["content must be a string of at most 4096 characters"]],
    ["an unknown field", { to: "+14155550199", content: "x", priority: "high" }, ["priority is not a recognised field"]],
    ["environment in the body", { to: "+14155550199", content: "x", environment: "live" }, ["environment must not be sent: it is inferred from the API key"]],
    ["an http media URL", { to: "+14155550199", mediaUrls: ["http://example.com/a.jpg"] }, ["mediaUrls[0] must use https"]],
    ["a media URL with credentials", { to: "+14155550199", mediaUrls: ["https://u:p@example.com/a.jpg"] }, ["mediaUrls[0] must not contain credentials"]],
    ["a loopback media URL", { to: "+14155550199", mediaUrls: ["https://127.0.0.1/a.jpg"] }, ["mediaUrls[0] must point to a public address"]],
    ["a localhost media URL", { to: "+14155550199", mediaUrls: ["https://localhost/a.jpg"] }, ["mediaUrls[0] must point to a public host"]],
    ["a media URL on another port", { to: "+14155550199", mediaUrls: ["https://example.com:8443/a.jpg"] }, ["mediaUrls[0] must use the default HTTPS port"]],
    ["eleven media URLs", { to: "+14155550199", mediaUrls: Array(11).fill("https://example.com/a.jpg") }, ["mediaUrls must be an array of at most 10 URL strings"]],
    ["an idempotencyKey of 65 characters", { to: "+14155550199", content: "x", idempotencyKey: "k".repeat(65) }, ["idempotencyKey must be 1–64 printable ASCII characters without spaces"]],
    ["an idempotencyKey with a space", { to: "+14155550199", content: "x", idempotencyKey: "a b" }, ["idempotencyKey must be 1–64 printable ASCII characters without spaces"]],
  ])("%s", async (_name, partial, messages) => {
    const { key, phone } = await h.seedTenant()
    const res = await send(key, { fromPhoneId: phone.phoneNumber, ...(partial as object) })
    expect(expectErrorEnvelope(res, 400, "Bad Request", "/v1/messages/send")).toEqual(messages)
  })

  test("several problems give one message each, in field order", async () => {
    const { key } = await h.seedTenant()
    const res = await send(key, { to: "nope", content: 1, extra: true })
    expect(expectErrorEnvelope(res, 400, "Bad Request")).toEqual([
      "fromPhoneId is required",
      "to must be an E.164 number (+ and 8–15 digits), a group JID or a …@lid JID",
      "content must be a string of at most 4096 characters",
      "extra is not a recognised field",
    ])
  })

  test.each([
    ["malformed JSON", "{not json", "application/json", "Request body must be valid JSON"],
    ["a JSON array", "[1,2]", "application/json", "Request body must be a JSON object"],
    ["a form body", "to=%2B1", "application/x-www-form-urlencoded", "Content-Type must be application/json"],
    ["an empty body", "", "application/json", "Request body is required (a JSON object)"],
  ])("%s is a 400 with a readable message", async (_name, rawBody, contentType, message) => {
    const { key } = await h.seedTenant()
    const res = await h.request("POST", "/v1/messages/send", { key, rawBody, headers: { "content-type": contentType } })
    expect(expectErrorEnvelope(res, 400, "Bad Request")).toEqual([message])
  })

  test("validation messages stay readable with NODE_ENV=production", async () => {
    const previous = process.env.NODE_ENV
    process.env.NODE_ENV = "production"
    try {
      const { key, phone } = await h.seedTenant()
      const res = await send(key, { fromPhoneId: phone.phoneNumber, to: "bad" })
      expect(expectErrorEnvelope(res, 400, "Bad Request")).toContain("to must be an E.164 number (+ and 8–15 digits), a group JID or a …@lid JID")
    } finally {
      process.env.NODE_ENV = previous
    }
  })

  test("a body over 64 KiB is refused with 413 and the envelope", async () => {
    const { key, phone } = await h.seedTenant()
    const res = await send(key, { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "x".repeat(70 * 1024) })
    expectErrorEnvelope(res, 413, "Payload Too Large")
  })

  test("a chunked body over 64 KiB without Content-Length is refused with 413", async () => {
    const { key } = await h.seedTenant()
    const chunk = new TextEncoder().encode("x".repeat(16 * 1024))
    let sent = 0
    const stream = new ReadableStream({
      pull(controller) {
        if (sent++ < 6) controller.enqueue(chunk)
        else controller.close()
      },
    })
    const res = await h.app.handle(
      new Request("http://localhost/v1/messages/send", {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: stream,
      }),
    )
    expect(res.status).toBe(413)
  })
})

describe("POST /v1/messages/send: not found and live keys", () => {
  test("404 for a fromPhoneId of another account", async () => {
    const a = await h.seedTenant()
    const b = await h.seedTenant()
    const res = await send(a.key, { fromPhoneId: b.phone.phoneNumber, to: "+14155550199", content: "x" })
    expect(expectErrorEnvelope(res, 404, "Not Found")).toEqual([`Phone number ${b.phone.phoneNumber} not found`])
  })

  test("a live key with an unpaired phone gets 400 phone not connected", async () => {
    const { phone, account } = await h.seedTenant()
    const live = await h.seedKey(account.id, { env: "live" })
    const res = await send(live, { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "x" })
    expect(expectErrorEnvelope(res, 400, "Bad Request")).toEqual([`Phone ${phone.phoneNumber} is not connected (status: unpaired)`])
  })

  test("a live key on an inactive subscription gets 403 before anything else", async () => {
    const account = await h.seedAccount({ subscriptionStatus: "inactive" })
    const live = await h.seedKey(account.id, { env: "live" })
    const res = await send(live, { nonsense: true })
    expect(expectErrorEnvelope(res, 403, "Forbidden")).toEqual([
      "Live keys require an active subscription; this account's subscription is inactive",
    ])
  })

  test("a test key keeps working on an inactive subscription", async () => {
    const account = await h.seedAccount({ subscriptionStatus: "inactive" })
    const phone = await h.seedPhone(account.id)
    const key = await h.seedKey(account.id)
    const res = await send(key, { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "x" })
    expect(res.status).toBe(201)
  })
})
