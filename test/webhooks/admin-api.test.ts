import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { Type } from "@sinclair/typebox"
import { EVENT_NAMES } from "../../src/domain/event-catalogue"
import { EVENT_GROUPS } from "../../src/lib/event-filter"
import { Envelope, PageEnvelope } from "../../src/http/models/common"
import { WebhookDelivery, WebhookEndpoint, WebhookEndpointWithSecret } from "../../src/http/models/webhooks"
import { createHarness, expectErrorEnvelope, expectSchema, type Harness } from "../helpers/harness"
import { WebhookReceiver } from "../helpers/webhook-receiver"
import { deliveryRows, waitForAttempts } from "../helpers/webhooks"

/*
 * The operator's webhook routes (API-DECISIONS §12): endpoints, their secrets, the delivery log
 * and resends. Deliveries are produced by real sandbox sends to a real receiver on 127.0.0.1.
 */

let h: Harness
let admin: string
let receiver: WebhookReceiver
beforeEach(async () => {
  h = await createHarness()
  admin = await h.adminToken()
  receiver = new WebhookReceiver()
})
afterEach(async () => {
  await h.close()
  await receiver.stop()
})

// The catalogue's names in its order: the spec's eight, then the events added after (reactions, edits, deletions, calls, …).
const EVENTS_MESSAGE = `events must be ["*"] or a non-empty list of: ${[...EVENT_NAMES, ...EVENT_GROUPS].join(", ")}`
const DAY_MS = 24 * 60 * 60 * 1000
/** A recipient the sandbox leaves at `sent`: exactly one event per send. */
const OFFLINE_RECIPIENT = "+12025550104"

const create = (accountId: string, body: unknown) => h.request("POST", `/admin/v1/accounts/${accountId}/webhooks`, { key: admin, body })
const listEndpoints = (accountId: string) => h.request("GET", `/admin/v1/accounts/${accountId}/webhooks`, { key: admin })
const listDeliveries = (webhookId: string, query = "") => h.request("GET", `/admin/v1/webhooks/${webhookId}/deliveries${query}`, { key: admin })
const resend = (deliveryId: string) => h.request("POST", `/admin/v1/deliveries/${deliveryId}/resend`, { key: admin })

/** Adds an endpoint with the admin token of this test (the shared helper would issue a new token). */
async function addEndpoint(
  accountId: string,
  url: string,
  options: { environment?: "test" | "live"; events?: string[] } = {},
): Promise<{ id: string; secret: string }> {
  const res = await create(accountId, { url, environment: options.environment ?? "test", events: options.events ?? ["*"] })
  if (res.status !== 201) throw new Error(`adding the endpoint failed: ${JSON.stringify(res.body)}`)
  return { id: res.body.data.id, secret: res.body.data.secret }
}

async function send(key: string, from: string, to = OFFLINE_RECIPIENT): Promise<string> {
  const res = await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: from, to, content: "hello" } })
  if (res.status !== 201) throw new Error(`send failed: ${JSON.stringify(res.body)}`)
  return res.body.data.id
}

/** Sends one message and waits until its delivery's first attempt is recorded; returns the delivery id. */
async function sendAndWaitForFirstAttempt(key: string, from: string, endpointId: string): Promise<string> {
  const before = deliveryRows(h, endpointId).length
  await send(key, from)
  const rows = deliveryRows(h, endpointId)
  expect(rows).toHaveLength(before + 1)
  const id = rows[rows.length - 1]!.id
  await waitForAttempts(h, id, 1)
  return id
}

