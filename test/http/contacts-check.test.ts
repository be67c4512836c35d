import { afterEach, describe, expect, test } from "bun:test"
import { createHarness, expectErrorEnvelope, type Harness } from "../helpers/harness"

/* POST /v1/contacts/check (docs/api.md § "Check numbers: POST /v1/contacts/check"): success, errors, security. */

let h: Harness
afterEach(() => h.close())

const check = (key: string, body: unknown) => h.request("POST", "/v1/contacts/check", { key, body })

describe("contacts check: success", () => {
  test("test keys answer from the magic recipients, one answer per distinct number in the order given", async () => {
    h = await createHarness()
    const { key, phone } = await h.seedTenant()
    const res = await check(key, { fromPhoneId: phone.phoneNumber, numbers: ["+14155550199", "+12025550101", "+14155550199"] })
    expect(res.status).toBe(200)
    expect(res.body.data).toEqual([
      { number: "+14155550199", onWhatsApp: true, jid: "14155550199@s.whatsapp.net" },
      { number: "+12025550101", onWhatsApp: false, jid: null },
    ])
  })

  test("live keys ask WhatsApp once, in bulk, and only for numbers the 24-hour cache cannot answer", async () => {
    h = await createHarness()
    const { key, phone } = await h.seedTenant({ env: "live" })
    await h.connectPhone(phone)
    h.gateway.numbers.set("+14155550100", null)
    const first = await check(key, { fromPhoneId: phone.id, numbers: ["+14155550199", "+14155550100"] })
    expect(first.body.data).toEqual([
      { number: "+14155550199", onWhatsApp: true, jid: "14155550199@s.whatsapp.net" },
      { number: "+14155550100", onWhatsApp: false, jid: null },
    ])
    const second = await check(key, { fromPhoneId: phone.phoneNumber, numbers: ["+14155550100", "+14155550177"] })
    expect(second.body.data.map((a: { onWhatsApp: boolean }) => a.onWhatsApp)).toEqual([false, true])
    expect(h.gateway.numberChecks).toEqual([["+14155550199", "+14155550100"], ["+14155550177"]])
  })

  test("a live check fills the cache a send to that number then uses: the send asks WhatsApp nothing", async () => {
    h = await createHarness()
    const { key, phone } = await h.seedTenant({ env: "live" })
    await h.connectPhone(phone)
    await check(key, { fromPhoneId: phone.id, numbers: ["+14155550199"] })
    await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.id, to: "+14155550199", content: "hi" } })
    await h.settle()
    expect(h.gateway.sentBy(phone.id)).toHaveLength(1)
    expect(h.gateway.numberChecks).toEqual([["+14155550199"]])
  })
})

describe("contacts check: the hourly budget per phone", () => {
  test("past the budget: 429 with retryAfter and Retry-After; cached numbers stay free; the budget refills with time", async () => {
    h = await createHarness({ env: { WAGATE_CHECKS_PER_PHONE_PER_HOUR: "3" } })
    const { key, phone } = await h.seedTenant()
    expect((await check(key, { fromPhoneId: phone.id, numbers: ["+14155550101", "+14155550102"] })).status).toBe(200)
    const over = await check(key, { fromPhoneId: phone.id, numbers: ["+14155550103", "+14155550104"] })
    expect(expectErrorEnvelope(over, 429, "Rate limit exceeded")).toEqual([`Phone ${phone.phoneNumber} has used its 3 lookups (number checks and profiles) for this hour; retry after 1200 s`])
    expect(over.body.retryAfter).toBe(1200)
    expect(over.headers.get("retry-after")).toBe("1200")
    // Answered from the cache: costs nothing, so it passes with an empty budget.
    expect((await check(key, { fromPhoneId: phone.id, numbers: ["+14155550101", "+14155550102"] })).status).toBe(200)
    await h.advance(1_200_000)
    expect((await check(key, { fromPhoneId: phone.id, numbers: ["+14155550103", "+14155550104"] })).status).toBe(200)
  })

  test("each phone has a budget of its own", async () => {
    h = await createHarness({ env: { WAGATE_CHECKS_PER_PHONE_PER_HOUR: "1" } })
    const { account, key, phone } = await h.seedTenant()
    const other = await h.seedPhone(account.id)
    expect((await check(key, { fromPhoneId: phone.id, numbers: ["+14155550101"] })).status).toBe(200)
    expect((await check(key, { fromPhoneId: phone.id, numbers: ["+14155550102"] })).status).toBe(429)
    expect((await check(key, { fromPhoneId: other.id, numbers: ["+14155550102"] })).status).toBe(200)
  })

  test("a request with more distinct numbers than the whole hourly budget is a 400, not a 429 that could never pass", async () => {
    h = await createHarness({ env: { WAGATE_CHECKS_PER_PHONE_PER_HOUR: "2" } })
    const { key, phone } = await h.seedTenant()
    const res = await check(key, { fromPhoneId: phone.id, numbers: ["+14155550101", "+14155550102", "+14155550103"] })
    expect(expectErrorEnvelope(res, 400, "Bad Request")).toEqual(["numbers must list at most 2 distinct numbers: each phone checks at most that many an hour"])
  })
})

