import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { ALL_SCOPES } from "../../src/domain/scopes"
import { createHarness, expectErrorEnvelope, type Harness } from "../helpers/harness"
import { isMethodGuard } from "../../src/http/allowed-methods"

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

/** Every /v1 endpoint, a request that succeeds for an all-scopes test key, and the spec's scope matrix. */
function endpoints(phoneNumber: string, messageId: string) {
  const sendBody = { fromPhoneId: phoneNumber, to: "+14155550199", content: "x" }
  return [
    { name: "POST /v1/messages/send", method: "POST", path: "/v1/messages/send", body: sendBody, ok: 201, scopes: ["messages:send", "messages:write"] },
    { name: "GET /v1/messages", method: "GET", path: "/v1/messages", ok: 200, scopes: ["messages:read"] },
    { name: "GET /v1/messages/{id}", method: "GET", path: `/v1/messages/${messageId}`, ok: 200, scopes: ["messages:read"] },
    { name: "GET /v1/messages/inbound", method: "GET", path: "/v1/messages/inbound", ok: 200, scopes: ["messages:read"] },
    // An unknown inbound id is the only "successful" probe for this route with a test key: it gets past auth to 404.
    { name: "GET /v1/messages/inbound/{id}", method: "GET", path: "/v1/messages/inbound/inmsg_x", ok: 404, scopes: ["messages:read"] },
    { name: "GET /v1/messages/inbound/{id}/media", method: "GET", path: "/v1/messages/inbound/inmsg_x/media", ok: 404, scopes: ["messages:read"] },
    { name: "GET /v1/messages/{id}/poll", method: "GET", path: "/v1/messages/msg_x/poll", ok: 404, scopes: ["messages:read"] },
    { name: "GET /v1/messages/inbound/{id}/poll", method: "GET", path: "/v1/messages/inbound/inmsg_x/poll", ok: 404, scopes: ["messages:read"] },
    { name: "POST /v1/messages/inbound/{id}/vote", method: "POST", path: "/v1/messages/inbound/inmsg_x/vote", body: { options: [] }, ok: 404, scopes: ["messages:send", "messages:write"] },
    {
      name: "GET /v1/groups",
      method: "GET",
      path: `/v1/groups?fromPhoneId=${encodeURIComponent(phoneNumber)}`,
      ok: 200,
      scopes: ["groups:read", "messages:read", "messages:send", "messages:write"],
    },
    // The groups API on the seed's Sandbox Team, where every sandbox phone is admin; leave and
    // join name a group and an invite that do not exist, so each probe gets past auth to the same 404 every time.
    ...groupEndpoints(phoneNumber),
    {
      name: "GET /v1/phone-numbers",
      method: "GET",
      path: "/v1/phone-numbers",
      ok: 200,
      scopes: ["phone_numbers:read", "phone-numbers:read", "messages:read", "messages:send", "messages:write"],
    },
    {
      name: "GET /v1/phone-numbers/{id}",
      method: "GET",
      path: `/v1/phone-numbers/${encodeURIComponent(phoneNumber)}`,
      ok: 200,
      scopes: ["phone_numbers:read", "phone-numbers:read", "messages:read", "messages:send", "messages:write"],
    },
    {
      name: "GET /v1/phone-numbers/{id}/status",
      method: "GET",
      path: `/v1/phone-numbers/${encodeURIComponent(phoneNumber)}/status`,
      ok: 200,
      scopes: ["phone_numbers:read", "phone-numbers:read", "messages:read", "messages:send", "messages:write"],
    },
    { name: "GET /v1/account", method: "GET", path: "/v1/account", ok: 200, scopes: ["account:read", "messages:read", "messages:send", "messages:write"] },
    {
      name: "POST /v1/presence",
      method: "POST",
      path: "/v1/presence",
      body: { fromPhoneId: phoneNumber, to: "+14155550199", state: "typing" },
      ok: 204,
      scopes: ["messages:send", "messages:write"],
    },
    // The phone's own profile (docs/api.md § "Pictures and the phone's own profile"); the harness fetches no picture, so the PUT passes auth and answers 502.
    { name: "PATCH /v1/phone-numbers/{id}/profile", method: "PATCH", path: `/v1/phone-numbers/${encodeURIComponent(phoneNumber)}/profile`, body: { about: "hi" }, ok: 200, scopes: ["phone_numbers:write"] },
    { name: "PUT /v1/phone-numbers/{id}/picture", method: "PUT", path: `/v1/phone-numbers/${encodeURIComponent(phoneNumber)}/picture`, body: { mediaUrl: "https://example.com/a.png" }, ok: 502, scopes: ["phone_numbers:write"] },
    {
      name: "GET /v1/phone-numbers/{id}/picture",
      method: "GET",
      path: `/v1/phone-numbers/${encodeURIComponent(phoneNumber)}/picture`,
      ok: 404,
      scopes: ["phone_numbers:read", "phone-numbers:read", "messages:read", "messages:send", "messages:write"],
    },
    { name: "DELETE /v1/phone-numbers/{id}/picture", method: "DELETE", path: `/v1/phone-numbers/${encodeURIComponent(phoneNumber)}/picture`, ok: 200, scopes: ["phone_numbers:write"] },
    {
      name: "POST /v1/contacts/check",
      method: "POST",
      path: "/v1/contacts/check",
      body: { fromPhoneId: phoneNumber, numbers: ["+14155550199"] },
      ok: 200,
      scopes: ["messages:send", "messages:write", "messages:read"],
    },
    // Blocking and contact profiles (docs/api.md § "Blocking" and § "Contact profiles").
    {
      name: "POST /v1/contacts/block",
      method: "POST",
      path: "/v1/contacts/block",
      body: { fromPhoneId: phoneNumber, contact: "+14155550199" },
      ok: 200,
      scopes: ["contacts:write"],
    },
    {
      name: "POST /v1/contacts/unblock",
      method: "POST",
      path: "/v1/contacts/unblock",
      body: { fromPhoneId: phoneNumber, contact: "+14155550199" },
      ok: 200,
      scopes: ["contacts:write"],
    },
    // Chats and contacts (docs/api.md § "Chats and contacts"); the harness's send to +14155550199 made the chat.
    { name: "GET /v1/chats", method: "GET", path: `/v1/chats?fromPhoneId=${encodeURIComponent(phoneNumber)}`, ok: 200, scopes: ["messages:read"] },
    { name: "GET /v1/chats/{id}/messages", method: "GET", path: `/v1/chats/%2B14155550199/messages?fromPhoneId=${encodeURIComponent(phoneNumber)}`, ok: 200, scopes: ["messages:read"] },
    { name: "GET /v1/chats/{id}/messages/{id}/media", method: "GET", path: `/v1/chats/%2B14155550199/messages/wamsg_x/media?fromPhoneId=${encodeURIComponent(phoneNumber)}`, ok: 404, scopes: ["messages:read"] },
    { name: "PATCH /v1/chats/{id}", method: "PATCH", path: "/v1/chats/%2B14155550199", body: { fromPhoneId: phoneNumber, pinned: true }, ok: 200, scopes: ["messages:send", "messages:write"] },
    { name: "GET /v1/labels", method: "GET", path: `/v1/labels?fromPhoneId=${encodeURIComponent(phoneNumber)}`, ok: 200, scopes: ["messages:read"] },
    // Labels made and put on chats (docs/api.md § "Labels"): test keys' sandbox phone counts as Business; `labels: []` needs no label made first.
    { name: "POST /v1/labels", method: "POST", path: "/v1/labels", body: { fromPhoneId: phoneNumber, name: "Paid", color: 3 }, ok: 201, scopes: ["messages:send", "messages:write"] },
    { name: "PUT /v1/chats/{id}/labels", method: "PUT", path: "/v1/chats/%2B14155550199/labels", body: { fromPhoneId: phoneNumber, labels: [] }, ok: 200, scopes: ["messages:send", "messages:write"] },
    { name: "GET /v1/contacts", method: "GET", path: `/v1/contacts?fromPhoneId=${encodeURIComponent(phoneNumber)}`, ok: 200, scopes: ["contacts:read", "contacts:write"] },
    { name: "GET /v1/contacts/blocked", method: "GET", path: `/v1/contacts/blocked?fromPhoneId=${encodeURIComponent(phoneNumber)}`, ok: 200, scopes: ["contacts:read", "contacts:write"] },
    {
      name: "GET /v1/contacts/{id}/profile",
      method: "GET",
      path: `/v1/contacts/%2B14155550199/profile?fromPhoneId=${encodeURIComponent(phoneNumber)}`,
      ok: 200,
      scopes: ["contacts:read", "contacts:write"],
    },
    {
      name: "GET /v1/contacts/{id}/picture",
      method: "GET",
      path: `/v1/contacts/%2B14155550199/picture?fromPhoneId=${encodeURIComponent(phoneNumber)}`,
      ok: 200,
      scopes: ["contacts:read", "contacts:write"],
    },
    {
      name: "GET /v1/groups/{id}/picture",
      method: "GET",
      path: `/v1/groups/120363000000000001@g.us/picture?fromPhoneId=${encodeURIComponent(phoneNumber)}`,
      ok: 200,
      scopes: ["groups:read", "groups:write", "messages:read", "messages:send", "messages:write"],
    },
    // Acting on a message (docs/api.md § "Act on a message"); the revoke comes last, since a revoked message refuses the others.
    {
      name: "POST /v1/messages/{id}/reaction",
      method: "POST",
      path: `/v1/messages/${messageId}/reaction`,
      body: { emoji: "👍" },
      ok: 200,
      scopes: ["messages:send", "messages:write"],
    },
    { name: "PATCH /v1/messages/{id}", method: "PATCH", path: `/v1/messages/${messageId}`, body: { content: "edited" }, ok: 200, scopes: ["messages:send", "messages:write"] },
    { name: "DELETE /v1/messages/{id}", method: "DELETE", path: `/v1/messages/${messageId}`, ok: 200, scopes: ["messages:send", "messages:write"] },
    // Test keys have no inbound messages: an unknown id gets past auth to 404.
    { name: "POST /v1/messages/inbound/{id}/read", method: "POST", path: "/v1/messages/inbound/inmsg_x/read", ok: 404, scopes: ["messages:send", "messages:write"] },
    // A call id no call has gets past auth to 404 (docs/api.md § "Calls").
    { name: "POST /v1/calls/{id}/reject", method: "POST", path: "/v1/calls/9A1F3C6E2B7D4E80/reject", body: { fromPhoneId: phoneNumber }, ok: 404, scopes: ["messages:send", "messages:write"] },
    // The sandbox answering back (docs/api.md § "Sandbox inbound and calls"): a contact's message and call are sends' kin, so the send scopes admit them.
    {
      name: "POST /v1/sandbox/inbound",
      method: "POST",
      path: "/v1/sandbox/inbound",
      body: { fromPhoneId: phoneNumber, from: "+14155550199", content: "hi" },
      ok: 201,
      scopes: ["messages:send", "messages:write"],
    },
    { name: "POST /v1/sandbox/calls", method: "POST", path: "/v1/sandbox/calls", body: { fromPhoneId: phoneNumber, from: "+14155550199" }, ok: 201, scopes: ["messages:send", "messages:write"] },
    {
      name: "GET /v1/account/usage",
      method: "GET",
      path: "/v1/account/usage",
      ok: 200,
      scopes: ["account:read", "messages:read", "messages:send", "messages:write"],
    },
    // The event stream (docs/webhooks.md § "Streams"): a malformed resume id is a 400 once the scope
    // admitted the key, so the matrix gets an answer instead of a stream that never ends.
    { name: "GET /v1/events", method: "GET", path: "/v1/events?after=evt_bad", ok: 400, scopes: ["events:read"] },
    // The same over a WebSocket (docs/webhooks.md § "WebSocket"): the harness sends "WS" as a GET asking to upgrade.
    { name: "WS /v1/events/ws", method: "WS", path: "/v1/events/ws?after=evt_bad", ok: 400, scopes: ["events:read"] },
  ]
}