describe("admin API: webhook endpoints and their secrets", () => {
  test("creating an endpoint answers 201 with a whsec_ secret of 32 random bytes (base64), different for every endpoint", async () => {
    const account = await h.seedAccount()
    const res = await create(account.id, { url: "https://hooks.example.com/wagate", environment: "live", events: ["message.sent", "message.read"] })
    expect(res.status).toBe(201)
    expectSchema(Envelope(WebhookEndpointWithSecret), res.body)
    expect(res.body.data).toMatchObject({
      accountId: account.id,
      environment: "live",
      url: "https://hooks.example.com/wagate",
      events: ["message.sent", "message.read"],
      enabled: true,
      previousSecretExpiresAt: null,
      createdAt: new Date(h.clock.nowMs()).toISOString(),
    })
    expect(res.body.data.id).toMatch(/^wh_[0-9a-z]{26}$/)
    const secret: string = res.body.data.secret
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(Buffer.from(secret.slice("whsec_".length), "base64")).toHaveLength(32)

    const other = await create(account.id, { url: "https://hooks.example.com/other", environment: "test", events: ["*"] })
    expect(other.body.data.secret).not.toBe(secret)
  })

  test("after creation the secret never appears again: not in the list, PATCH, rotate, deliveries or DELETE responses", async () => {
    const { account, key, phone } = await h.seedTenant()
    const created = await create(account.id, { url: receiver.url(), environment: "test", events: ["*"] })
    const { id, secret } = created.body.data as { id: string; secret: string }
    await sendAndWaitForFirstAttempt(key, phone.phoneNumber, id)

    const list = await listEndpoints(account.id)
    expectSchema(Envelope(Type.Array(WebhookEndpoint)), list.body)
    const patched = await h.request("PATCH", `/admin/v1/webhooks/${id}`, { key: admin, body: { events: ["message.sent"] } })
    const deliveries = await listDeliveries(id)
    for (const res of [list, patched, deliveries]) {
      expect(res.status).toBe(200)
      const text = JSON.stringify(res.body)
      expect(text).not.toContain(secret)
      expect(text).not.toContain("whsec_")
      expect(text).not.toContain('"secret"')
    }

    // A rotation shows the new secret once, and neither the old nor the new one afterwards.
    const rotated = await h.request("POST", `/admin/v1/webhooks/${id}/rotate-secret`, { key: admin })
    const newSecret: string = rotated.body.data.secret
    expect(JSON.stringify(rotated.body)).not.toContain(secret)
    const afterRotation = JSON.stringify((await listEndpoints(account.id)).body)
    const removed = await h.request("DELETE", `/admin/v1/webhooks/${id}`, { key: admin })
    for (const text of [afterRotation, JSON.stringify(removed.body)]) {
      expect(text).not.toContain(secret)
      expect(text).not.toContain(newSecret)
      expect(text).not.toContain("whsec_")
    }
  })

  test("the list holds every endpoint of the account, both environments, oldest first, and no other account's", async () => {
    const account = await h.seedAccount()
    const other = await h.seedAccount({ name: "Other" })
    const a = await addEndpoint(account.id, "https://hooks.example.com/a", { environment: "test" })
    h.clock.advance(1)
    const b = await addEndpoint(account.id, "http://10.0.0.5:5678/webhook/wagate", { environment: "live", events: ["phone.connected"] })
    await addEndpoint(other.id, "https://hooks.example.com/other")

    const res = await listEndpoints(account.id)
    expect(res.status).toBe(200)
    expect(res.body.data.map((e: { id: string }) => e.id)).toEqual([a.id, b.id])
    expect(res.body.data[1]).toMatchObject({ environment: "live", url: "http://10.0.0.5:5678/webhook/wagate", events: ["phone.connected"], enabled: true })
    expect((await listEndpoints((await h.seedAccount()).id)).body.data).toEqual([])
  })

  const VALID = { url: "https://hooks.example.com/wagate", environment: "test", events: ["*"] }
  test.each([
    ["a URL that does not parse", { ...VALID, url: "hooks.example.com/wagate" }, ["url must be an absolute http:// or https:// URL"]],
    ["an ftp: URL", { ...VALID, url: "ftp://hooks.example.com/wagate" }, ["url must use http or https"]],
    [
      "credentials in the URL",
      { ...VALID, url: "https://user:pass@hooks.example.com/wagate" },
      ["url must not contain credentials: verify the X-Service-Signature header instead"],
    ],
    ["a URL over 2048 characters", { ...VALID, url: `https://hooks.example.com/${"a".repeat(2048)}` }, ["url must be an absolute http:// or https:// URL of at most 2048 characters"]],
    ["an unknown event name", { ...VALID, events: ["message.sent", "message.bogus"] }, [EVENTS_MESSAGE]],
    ["a group that takes no event", { ...VALID, events: ["bogus.*"] }, [EVENTS_MESSAGE]],
    ["an empty event list", { ...VALID, events: [] }, [EVENTS_MESSAGE]],
    ['"*" mixed with names', { ...VALID, events: ["*", "message.sent"] }, [EVENTS_MESSAGE]],
    ["events as a string", { ...VALID, events: "*" }, [EVENTS_MESSAGE]],
    ["a missing environment", { url: VALID.url, events: ["*"] }, ["environment is required"]],
    ["an invalid environment", { ...VALID, environment: "production" }, ["environment must be test or live"]],
    ["an unknown field", { ...VALID, secret: "whsec_mine" }, ["secret is not a recognised field"]],
    ["an empty body", {}, ["url is required", "environment is required", "events is required"]],
    [
      "a newline in the URL (named by its origin, never its path or query)",
      { ...VALID, url: "https://hooks.example.com/t0ken\n?key=s3cret" },
      ["url must not contain control characters: found \\n at character 32 (the URL for https://hooks.example.com)"],
    ],
    [
      "an escape character in the URL",
      { ...VALID, url: "https://hooks.example.com/\u001b[2J" },
      ["url must not contain control characters: found \\x1b at character 27 (the URL for https://hooks.example.com)"],
    ],
    ["a C1 control character in the URL", { ...VALID, url: "https://hooks.example.com/\u009b" }, ["url must not contain control characters: found \\x9b at character 27 (the URL for https://hooks.example.com)"]],
    ["a NUL in an unparsable URL", { ...VALID, url: "https://\u0000" }, ["url must not contain control characters: found \\x00 at character 9"]],
    ["a bad URL and bad events together", { ...VALID, url: "ftp://hooks.example.com", events: ["message.bogus"] }, ["url must use http or https", EVENTS_MESSAGE]],
  ])("creating with %s is 400 naming the field, and creates nothing", async (_name, body, messages) => {
    const account = await h.seedAccount()
    const path = `/admin/v1/accounts/${account.id}/webhooks`
    expect(expectErrorEnvelope(await create(account.id, body), 400, "Bad Request", path)).toEqual(messages)
    expect((await listEndpoints(account.id)).body.data).toEqual([])
  })

  test("the URL is stored and shown normalised, as the URL parser writes it", async () => {
    const account = await h.seedAccount()
    const res = await create(account.id, { ...VALID, url: "HTTPS://Hooks.Example.COM:443/a b?q=ü" })
    expect(res.status).toBe(201)
    expect(res.body.data.url).toBe("https://hooks.example.com/a%20b?q=%C3%BC")
    expect((await listEndpoints(account.id)).body.data[0].url).toBe("https://hooks.example.com/a%20b?q=%C3%BC")
  })

  test("PATCH changes the URL, the events and the enabled flag, keeps the rest, and the next event goes by the new settings", async () => {
    const { account, key, phone } = await h.seedTenant()
    const { id } = await addEndpoint(account.id, receiver.url(), { events: ["message.failed"] })
    const created = (await listEndpoints(account.id)).body.data[0]
    h.clock.advance(5_000)
    const moved = new WebhookReceiver()
    try {
      const patched = await h.request("PATCH", `/admin/v1/webhooks/${id}`, { key: admin, body: { url: moved.url(), events: ["message.sent"] } })
      expect(patched.status).toBe(200)
      expectSchema(Envelope(WebhookEndpoint), patched.body)
      expect(patched.body.data).toEqual({ ...created, url: moved.url(), events: ["message.sent"], updatedAt: new Date(h.clock.nowMs()).toISOString() })
      await send(key, phone.phoneNumber)
      const [hook] = await moved.waitFor(1)
      expect(hook!.json.event).toBe("message.sent")
      await waitForAttempts(h, deliveryRows(h, id)[0]!.id, 1)
      expect(receiver.received).toHaveLength(0)
    } finally {
      await moved.stop()
    }

    const disabled = await h.request("PATCH", `/admin/v1/webhooks/${id}`, { key: admin, body: { enabled: false } })
    expect(disabled.body.data).toMatchObject({ enabled: false, events: ["message.sent"] })
    await send(key, phone.phoneNumber)
    expect(deliveryRows(h, id)).toHaveLength(1)

    const enabled = await h.request("PATCH", `/admin/v1/webhooks/${id}`, { key: admin, body: { enabled: true, events: ["*"] } })
    expect(enabled.body.data).toMatchObject({ enabled: true, events: ["*"] })
    await send(key, phone.phoneNumber)
    expect(deliveryRows(h, id)).toHaveLength(2)
  })

  test("an endpoint subscribed to a group (message.*) is sent that group's events and no other's", async () => {
    const { account, key, phone } = await h.seedTenant()
    const created = await create(account.id, { url: receiver.url(), environment: "test", events: ["message.*", "message.sent"] })
    expect(created.status).toBe(201)
    expect(created.body.data.events).toEqual(["message.*", "message.sent"])
    const other = await addEndpoint(account.id, "https://hooks.example.com/phones", { events: ["phone.*"] })
    await send(key, phone.phoneNumber)
    const [hook] = await receiver.waitFor(1)
    expect(hook!.json.event).toBe("message.sent")
    expect(deliveryRows(h, other.id)).toHaveLength(0)
  })

  test.each([
    ["an ftp: URL", { url: "ftp://hooks.example.com" }, ["url must use http or https"]],
    ["a tab in the URL", { url: "https://hooks.example.com/a\tb?secret=1" }, ["url must not contain control characters: found \\t at character 28 (the URL for https://hooks.example.com)"]],
    ["an empty event list", { events: [] }, [EVENTS_MESSAGE]],
    ["a non-boolean enabled", { enabled: "yes" }, ["enabled must be true or false"]],
    ["an unknown field", { secret: "whsec_mine" }, ["secret is not a recognised field"]],
    ["an environment", { environment: "live" }, ["environment cannot be changed: remove the endpoint and add it again in the other environment"]],
  ])("PATCH with %s is 400 and changes nothing", async (_name, body, messages) => {
    const account = await h.seedAccount()
    const { id } = await addEndpoint(account.id, "https://hooks.example.com/wagate", { events: ["message.sent"] })
    const before = (await listEndpoints(account.id)).body.data
    const res = await h.request("PATCH", `/admin/v1/webhooks/${id}`, { key: admin, body })
    expect(expectErrorEnvelope(res, 400, "Bad Request", `/admin/v1/webhooks/${id}`)).toEqual(messages)
    expect((await listEndpoints(account.id)).body.data).toEqual(before)
  })

  test("DELETE answers with the endpoint, removes it with its deliveries and their attempts, and a second DELETE is 404", async () => {
    const { account, key, phone } = await h.seedTenant()
    const { id } = await addEndpoint(account.id, receiver.url())
    const keep = await addEndpoint(account.id, receiver.url("/keep"), { events: ["message.sent"] })
    await sendAndWaitForFirstAttempt(key, phone.phoneNumber, id)
    await waitForAttempts(h, deliveryRows(h, keep.id)[0]!.id, 1)
    const count = (sql: string, arg: string) => (h.services.sqlite!.query(sql).get(arg) as { n: number }).n
    const attemptsOf = (endpointId: string) =>
      count("SELECT COUNT(*) AS n FROM webhook_attempts a JOIN webhook_deliveries d ON d.id = a.delivery_id WHERE d.endpoint_id = ?", endpointId)
    expect(attemptsOf(id)).toBe(1)

    const removed = await h.request("DELETE", `/admin/v1/webhooks/${id}`, { key: admin })
    expect(removed.status).toBe(200)
    expectSchema(Envelope(WebhookEndpoint), removed.body)
    expect(removed.body.data).toMatchObject({ id, url: receiver.url() })

    expect((await listEndpoints(account.id)).body.data.map((e: { id: string }) => e.id)).toEqual([keep.id])
    expect(count("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE endpoint_id = ?", id)).toBe(0)
    expect(attemptsOf(id)).toBe(0)
    expect(deliveryRows(h, keep.id)).toHaveLength(1)
    expectErrorEnvelope(await listDeliveries(id), 404, "Not Found")
    expect(expectErrorEnvelope(await h.request("DELETE", `/admin/v1/webhooks/${id}`, { key: admin }), 404, "Not Found")).toEqual([
      `Webhook endpoint ${id} not found`,
    ])
  })

  test("rotate-secret answers with a new secret and previousSecretExpiresAt = now + 24 h, which the list shows too", async () => {
    const account = await h.seedAccount()
    const { id, secret } = await addEndpoint(account.id, "https://hooks.example.com/wagate")
    h.clock.advance(90_000)
    const rotated = await h.request("POST", `/admin/v1/webhooks/${id}/rotate-secret`, { key: admin })
    expect(rotated.status).toBe(200)
    expectSchema(Envelope(WebhookEndpointWithSecret), rotated.body)
    expect(rotated.body.data.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/)
    expect(rotated.body.data.secret).not.toBe(secret)
    const expiresAt = new Date(h.clock.nowMs() + DAY_MS).toISOString()
    expect(rotated.body.data).toMatchObject({ id, previousSecretExpiresAt: expiresAt, updatedAt: new Date(h.clock.nowMs()).toISOString() })
    expect((await listEndpoints(account.id)).body.data[0].previousSecretExpiresAt).toBe(expiresAt)
  })

  test.each([
    ["GET", "/admin/v1/accounts/acc_missing/webhooks", undefined, "Account acc_missing not found"],
    ["POST", "/admin/v1/accounts/acc_missing/webhooks", VALID, "Account acc_missing not found"],
    ["PATCH", "/admin/v1/webhooks/wh_missing", { enabled: false }, "Webhook endpoint wh_missing not found"],
    ["DELETE", "/admin/v1/webhooks/wh_missing", undefined, "Webhook endpoint wh_missing not found"],
    ["POST", "/admin/v1/webhooks/wh_missing/rotate-secret", undefined, "Webhook endpoint wh_missing not found"],
    ["GET", "/admin/v1/webhooks/wh_missing/deliveries", undefined, "Webhook endpoint wh_missing not found"],
    ["POST", "/admin/v1/deliveries/whd_missing/resend", undefined, "Delivery whd_missing not found"],
  ] as const)("%s %s on an unknown id is 404 naming it", async (method, path, body, message) => {
    const res = await h.request(method, path, { key: admin, body })
    expect(expectErrorEnvelope(res, 404, "Not Found", path)).toEqual([message])
  })

  test("every webhook admin route needs the admin token: none, a wrong one or an API key is 401", async () => {
    const { account, key } = await h.seedTenant()
    const { id } = await addEndpoint(account.id, "https://hooks.example.com/wagate")
    for (const [method, path] of [
      ["GET", `/admin/v1/accounts/${account.id}/webhooks`],
      ["POST", `/admin/v1/accounts/${account.id}/webhooks`],
      ["PATCH", `/admin/v1/webhooks/${id}`],
      ["DELETE", `/admin/v1/webhooks/${id}`],
      ["POST", `/admin/v1/webhooks/${id}/rotate-secret`],
      ["GET", `/admin/v1/webhooks/${id}/deliveries`],
      ["POST", "/admin/v1/deliveries/whd_x/resend"],
    ] as const) {
      for (const bearer of [undefined, "adm_wrongwrongwrongwrongwrong", key]) {
        const body = method === "GET" || method === "DELETE" ? undefined : VALID
        expectErrorEnvelope(await h.request(method, path, { key: bearer, body }), 401, "Unauthorized", path)
      }
    }
    // Nothing was changed by the refused requests.
    const list = await listEndpoints(account.id)
    expect(list.body.data).toHaveLength(1)
    expect(list.body.data[0]).toMatchObject({ id, enabled: true, previousSecretExpiresAt: null })
  })

  test("the OpenAPI document lists every webhook admin route with its success status and the admin-token security", async () => {
    const doc = (await h.request("GET", "/swagger/json")).body
    for (const [method, path, ok, errors] of [
      ["get", "/admin/v1/accounts/{accountId}/webhooks", "200", ["401", "404"]],
      ["post", "/admin/v1/accounts/{accountId}/webhooks", "201", ["400", "401", "404"]],
      ["patch", "/admin/v1/webhooks/{webhookId}", "200", ["400", "401", "404"]],
      ["delete", "/admin/v1/webhooks/{webhookId}", "200", ["401", "404"]],
      ["post", "/admin/v1/webhooks/{webhookId}/rotate-secret", "200", ["401", "404"]],
      ["get", "/admin/v1/webhooks/{webhookId}/deliveries", "200", ["400", "401", "404"]],
      ["post", "/admin/v1/deliveries/{deliveryId}/resend", "201", ["401", "404", "409"]],
    ] as const) {
      const op = doc.paths[path]?.[method]
      if (!op) throw new Error(`${method} ${path} is not in the OpenAPI document`)
      expect(Object.keys(op.responses)).toEqual(expect.arrayContaining([ok, ...errors]))
      expect(op.security).toEqual([{ adminToken: [] }])
      expect(op.summary.length).toBeGreaterThan(5)
    }
    const schemaOf = (ref: string) => doc.components.schemas[ref.replace("#/components/schemas/", "")]
    const created = doc.paths["/admin/v1/accounts/{accountId}/webhooks"].post.responses["201"].content["application/json"].schema
    expect(schemaOf(created.properties.data.$ref).properties.secret).toBeDefined()
    const listed = doc.paths["/admin/v1/accounts/{accountId}/webhooks"].get.responses["200"].content["application/json"].schema
    expect(schemaOf(listed.properties.data.items.$ref).properties.secret).toBeUndefined()
  })
})

