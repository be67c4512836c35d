import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { createHarness, expectErrorEnvelope, type Harness } from "../helpers/harness"

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

const countMessages = (accountId: string) =>
  (h.services.sqlite!.query("SELECT COUNT(*) AS n FROM messages WHERE account_id = ?").get(accountId) as { n: number }).n

describe("idempotencyKey", () => {
  test("a sequential replay returns 201, Idempotent-Replayed: true and the message's current data, creating nothing", async () => {
    const { account, key, phone } = await h.seedTenant()
    const body = { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "Order shipped", idempotencyKey: "order-1" }
    const first = await h.request("POST", "/v1/messages/send", { key, body })
    expect(first.status).toBe(201)
    expect(first.headers.get("idempotent-replayed")).toBe("false")
    await h.advance(5_000)
    const replay = await h.request("POST", "/v1/messages/send", { key, body })
    expect(replay.status).toBe(201)
    expect(replay.headers.get("idempotent-replayed")).toBe("true")
    expect(replay.body.data.id).toBe(first.body.data.id)
    // The sandbox moved the message on in the meantime; the replay shows where it is now.
    expect(replay.body.data.status).toBe("read")
    expect(countMessages(account.id)).toBe(1)
  })

  test("the phone may be named by id or number: both resolve to the same parameters", async () => {
    const { key, phone } = await h.seedTenant()
    const base = { to: "+14155550199", content: "x", idempotencyKey: "same" }
    const a = await h.request("POST", "/v1/messages/send", { key, body: { ...base, fromPhoneId: phone.phoneNumber } })
    const b = await h.request("POST", "/v1/messages/send", { key, body: { ...base, fromPhoneId: phone.id } })
    expect(b.status).toBe(201)
    expect(b.body.data.id).toBe(a.body.data.id)
  })

  test.each([
    ["to", { to: "+14155550100" }],
    ["content", { content: "different" }],
    ["mediaUrls", { mediaUrls: ["https://example.com/a.jpg"] }],
  ])("the same key with a different %s is 400 and creates nothing", async (_field, change) => {
    const { account, key, phone } = await h.seedTenant()
    const body = { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "x", idempotencyKey: "k1" }
    await h.request("POST", "/v1/messages/send", { key, body })
    const res = await h.request("POST", "/v1/messages/send", { key, body: { ...body, ...change } })
    expect(expectErrorEnvelope(res, 400, "Bad Request")).toEqual(["idempotencyKey was already used with different parameters"])
    expect(countMessages(account.id)).toBe(1)
  })

  test("a different sender phone with the same key is a mismatch", async () => {
    const { account, key, phone } = await h.seedTenant()
    const other = await h.seedPhone(account.id)
    const body = { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "x", idempotencyKey: "k1" }
    await h.request("POST", "/v1/messages/send", { key, body })
    const res = await h.request("POST", "/v1/messages/send", { key, body: { ...body, fromPhoneId: other.phoneNumber } })
    expectErrorEnvelope(res, 400, "Bad Request")
  })

  test("20 concurrent requests with one key create exactly one message and all get 201 with its id", async () => {
    const { account, key, phone } = await h.seedTenant()
    const body = { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "burst", idempotencyKey: "burst-1" }
    const results = await Promise.all(Array.from({ length: 20 }, () => h.request("POST", "/v1/messages/send", { key, body })))
    expect(results.map((r) => r.status)).toEqual(Array(20).fill(201))
    expect(new Set(results.map((r) => r.body.data.id)).size).toBe(1)
    expect(results.filter((r) => r.headers.get("idempotent-replayed") === "false")).toHaveLength(1)
    expect(countMessages(account.id)).toBe(1)
  })

  test("a request rejected with 4xx binds nothing: the corrected retry with the same key succeeds", async () => {
    const { key, phone } = await h.seedTenant()
    const bad = await h.request("POST", "/v1/messages/send", {
      key,
      body: { fromPhoneId: phone.phoneNumber, to: "oops", content: "x", idempotencyKey: "retry-me" },
    })
    expect(bad.status).toBe(400)
    const good = await h.request("POST", "/v1/messages/send", {
      key,
      body: { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "x", idempotencyKey: "retry-me" },
    })
    expect(good.status).toBe(201)
    expect(good.headers.get("idempotent-replayed")).toBe("false")
  })

  test("keys are scoped per account and environment", async () => {
    const a = await h.seedTenant()
    const b = await h.seedTenant()
    const body = (phone: string) => ({ fromPhoneId: phone, to: "+14155550199", content: "x", idempotencyKey: "shared" })
    const fromA = await h.request("POST", "/v1/messages/send", { key: a.key, body: body(a.phone.phoneNumber) })
    const fromB = await h.request("POST", "/v1/messages/send", { key: b.key, body: body(b.phone.phoneNumber) })
    expect(fromB.status).toBe(201)
    expect(fromB.headers.get("idempotent-replayed")).toBe("false")
    expect(fromB.body.data.id).not.toBe(fromA.body.data.id)

    // The same key in the live environment of account A is a different key: no replay of the test message.
    h.services.sqlite!.run("UPDATE phones SET connection_status = 'connected' WHERE id = ?", [a.phone.id])
    const live = await h.seedKey(a.account.id, { env: "live" })
    const liveRes = await h.request("POST", "/v1/messages/send", { key: live, body: body(a.phone.phoneNumber) })
    expect(liveRes.status).toBe(201)
    expect(liveRes.headers.get("idempotent-replayed")).toBe("false")
    expect(liveRes.body.data).toMatchObject({ environment: "live", status: "pending", sentAt: null })
    expect(liveRes.body.data.id).not.toBe(fromA.body.data.id)
  })
})