function groupEndpoints(phoneNumber: string) {
  const team = encodeURIComponent("120363000000000001@g.us")
  const from = encodeURIComponent(phoneNumber)
  const write = ["groups:write"]
  const read = ["groups:read", "groups:write", "messages:read", "messages:send", "messages:write"]
  return [
    { name: "POST /v1/groups", method: "POST", path: "/v1/groups", body: { fromPhoneId: phoneNumber, subject: "Scopes", participants: ["+14155550199"] }, ok: 201, scopes: write },
    { name: "GET /v1/groups/{id}", method: "GET", path: `/v1/groups/${team}?fromPhoneId=${from}`, ok: 200, scopes: read },
    { name: "PATCH /v1/groups/{id}", method: "PATCH", path: `/v1/groups/${team}`, body: { fromPhoneId: phoneNumber, subject: "Team" }, ok: 200, scopes: write },
    {
      name: "POST /v1/groups/{id}/participants",
      method: "POST",
      path: `/v1/groups/${team}/participants`,
      body: { fromPhoneId: phoneNumber, action: "promote", participants: ["+12025550102"] },
      ok: 200,
      scopes: write,
    },
    { name: "GET /v1/groups/{id}/invite", method: "GET", path: `/v1/groups/${team}/invite?fromPhoneId=${from}`, ok: 200, scopes: write },
    { name: "DELETE /v1/groups/{id}/invite", method: "DELETE", path: `/v1/groups/${team}/invite`, body: { fromPhoneId: phoneNumber }, ok: 200, scopes: write },
    { name: "POST /v1/groups/join", method: "POST", path: "/v1/groups/join", body: { fromPhoneId: phoneNumber, invite: "NoSuchInviteCode0001" }, ok: 404, scopes: write },
    { name: "POST /v1/groups/{id}/leave", method: "POST", path: "/v1/groups/120363000000000009%40g.us/leave", body: { fromPhoneId: phoneNumber }, ok: 404, scopes: write },
    // Group pictures (docs/api.md § "Pictures and the phone's own profile"); the harness fetches no picture, so the PUT passes auth and answers 502.
    { name: "PUT /v1/groups/{id}/picture", method: "PUT", path: `/v1/groups/${team}/picture`, body: { fromPhoneId: phoneNumber, mediaUrl: "https://example.com/a.png" }, ok: 502, scopes: write },
    { name: "DELETE /v1/groups/{id}/picture", method: "DELETE", path: `/v1/groups/${team}/picture`, body: { fromPhoneId: phoneNumber }, ok: 200, scopes: write },
  ]
}