describe("admin API: the delivery log", () => {
  test("deliveries are paginated newest first with page, limit, total and totalPages", async () => {
    const { account, key, phone } = await h.seedTenant()
    const { id } = await addEndpoint(account.id, receiver.url(), { events: ["message.sent"] })
    const ids: string[] = []
    for (let i = 0; i < 5; i++) {
      ids.push(await sendAndWaitForFirstAttempt(key, phone.phoneNumber, id))
      h.clock.advance(1_000)
    }
    const newestFirst = [...ids].reverse()

    const first = await listDeliveries(id, "?limit=2")
    expect(first.status).toBe(200)
    expectSchema(PageEnvelope(WebhookDelivery), first.body)
    expect(first.body.data.pagination).toEqual({ page: 1, limit: 2, total: 5, totalPages: 3 })
    expect(first.body.data.data.map((d: { id: string }) => d.id)).toEqual(newestFirst.slice(0, 2))
    const last = await listDeliveries(id, "?page=3&limit=2")
    expect(last.body.data.data.map((d: { id: string }) => d.id)).toEqual(newestFirst.slice(4))
    expect((await listDeliveries(id, "?page=4&limit=2")).body.data).toEqual({ data: [], pagination: { page: 4, limit: 2, total: 5, totalPages: 3 } })
    expect((await listDeliveries(id)).body.data.pagination).toEqual({ page: 1, limit: 20, total: 5, totalPages: 1 })
  })

  test.each([
    ["?status=done", "status must be one of pending, succeeded, failed"],
    ["?page=0", "page must be an integer >= 1"],
    ["?limit=101", "limit must be an integer between 1 and 100"],
    ["?endpoint=wh_other", "endpoint is not a recognised field"],
  ])("listing deliveries with %s is 400", async (query, message) => {
    const account = await h.seedAccount()
    const { id } = await addEndpoint(account.id, "https://hooks.example.com/wagate")
    expect(expectErrorEnvelope(await listDeliveries(id, query), 400, "Bad Request")).toEqual([message])
  })

  test("each delivery lists its attempts: number, time, status code, error, latency and the start of the answer (256 characters, the cut marked); status filters", async () => {
    const { account, key, phone } = await h.seedTenant()
    const { id } = await addEndpoint(account.id, receiver.url(), { events: ["message.sent"] })
    const t0 = h.clock.nowMs()

    // Delivery A: 500 with a long answer, then (one minute later) a slow 200.
    receiver.respondWith({ status: 500, body: "E".repeat(5_000) }, { delayMs: 500, status: 200 })
    const a = await sendAndWaitForFirstAttempt(key, phone.phoneNumber, id)
    h.clock.advance(60_000)
    await receiver.waitFor(2)
    // The receiver holds its answer for 500 ms of real time; meanwhile 250 ms pass on the clock wagate times with.
    h.clock.advance(250)
    await waitForAttempts(h, a, 2)
    // Delivery B: 410 Gone, failed at once.
    receiver.respondWith({ status: 410, body: "endpoint retired" })
    const b = await sendAndWaitForFirstAttempt(key, phone.phoneNumber, id)
    h.clock.advance(1)
    // Delivery C: 503, a retry pending one minute after its first attempt.
    receiver.respondWith({ status: 503, body: "" })
    const c = await sendAndWaitForFirstAttempt(key, phone.phoneNumber, id)
    const tC = h.clock.nowMs()

    const all = await listDeliveries(id)
    expectSchema(PageEnvelope(WebhookDelivery), all.body)
    expect(all.body.data.data.map((d: { id: string }) => d.id)).toEqual([c, b, a])

    const succeeded = (await listDeliveries(id, "?status=succeeded")).body.data
    expect(succeeded.pagination.total).toBe(1)
    const [delivered] = succeeded.data
    expect(delivered).toMatchObject({ id: a, event: "message.sent", status: "succeeded", attemptCount: 2, nextAttemptAt: null, lastStatusCode: 200, lastError: null, resentFrom: null })
    expect(delivered.eventId).toMatch(/^evt_[0-9a-z]{26}$/)
    expect(delivered.attempts).toEqual([
      { attempt: 1, attemptedAt: new Date(t0).toISOString(), statusCode: 500, error: "HTTP 500", latencyMs: 0, responseBody: "E".repeat(255) + "…" },
      { attempt: 2, attemptedAt: new Date(t0 + 60_000).toISOString(), statusCode: 200, error: null, latencyMs: 250, responseBody: "ok" },
    ])

    const failed = (await listDeliveries(id, "?status=failed")).body.data
    expect(failed.data.map((d: { id: string }) => d.id)).toEqual([b])
    expect(failed.data[0]).toMatchObject({
      status: "failed",
      lastStatusCode: 410,
      lastError: "HTTP 410 Gone: the receiver asked to stop; no more retries",
      nextAttemptAt: null,
    })
    expect(failed.data[0].attempts).toEqual([expect.objectContaining({ attempt: 1, statusCode: 410, error: "HTTP 410", responseBody: "endpoint retired" })])

    const pending = (await listDeliveries(id, "?status=pending")).body.data
    expect(pending.data.map((d: { id: string }) => d.id)).toEqual([c])
    expect(pending.data[0]).toMatchObject({ status: "pending", attemptCount: 1, lastStatusCode: 503, nextAttemptAt: new Date(tC + 60_000).toISOString() })
    expect(pending.data[0].attempts).toEqual([expect.objectContaining({ attempt: 1, statusCode: 503, responseBody: null })])
  })
})

