import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { createHarness, expectErrorEnvelope, type Harness } from "../helpers/harness"
import { isMethodGuard } from "../../src/http/allowed-methods"

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

const ENVIRONMENT_MESSAGE = "environment must not be sent: it is inferred from the API key"
const BUILT_IN_NAMES = ["__proto__", "constructor", "hasOwnProperty", "toString", "valueOf"] as const

/** Every /v1 route the application registers, with a concrete path (parameters filled in). */
function v1Routes(): { method: string; path: string }[] {
  return h.app.routes
    // The method guards only refuse methods (see shadowedPathGuard): they are not routes of the API.
    .filter((r) => r.path.startsWith("/v1/") && !isMethodGuard(r))
    .map((r) => ({ method: r.method, path: r.path.replace(/:(\w+)/g, (_m, name: string) => `${name}_x`) }))
}

describe("environment in the query string", () => {
  test("the route table has the fifty-four /v1 routes (the table below covers each)", () => {
    expect(v1Routes()).toHaveLength(54)
  })

  test.each(["?environment=test", "?environment=live", "?limit=5&environment=", "?%65nvironment=test"])(
    "is a 400 on every /v1 route, POST included (%s)",
    async (query) => {
      const { key, phone } = await h.seedTenant()
      for (const route of v1Routes()) {
        const body = route.method === "POST" ? { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "x" } : undefined
        const res = await h.request(route.method, `${route.path}${query}`, { key, body })
        expect({ route, messages: expectErrorEnvelope(res, 400, "Bad Request", route.path) }).toEqual({ route, messages: [ENVIRONMENT_MESSAGE] })
      }
    },
  )

  test("is checked after authentication, rate limiting and scopes: 401, then 403 come first", async () => {
    const account = await h.seedAccount()
    // Each key lacks the scopes of the routes it is used on.
    const accountOnly = await h.seedKey(account.id, { scopes: ["account:read"] })
    const groupsOnly = await h.seedKey(account.id, { scopes: ["groups:read"] })
    for (const [i, route] of v1Routes().entries()) {
      // Failed authentications are throttled per client address (30 a minute): a minute passes every 25 routes.
      if (i > 0 && i % 25 === 0) await h.advance(60_000)
      const key = route.path.startsWith("/v1/account") ? groupsOnly : accountOnly
      const unauthenticated = await h.request(route.method, `${route.path}?environment=test`)
      const forbidden = await h.request(route.method, `${route.path}?environment=test`, { key })
      expect({ route, statuses: [unauthenticated.status, forbidden.status] }).toEqual({ route, statuses: [401, 403] })
    }
  })

  test("a 429 comes before it", async () => {
    const account = await h.seedAccount({ rateLimitPerMinute: 1 })
    const key = await h.seedKey(account.id)
    expect((await h.request("GET", "/v1/account", { key })).status).toBe(200)
    expect((await h.request("GET", "/v1/account?environment=test", { key })).status).toBe(429)
  })

  test("a parameter merely containing the word is not refused", async () => {
    const { key } = await h.seedTenant()
    const res = await h.request("GET", "/v1/messages?status=sent&limit=5", { key, headers: { "x-environment": "test" } })
    expect(res.status).toBe(200)
  })
})