describe("idempotencyKey when another node wins the race", () => {
  /**
   * Two nodes on one PostgreSQL database can both look the key up, find nothing and insert; the
   * unique index makes the later insert throw IdempotencyKeyTaken. The store here hides the
   * first lookup once, which is what the losing node sees.
   */
  function hideFirstLookup(): void {
    const store = h.services.ctx.store
    let hidden = false
    const hide = <Q extends object>(q: Q): Q =>
      new Proxy(q, {
        get(target, prop, receiver) {
          const value = Reflect.get(target, prop, receiver)
          if (prop !== "findMessageByIdempotencyKey" || hidden) return value
          return async () => {
            hidden = true
            return null
          }
        },
      })
    h.services.ctx.store = hide({ ...store, write: (fn, options) => store.write((q, tx) => fn(hide(q), tx), options) })
  }

  test("the loser of the race replays the winner's message: 201, Idempotent-Replayed: true, nothing created", async () => {
    const { account, key, phone } = await h.seedTenant()
    const body = { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "Order shipped", idempotencyKey: "race-1" }
    const first = await h.request("POST", "/v1/messages/send", { key, body })
    expect(first.status).toBe(201)
    hideFirstLookup()
    const loser = await h.request("POST", "/v1/messages/send", { key, body })
    expect(loser.status).toBe(201)
    expect(loser.headers.get("idempotent-replayed")).toBe("true")
    expect(loser.body.data.id).toBe(first.body.data.id)
    expect(countMessages(account.id)).toBe(1)
  })

  test("the loser whose parameters differ gets the same 400 as a sequential mismatch", async () => {
    const { account, key, phone } = await h.seedTenant()
    const body = { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "Order shipped", idempotencyKey: "race-2" }
    expect((await h.request("POST", "/v1/messages/send", { key, body })).status).toBe(201)
    hideFirstLookup()
    const loser = await h.request("POST", "/v1/messages/send", { key, body: { ...body, content: "Something else" } })
    expectErrorEnvelope(loser, 400, "Bad Request")
    expect(countMessages(account.id)).toBe(1)
  })
})