async function setup() {
  const { account, key, phone } = await h.seedTenant()
  const sent = await h.request("POST", "/v1/messages/send", {
    key,
    body: { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "seed" },
  })
  return { account, key, phone, list: endpoints(phone.phoneNumber, sent.body.data.id) }
}

describe("scope matrix", () => {
  test("every /v1 route the app serves is in the scope matrix, and the matrix names no route the app lacks", () => {
    // Served routes come from the app's own router, each path parameter written as the matrix writes it (`{id}`).
    const served = h.app.routes
      // The method guards only refuse the methods a path lacks (shadowedPathGuard): they are not operations.
      .filter((r) => !isMethodGuard(r) && r.path.startsWith("/v1/"))
      .map((r) => `${r.method} ${r.path.replace(/:\w+/g, "{id}")}`)
      .sort()
    const inMatrix = endpoints("+14155550100", "msg_x")
      .map((e) => e.name)
      .sort()
    expect(served).toEqual(inMatrix)
  })

  test("every endpoint admits exactly the scopes of the spec's matrix, aliases included", async () => {
    const { account, list } = await setup()
    for (const e of list) {
      for (const scope of ALL_SCOPES) {
        const key = await h.seedKey(account.id, { scopes: [scope] })
        const res = await h.request(e.method, e.path, { key, body: e.body })
        const allowed = (e.scopes as string[]).includes(scope)
        if (allowed) {
          expect({ e: e.name, scope, status: res.status }).not.toMatchObject({ status: 403 })
        } else {
          expect({ e: e.name, scope, status: res.status }).toEqual({ e: e.name, scope, status: 403 })
          expect(res.body.message).toEqual([`API key lacks the required scope: one of ${e.scopes.join(", ")}`])
        }
      }
    }
  })

  test("a key with every scope reaches every endpoint", async () => {
    const { key, list } = await setup()
    for (const e of list) {
      const res = await h.request(e.method, e.path, { key, body: e.body })
      expect({ name: e.name, status: res.status }).toEqual({ name: e.name, status: e.ok })
    }
  })
})