describe("fields named like built-in object members", () => {
  test.each(BUILT_IN_NAMES)("a body field %s on POST /v1/messages/send is a readable 400", async (name) => {
    const { key, phone } = await h.seedTenant()
    const rawBody = `{"fromPhoneId":"${phone.phoneNumber}","to":"+14155550199","content":"x","${name}":{"a":1}}`
    const res = await h.request("POST", "/v1/messages/send", { key, rawBody, headers: { "content-type": "application/json" } })
    expect(expectErrorEnvelope(res, 400, "Bad Request", "/v1/messages/send")).toEqual([`${name} is not a recognised field`])
  })

  test.each(BUILT_IN_NAMES)("a query parameter %s on every list route is a readable 400", async (name) => {
    const { key } = await h.seedTenant()
    const { phone } = await h.seedTenant()
    for (const [path, required] of [
      ["/v1/messages", ""],
      ["/v1/messages/inbound", ""],
      ["/v1/groups", `fromPhoneId=${phone.id}&`],
      ["/v1/account/usage", ""],
    ] as const) {
      const res = await h.request("GET", `${path}?${required}${name}=1`, { key })
      expect({ path, messages: expectErrorEnvelope(res, 400, "Bad Request", path) }).toEqual({ path, messages: [`${name} is not a recognised field`] })
    }
  })

  test.each(BUILT_IN_NAMES)("an admin body field %s is a readable 400 on every admin body", async (name) => {
    const admin = await h.adminToken()
    const account = await h.seedAccount()
    const bodies: [string, string, string][] = [
      ["POST", "/admin/v1/accounts", `{"name":"A","email":"a@example.com","${name}":1}`],
      ["PATCH", `/admin/v1/accounts/${account.id}`, `{"name":"A","${name}":1}`],
      ["POST", `/admin/v1/accounts/${account.id}/keys`, `{"environment":"test","scopes":["account:read"],"${name}":1}`],
      ["POST", `/admin/v1/accounts/${account.id}/phones`, `{"phoneNumber":"+14155550123","${name}":1}`],
      ["POST", `/admin/v1/accounts/${account.id}/webhooks`, `{"url":"https://example.com/h","environment":"test","events":["message.sent"],"${name}":1}`],
    ]
    for (const [method, path, rawBody] of bodies) {
      const res = await h.request(method, path, { key: admin, rawBody, headers: { "content-type": "application/json" } })
      const messages = expectErrorEnvelope(res, 400, "Bad Request", path)
      expect({ path, messages }).toEqual({ path, messages: [`${name} is not a recognised field`] })
    }
  })

  test("a known field beside a built-in name still gets its own message, in field order", async () => {
    const { key, phone } = await h.seedTenant()
    const rawBody = `{"fromPhoneId":"${phone.phoneNumber}","to":"nope","content":"x","constructor":"y"}`
    const res = await h.request("POST", "/v1/messages/send", { key, rawBody, headers: { "content-type": "application/json" } })
    const messages = expectErrorEnvelope(res, 400, "Bad Request")
    expect(messages).toHaveLength(2)
    expect(messages[0]).toStartWith("to ")
    expect(messages[1]).toBe("constructor is not a recognised field")
  })
})

describe("an unencoded + in a phone query parameter", () => {
  test.each([
    ["/v1/messages", "phoneNumberId"],
    ["/v1/messages/inbound", "phoneNumberId"],
    ["/v1/groups", "fromPhoneId"],
  ])("GET %s?%s=+1415… is a 400 that says to encode + as %%2B", async (path, name) => {
    const { key } = await h.seedTenant()
    const res = await h.request("GET", `${path}?${name}=+14155550123`, { key })
    expect(expectErrorEnvelope(res, 400, "Bad Request", path)).toEqual([`${name}: a + in a query string must be sent encoded as %2B (it arrived as a space)`])
  })

  test("the encoded number is accepted and finds the phone's messages", async () => {
    const { key, phone } = await h.seedTenant()
    const sent = await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "x" } })
    expect(sent.status).toBe(201)
    const res = await h.request("GET", `/v1/messages?phoneNumberId=${encodeURIComponent(phone.phoneNumber)}`, { key })
    expect(res.status).toBe(200)
    expect(res.body.data.data.map((m: { id: string }) => m.id)).toEqual([sent.body.data.id])
  })
})

describe("a known path with the wrong method", () => {
  test.each([
    // /v1/messages/send is not a message id: every method but POST is refused, though
    // GET, PATCH and DELETE /v1/messages/{messageId} would match it.
    ["GET", "/v1/messages/send", "POST"],
    ["GET", "/v1/messages/send/", "POST"],
    ["DELETE", "/v1/messages/send", "POST"],
    ["PATCH", "/v1/messages/send", "POST"],
    ["PUT", "/v1/messages/send", "POST"],
    ["DELETE", "/v1/account/usage", "GET"],
    ["PUT", "/v1/messages", "GET"],
    ["PUT", "/v1/messages/", "GET"],
    ["POST", "/v1/messages/msg_123", "DELETE, GET, PATCH"],
    ["PATCH", "/v1/phone-numbers/%2B14155550123", "GET"],
    ["PUT", "/admin/v1/accounts/acc_1/keys", "GET, POST"],
    ["PUT", "/admin/v1/accounts/acc_1", "PATCH"],
    ["GET", "/admin/v1/phones/%2B14155550123", "DELETE"],
    ["DELETE", "/healthz", "GET"],
  ])("%s %s is a 405 with Allow: %s and the error envelope", async (method, path, allow) => {
    const res = await h.request(method, path)
    const messages = expectErrorEnvelope(res, 405, "Method Not Allowed", path)
    expect(res.headers.get("allow")).toBe(allow)
    expect(messages).toEqual([`Method ${method} is not allowed on ${path}; allowed: ${allow}`])
  })

  test.each([
    ["GET", "/v1/nothing-here"],
    ["DELETE", "/v1/messages/send/extra"],
    ["GET", "/admin/v1/nope"],
  ])("an unknown path stays 404 (%s %s)", async (method, path) => {
    const res = await h.request(method, path)
    expect(expectErrorEnvelope(res, 404, "Not Found", path)).toEqual([`Route ${method} ${path} not found`])
    expect(res.headers.get("allow")).toBeNull()
  })
})
