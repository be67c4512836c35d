import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { Type } from "@sinclair/typebox"
import { AdminAccount, ApiKeyRecord, CreatedApiKey } from "../../src/http/models/admin"
import { Envelope } from "../../src/http/models/common"
import { PhoneNumber } from "../../src/http/models/phones"
import { createHarness, expectErrorEnvelope, expectSchema, type Harness } from "../helpers/harness"

let h: Harness
let admin: string
beforeEach(async () => {
  h = await createHarness()
  admin = await h.adminToken()
})
afterEach(() => h.close())

describe("admin API: authentication", () => {
  test("every admin route needs the admin token; an API key is not one", async () => {
    const { key } = await h.seedTenant()
    for (const [method, path] of [
      ["GET", "/admin/v1/accounts"],
      ["POST", "/admin/v1/accounts"],
      ["PATCH", "/admin/v1/accounts/acc_x"],
      ["GET", "/admin/v1/accounts/acc_x/keys"],
      ["POST", "/admin/v1/accounts/acc_x/keys"],
      ["DELETE", "/admin/v1/keys/key_x"],
      ["GET", "/admin/v1/accounts/acc_x/phones"],
      ["POST", "/admin/v1/accounts/acc_x/phones"],
      ["DELETE", "/admin/v1/phones/ph_x"],
      ["GET", "/admin/v1/nodes"],
    ] as const) {
      expectErrorEnvelope(await h.request(method, path), 401, "Unauthorized", path)
      expectErrorEnvelope(await h.request(method, path, { key }), 401, "Unauthorized", path)
    }
  })

  test("WAGATE_ADMIN_TOKEN replaces the stored token", async () => {
    h = await createHarness({ env: { WAGATE_ADMIN_TOKEN: "configured-admin-token-0123456789" } })
    const stored = await h.adminToken()
    expect((await h.request("GET", "/admin/v1/accounts", { key: "configured-admin-token-0123456789" })).status).toBe(200)
    expectErrorEnvelope(await h.request("GET", "/admin/v1/accounts", { key: stored }), 401, "Unauthorized")
  })
})

describe("admin API: accounts", () => {
  test("creates, lists and updates accounts", async () => {
    const created = await h.request("POST", "/admin/v1/accounts", { key: admin, body: { name: "Acme", email: "ops@acme.example" } })
    expect(created.status).toBe(201)
    expectSchema(Envelope(AdminAccount), created.body)
    expect(created.body.data).toMatchObject({ name: "Acme", subscriptionStatus: "active", rateLimitPerMinute: null })
    const id = created.body.data.accountId

    const patched = await h.request("PATCH", `/admin/v1/accounts/${id}`, {
      key: admin,
      body: { subscriptionStatus: "inactive", rateLimitPerMinute: 500 },
    })
    expect(patched.body.data).toMatchObject({ accountId: id, subscriptionStatus: "inactive", rateLimitPerMinute: 500, name: "Acme" })
    const back = await h.request("PATCH", `/admin/v1/accounts/${id}`, { key: admin, body: { rateLimitPerMinute: null } })
    expect(back.body.data.rateLimitPerMinute).toBeNull()

    const list = await h.request("GET", "/admin/v1/accounts", { key: admin })
    expect(list.body.data.map((a: { accountId: string }) => a.accountId)).toContain(id)
  })

  test.each([
    [{ name: "", email: "a@b.c" }, ["name must be 1–200 characters"]],
    [{ name: "A", email: "nope" }, ["email must be an e-mail address"]],
    [{ name: "A", email: "a@b.c", plan: "pro" }, ["plan is not a recognised field"]],
    // Not the /v1 wording about API keys: the admin token has no environment.
    [{ name: "A", email: "a@b.c", environment: "live" }, ["environment is not a recognised field"]],
  ])("invalid account bodies are 400 with readable messages (%#)", async (body, messages) => {
    const res = await h.request("POST", "/admin/v1/accounts", { key: admin, body })
    expect(expectErrorEnvelope(res, 400, "Bad Request")).toEqual(messages)
  })

  test("patching an unknown account is 404", async () => {
    expectErrorEnvelope(await h.request("PATCH", "/admin/v1/accounts/acc_nope", { key: admin, body: { name: "x" } }), 404, "Not Found")
  })
})