describe("401 variants", () => {
  test("every endpoint answers 401 with WWW-Authenticate for a missing key, before validation", async () => {
    const { list } = await setup()
    for (const e of list) {
      const res = await h.request(e.method, e.path, { body: { garbage: true } })
      expectErrorEnvelope(res, 401, "Unauthorized")
      expect(res.headers.get("www-authenticate")).toStartWith("Bearer")
      // More routes than the per-address budget of failed attempts: time refills it between them.
      h.clock.advance(60_000)
    }
  })

  test.each([
    ["a malformed key", "not-a-key"],
    ["an unknown well-formed key", `sk_test_${"A".repeat(43)}`],
    ["a key in the query string only", null],
    ["a Basic credential", "basic"],
  ])("%s is 401", async (_name, presented) => {
    await setup()
    const headers: Record<string, string> = {}
    if (presented === "basic") headers.authorization = "Basic dXNlcjpwYXNz"
    else if (presented !== null) headers.authorization = `Bearer ${presented}`
    const res = await h.request("GET", "/v1/account?api_key=sk_test_x", { headers })
    expectErrorEnvelope(res, 401, "Unauthorized", "/v1/account")
  })

  test("a key whose prefix was changed from test to live is 401, not a live key", async () => {
    const { key } = await setup()
    const res = await h.request("GET", "/v1/account", { key: key.replace("sk_test_", "sk_live_") })
    expectErrorEnvelope(res, 401, "Unauthorized")
  })

  test("a revoked key is refused on its next request", async () => {
    const { account } = await setup()
    const key = await h.seedKey(account.id)
    expect((await h.request("GET", "/v1/account", { key })).status).toBe(200)
    const id = h.services.sqlite!.query("SELECT id FROM api_keys WHERE account_id = ? ORDER BY created_at_ms DESC, id DESC LIMIT 1").get(account.id) as { id: string }
    const admin = await h.adminToken()
    expect((await h.request("DELETE", `/admin/v1/keys/${id.id}`, { key: admin })).status).toBe(200)
    expectErrorEnvelope(await h.request("GET", "/v1/account", { key }), 401, "Unauthorized")
  })

  test("an expired key is 401 from its expiry instant on", async () => {
    const { account } = await setup()
    const key = await h.seedKey(account.id, { expiresAtMs: h.clock.nowMs() + 60_000 })
    expect((await h.request("GET", "/v1/account", { key })).status).toBe(200)
    await h.advance(60_000)
    expectErrorEnvelope(await h.request("GET", "/v1/account", { key }), 401, "Unauthorized")
  })

  test("failed authentication is throttled per client IP (30/min) and never charges a key", async () => {
    const { account } = await setup()
    const key = await h.seedKey(account.id)
    for (let i = 0; i < 30; i++) expect((await h.request("GET", "/v1/account", { key: "wrong" })).status).toBe(401)
    const throttled = await h.request("GET", "/v1/account", { key: "wrong" })
    expectErrorEnvelope(throttled, 429, "Rate limit exceeded")
    expect(Number(throttled.headers.get("retry-after"))).toBeGreaterThanOrEqual(1)
    const good = await h.request("GET", "/v1/account", { key })
    expect(good.status).toBe(200)
    expect(good.headers.get("x-ratelimit-remaining")).toBe("99")
  })
})