describe("admin API: resend", () => {
  test("resending a delivery that is still pending is 409, and creates nothing", async () => {
    const { account, key, phone } = await h.seedTenant()
    const { id } = await addEndpoint(account.id, receiver.url(), { events: ["message.sent"] })
    receiver.respondWith({ status: 500 })
    const pending = await sendAndWaitForFirstAttempt(key, phone.phoneNumber, id)
    const res = await resend(pending)
    expect(expectErrorEnvelope(res, 409, "Conflict", `/admin/v1/deliveries/${pending}/resend`)).toEqual([
      `Delivery ${pending} is still being attempted; resend it once it has succeeded or failed`,
    ])
    expect(deliveryRows(h, id)).toHaveLength(1)
  })

  test("resending answers 201 with a new pending delivery of the same event (resentFrom), which is delivered; the original keeps its history", async () => {
    const { account, key, phone } = await h.seedTenant()
    const { id } = await addEndpoint(account.id, receiver.url(), { events: ["message.sent"] })
    receiver.respondWith({ status: 410 })
    const original = await sendAndWaitForFirstAttempt(key, phone.phoneNumber, id)
    const before = (await listDeliveries(id)).body.data.data[0]
    expect(before.status).toBe("failed")

    const res = await resend(original)
    expect(res.status).toBe(201)
    expectSchema(Envelope(WebhookDelivery), res.body)
    const created = res.body.data
    expect(created).toEqual({
      id: expect.stringMatching(/^whd_[0-9a-z]{26}$/),
      eventId: before.eventId,
      event: "message.sent",
      endpointId: id,
      status: "pending",
      attemptCount: 0,
      nextAttemptAt: new Date(h.clock.nowMs()).toISOString(),
      lastStatusCode: null,
      lastError: null,
      resentFrom: original,
      createdAt: new Date(h.clock.nowMs()).toISOString(),
      attempts: [],
    })
    expect(created.id).not.toBe(original)

    await waitForAttempts(h, created.id, 1)
    const hooks = await receiver.waitFor(2)
    expect(hooks[1]!.headers["x-service-event-id"]).toBe(before.eventId)
    expect(hooks[1]!.headers["x-service-delivery-attempt"]).toBe("1")
    expect(hooks[1]!.body).toBe(hooks[0]!.body)

    const log = (await listDeliveries(id)).body.data.data
    expect(log.map((d: { id: string; status: string }) => [d.id, d.status])).toEqual([
      [created.id, "succeeded"],
      [original, "failed"],
    ])
    expect(log[1]).toEqual(before)
  })

  test("a succeeded delivery can be resent too", async () => {
    const { account, key, phone } = await h.seedTenant()
    const { id } = await addEndpoint(account.id, receiver.url(), { events: ["message.sent"] })
    const original = await sendAndWaitForFirstAttempt(key, phone.phoneNumber, id)
    const res = await resend(original)
    expect(res.status).toBe(201)
    expect(res.body.data).toMatchObject({ resentFrom: original, status: "pending" })
    await waitForAttempts(h, res.body.data.id, 1)
    const hooks = await receiver.waitFor(2)
    expect(hooks[1]!.headers["x-service-event-id"]).toBe(hooks[0]!.headers["x-service-event-id"]!)
  })
})