describe("admin API: keys", () => {
  test("creates a key shown once, lists records without it, and revokes it", async () => {
    const account = await h.seedAccount()
    const created = await h.request("POST", `/admin/v1/accounts/${account.id}/keys`, {
      key: admin,
      body: { environment: "live", scopes: ["messages:read", "phone-numbers:read"], name: "Reporting" },
    })
    expect(created.status).toBe(201)
    expectSchema(Envelope(CreatedApiKey), created.body)
    const { key, id } = created.body.data
    expect(key).toMatch(/^sk_live_[0-9A-Za-z]{43}$/)
    expect(created.body.data).toMatchObject({ environment: "live", name: "Reporting", prefix: key.slice(0, 12), last4: key.slice(-4) })

    const list = await h.request("GET", `/admin/v1/accounts/${account.id}/keys`, { key: admin })
    expectSchema(Envelope(Type.Array(ApiKeyRecord)), list.body)
    expect(JSON.stringify(list.body)).not.toContain(key)
    expect(JSON.stringify(list.body)).not.toContain("keyHash")

    expect((await h.request("GET", "/v1/phone-numbers", { key })).status).toBe(200)
    const revoked = await h.request("DELETE", `/admin/v1/keys/${id}`, { key: admin })
    expect(revoked.body.data.revokedAt).toBe(new Date(h.clock.nowMs()).toISOString())
    expect((await h.request("GET", "/v1/phone-numbers", { key })).status).toBe(401)
  })

  test.each([
    [{ environment: "prod", scopes: ["messages:read"] }, ["environment must be test or live"]],
    [{ environment: "test", scopes: [] }, [expect.stringContaining("scopes must be a non-empty array")]],
    [{ environment: "test", scopes: ["messages:delete"] }, [expect.stringContaining("scopes must be a non-empty array")]],
    [{ environment: "test", scopes: ["messages:read"], expiresAt: "tomorrow" }, [expect.stringContaining("expiresAt must be an ISO 8601 timestamp")]],
  ])("invalid key requests are 400 (%#)", async (body, messages) => {
    const account = await h.seedAccount()
    const res = await h.request("POST", `/admin/v1/accounts/${account.id}/keys`, { key: admin, body })
    expect(expectErrorEnvelope(res, 400, "Bad Request")).toEqual(messages)
  })

  test("an expiry in the past is refused; keys for an unknown account are 404", async () => {
    const account = await h.seedAccount()
    const past = await h.request("POST", `/admin/v1/accounts/${account.id}/keys`, {
      key: admin,
      body: { environment: "test", scopes: ["messages:read"], expiresAt: "2020-01-01T00:00:00Z" },
    })
    expect(expectErrorEnvelope(past, 400, "Bad Request")).toEqual(["expiresAt must be in the future"])
    expectErrorEnvelope(
      await h.request("POST", "/admin/v1/accounts/acc_nope/keys", { key: admin, body: { environment: "test", scopes: ["messages:read"] } }),
      404,
      "Not Found",
    )
    expectErrorEnvelope(await h.request("DELETE", "/admin/v1/keys/key_nope", { key: admin }), 404, "Not Found")
  })
})

describe("admin API: phones", () => {
  test("adds, lists and removes phones; messages of a removed phone are kept", async () => {
    const account = await h.seedAccount()
    const key = await h.seedKey(account.id)
    const added = await h.request("POST", `/admin/v1/accounts/${account.id}/phones`, {
      key: admin,
      body: { phoneNumber: "+14155550123", displayName: "Support" },
    })
    expect(added.status).toBe(201)
    expectSchema(Envelope(PhoneNumber), added.body)
    expect(added.body.data).toMatchObject({ phoneNumber: "+14155550123", displayName: "Support", connectionStatus: "unpaired" })

    const sent = await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: "+14155550123", to: "+14155550199", content: "x" } })
    const list = await h.request("GET", `/admin/v1/accounts/${account.id}/phones`, { key: admin })
    expect(list.body.data.map((p: { id: string }) => p.id)).toEqual([added.body.data.id])

    const removed = await h.request("DELETE", `/admin/v1/phones/${added.body.data.id}`, { key: admin })
    expect(removed.body.data.id).toBe(added.body.data.id)
    expect((await h.request("GET", "/v1/phone-numbers", { key })).body.data).toEqual([])
    expect((await h.request("GET", `/v1/messages/${sent.body.data.id}`, { key })).body.data.from).toBe("+14155550123")
  })

  test("a number already added anywhere is 409; a bad number is 400; an unknown account is 404", async () => {
    const a = await h.seedAccount()
    const b = await h.seedAccount()
    await h.request("POST", `/admin/v1/accounts/${a.id}/phones`, { key: admin, body: { phoneNumber: "+14155550123" } })
    const dup = await h.request("POST", `/admin/v1/accounts/${b.id}/phones`, { key: admin, body: { phoneNumber: "+14155550123" } })
    expect(expectErrorEnvelope(dup, 409, "Conflict")).toEqual(["Phone +14155550123 already exists"])
    const bad = await h.request("POST", `/admin/v1/accounts/${a.id}/phones`, { key: admin, body: { phoneNumber: "0415555" } })
    expect(expectErrorEnvelope(bad, 400, "Bad Request")).toEqual(["phoneNumber must be an E.164 number (+ and 8–15 digits)"])
    expectErrorEnvelope(await h.request("GET", "/admin/v1/accounts/acc_nope/phones", { key: admin }), 404, "Not Found")
  })
})
