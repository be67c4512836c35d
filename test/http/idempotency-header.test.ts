import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { createHarness, expectErrorEnvelope, type Harness } from "../helpers/harness"

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

const countMessages = (accountId: string) =>
  (h.services.sqlite!.query("SELECT COUNT(*) AS n FROM messages WHERE account_id = ?").get(accountId) as { n: number }).n

const sendWith = (key: string, body: Record<string, unknown>, idempotencyHeader?: string) =>
  h.request("POST", "/v1/messages/send", { key, body, headers: idempotencyHeader === undefined ? {} : { "Idempotency-Key": idempotencyHeader } })

describe("the Idempotency-Key header", () => {
  test("a replay through the header returns 201, Idempotent-Replayed: true and the first message, creating nothing", async () => {
    const { account, key, phone } = await h.seedTenant()
    const body = { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "Order shipped" }
    const first = await sendWith(key, body, "order-1")
    expect(first.status).toBe(201)
    expect(first.headers.get("idempotent-replayed")).toBe("false")
    const replay = await sendWith(key, body, "order-1")
    expect(replay.status).toBe(201)
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
    expect(replay.body.data.id).toBe(first.body.data.id)
    expect(countMessages(account.id)).toBe(1)
  })

  test.each([
    ["header first, body field second", (k: string) => [{ header: k }, { field: k }]],
    ["body field first, header second", (k: string) => [{ field: k }, { header: k }]],
  ] as const)("the header and the body field are one key (%s)", async (_name, order) => {
    const { account, key, phone } = await h.seedTenant()
    const base = { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "x" }
    const ids: string[] = []
    for (const how of order("same-key")) {
      const res = "header" in how ? await sendWith(key, base, how.header) : await sendWith(key, { ...base, idempotencyKey: how.field })
      expect(res.status).toBe(201)
      ids.push(res.body.data.id)
    }
    expect(ids[1]).toBe(ids[0]!)
    expect(countMessages(account.id)).toBe(1)
  })

  test("a reused header key with different parameters is the same 400 as the body field's", async () => {
    const { account, key, phone } = await h.seedTenant()
    const body = { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "x" }
    await sendWith(key, body, "k1")
    const res = await sendWith(key, { ...body, content: "different" }, "k1")
    expect(expectErrorEnvelope(res, 400, "Bad Request")).toEqual(["idempotencyKey was already used with different parameters"])
    expect(countMessages(account.id)).toBe(1)
  })

  test("both present and equal is accepted", async () => {
    const { key, phone } = await h.seedTenant()
    const res = await sendWith(key, { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "x", idempotencyKey: "k2" }, "k2")
    expect(res.status).toBe(201)
  })

  test.each([
    ["a different string", "k3-other"],
    ["a number", 7],
    ["null", null],
  ] as const)("both present and different (%s in the body) is a 400 that creates nothing", async (_name, bodyValue) => {
    const { account, key, phone } = await h.seedTenant()
    const res = await sendWith(key, { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "x", idempotencyKey: bodyValue }, "k3")
    expect(expectErrorEnvelope(res, 400, "Bad Request", "/v1/messages/send")).toEqual(["Idempotency-Key header and idempotencyKey differ"])
    expect(countMessages(account.id)).toBe(0)
  })

  test.each([
    ["empty", ""],
    ["with a space", "has space"],
    ["65 characters", "k".repeat(65)],
    ["non-ASCII", "clé"],
  ])("an invalid header (%s) is a 400 with the body field's rule, naming the header", async (_name, value) => {
    const { key, phone } = await h.seedTenant()
    // Headers cannot carry every byte string; what fetch refuses to send cannot reach the server either.
    let headerValue = value
    if (!/^[\x00-\xff]*$/.test(value)) headerValue = Buffer.from(value, "utf8").toString("latin1")
    const res = await sendWith(key, { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "x" }, headerValue)
    expect(expectErrorEnvelope(res, 400, "Bad Request")).toEqual(["Idempotency-Key header must be 1–64 printable ASCII characters without spaces"])
  })

  test("an invalid header is reported beside the body's other problems", async () => {
    const { key, phone } = await h.seedTenant()
    const res = await sendWith(key, { fromPhoneId: phone.phoneNumber, to: "nope", content: "x" }, "")
    const messages = expectErrorEnvelope(res, 400, "Bad Request")
    expect(messages).toHaveLength(2)
    expect(messages).toContain("Idempotency-Key header must be 1–64 printable ASCII characters without spaces")
  })
})