describe("contacts check: errors", () => {
  test.each([
    { name: "no numbers", body: { numbers: [] }, message: "numbers must be an array of 1 to 50 E.164 numbers (+ and 8–15 digits)" },
    { name: "51 numbers", body: { numbers: Array.from({ length: 51 }, (_, i) => `+1415555${String(1000 + i)}`) }, message: "numbers must be an array of 1 to 50 E.164 numbers (+ and 8–15 digits)" },
    { name: "a number without +, named by its place and value", body: { numbers: ["+14155550198", "14155550199"] }, message: 'numbers[1] is not an E.164 number (+ and 8–15 digits): "14155550199"' },
    { name: "a number that is not text", body: { numbers: [14155550199] }, message: "numbers[0] is not an E.164 number (+ and 8–15 digits): 14155550199" },
    {
      name: "a long value with control characters, escaped and cut short",
      body: { numbers: ["+1\u0007" + "9".repeat(100)] },
      message: `numbers[0] is not an E.164 number (+ and 8–15 digits): "+1\\u0007${"9".repeat(30)}…`,
    },
    { name: "numbers missing", body: {}, message: "numbers is required" },
  ])("$name: 400 with one readable message", async ({ body, message }) => {
    h = await createHarness()
    const { key, phone } = await h.seedTenant()
    expect(expectErrorEnvelope(await check(key, { fromPhoneId: phone.id, ...body }), 400, "Bad Request")).toEqual([message])
  })

  test("a live phone that is not connected: 400 that says its status", async () => {
    h = await createHarness()
    const { key, phone } = await h.seedTenant({ env: "live" })
    const res = await check(key, { fromPhoneId: phone.id, numbers: ["+14155550199"] })
    expect(expectErrorEnvelope(res, 400, "Bad Request")[0]).toMatch(/^Phone \+\d+ is not connected \(status: \w+\)$/)
  })

  test("WhatsApp not answering: 502, and the next request asks again", async () => {
    h = await createHarness()
    const { key, phone } = await h.seedTenant({ env: "live" })
    await h.connectPhone(phone)
    h.gateway.numbersError = new Error("usync timed out")
    expectErrorEnvelope(await check(key, { fromPhoneId: phone.id, numbers: ["+14155550199"] }), 502, "Bad Gateway")
    h.gateway.numbersError = null
    expect((await check(key, { fromPhoneId: phone.id, numbers: ["+14155550199"] })).status).toBe(200)
  })
})

describe("contacts check: security", () => {
  test("another account's phone is a 404, as if it did not exist", async () => {
    h = await createHarness()
    const mine = await h.seedTenant()
    const theirs = await h.seedTenant()
    const res = await check(mine.key, { fromPhoneId: theirs.phone.phoneNumber, numbers: ["+14155550199"] })
    expectErrorEnvelope(res, 404, "Not Found")
  })

  test("environment in the body is refused: the key decides it", async () => {
    h = await createHarness()
    const { key, phone } = await h.seedTenant()
    const res = await check(key, { fromPhoneId: phone.id, numbers: ["+14155550199"], environment: "live" })
    expectErrorEnvelope(res, 400, "Bad Request")
  })
})