describe("403 subscription gate", () => {
  test("a live key on an inactive account is 403 on every endpoint, a test key is not", async () => {
    const account = await h.seedAccount({ subscriptionStatus: "inactive" })
    const phone = await h.seedPhone(account.id)
    const live = await h.seedKey(account.id, { env: "live" })
    const test_ = await h.seedKey(account.id, { env: "test" })
    for (const e of endpoints(phone.phoneNumber, "msg_x")) {
      expectErrorEnvelope(await h.request(e.method, e.path, { key: live, body: e.body }), 403, "Forbidden")
    }
    expect((await h.request("GET", "/v1/account", { key: test_ })).status).toBe(200)
  })
})

describe("unknown routes", () => {
  test("an unknown path is a 404 envelope, and no dashboard function exists under /v1", async () => {
    const { key } = await setup()
    for (const [method, path] of [
      ["GET", "/v1/nope"],
      ["POST", "/v1/api-keys"],
      ["POST", "/v1/webhooks"],
      ["GET", "/nope"],
    ] as const) {
      const res = await h.request(method, path, { key })
      expectErrorEnvelope(res, 404, "Not Found", path)
    }
    // Phones are only listed under /v1: adding one is the operator's, so POST is not allowed there.
    const addPhone = await h.request("POST", "/v1/phone-numbers", { key })
    expectErrorEnvelope(addPhone, 405, "Method Not Allowed", "/v1/phone-numbers")
    expect(addPhone.headers.get("allow")).toBe("GET")
  })
})
