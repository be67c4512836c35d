import { afterEach, describe, expect, test } from "bun:test"
import { Database } from "bun:sqlite"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { SANDBOX_RETRY_MS } from "../../src/domain/sandbox"
import { createLogger } from "../../src/lib/logger"
import { createHarness, expectErrorEnvelope, type Harness } from "../helpers/harness"
import { waitUntil, WebhookReceiver } from "../helpers/webhook-receiver"
import { addEndpoint } from "../helpers/webhooks"

/*
 * The operations endpoints (API-DECISIONS §13): /healthz, /readyz, /metrics, and the promise
 * that the log never carries a credential.
 */

let h: Harness | undefined
let receiver: WebhookReceiver | undefined
const cleanups: (() => void)[] = []
afterEach(async () => {
  await h?.close()
  h = undefined
  await receiver?.stop()
  receiver = undefined
  for (const fn of cleanups.splice(0)) fn()
})

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "wagate-ops-"))
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

/** One sample of the Prometheus text format. */
interface Sample {
  name: string
  labels: Record<string, string>
  value: number
}

const METRIC_NAME = "[a-zA-Z_:][a-zA-Z0-9_:]*"
const LABEL = `[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\["\\\\n])*"`
const SAMPLE_LINE = new RegExp(`^(${METRIC_NAME})(?:\\{(${LABEL}(?:,${LABEL})*)?\\})? (-?(?:\\d+(?:\\.\\d+)?(?:[eE][+-]?\\d+)?|\\+Inf|-Inf|NaN))$`)
const HELP_LINE = new RegExp(`^# HELP (${METRIC_NAME}) .+$`)
const TYPE_LINE = new RegExp(`^# TYPE (${METRIC_NAME}) (counter|gauge|histogram|summary|untyped)$`)

/**
 * Parses the exposition text strictly: every line is a HELP, a TYPE or a `name{labels} value`
 * sample of a declared family (a histogram's samples are its _bucket, _sum and _count).
 */
function parsePrometheus(text: string): { samples: Sample[]; types: Map<string, string> } {
  expect(text.endsWith("\n")).toBe(true)
  const types = new Map<string, string>()
  const samples: Sample[] = []
  for (const line of text.slice(0, -1).split("\n")) {
    if (line === "") continue
    const type = TYPE_LINE.exec(line)
    if (type) {
      if (types.has(type[1]!)) throw new Error(`TYPE declared twice: ${line}`)
      types.set(type[1]!, type[2]!)
      continue
    }
    if (HELP_LINE.test(line)) continue
    const m = SAMPLE_LINE.exec(line)
    if (!m) throw new Error(`not a Prometheus sample line: ${JSON.stringify(line)}`)
    const labels: Record<string, string> = {}
    for (const [, k, v] of (m[2] ?? "").matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) labels[k!] = v!
    const name = m[1]!
    const family = types.has(name) ? name : name.replace(/_(bucket|sum|count)$/, "")
    if (!types.has(family)) throw new Error(`sample of an undeclared family: ${line}`)
    if (family !== name && types.get(family) !== "histogram") throw new Error(`suffixed sample of a ${types.get(family)}: ${line}`)
    samples.push({ name, labels, value: Number(m[3]) })
  }
  return { samples, types }
}

/** A sample's own labels: all but the `node` every sample carries (its own test checks it). */
function ownLabels(sample: Sample): Record<string, string> {
  const { node: _node, ...own } = sample.labels
  return own
}

/** The value of the one sample with exactly these labels besides `node` (undefined when absent). */
function valueOf(samples: Sample[], name: string, labels: Record<string, string> = {}): number | undefined {
  const found = samples.filter(
    (s) => s.name === name && Object.keys(ownLabels(s)).length === Object.keys(labels).length && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  )
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} ${JSON.stringify(labels)}`)
  return found[0]?.value
}

async function scrape(harness: Harness, token?: string): Promise<{ samples: Sample[]; types: Map<string, string>; text: string }> {
  await harness.settle()
  const res = await harness.request("GET", "/metrics", { key: token })
  expect(res.status).toBe(200)
  expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8")
  return { ...parsePrometheus(res.body as string), text: res.body as string }
}

/**
 * Takes the write lock of the database at `path` on a second connection, as a CLI command would.
 * Our wait for the lock is 5 s in production; shortened to 50 ms so tests do not sit through it.
 */
function lockFromAnotherProcess(harness: Harness, path: string): Database {
  harness.services.sqlite!.run("PRAGMA busy_timeout = 50")
  const other = new Database(path)
  cleanups.unshift(() => other.close())
  other.run("BEGIN IMMEDIATE")
  return other
}

describe("/healthz and /readyz", () => {
  test("/healthz answers 200 without credentials", async () => {
    h = await createHarness()
    const res = await h.request("GET", "/healthz")
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ status: "ok" })
  })

  test("/readyz answers 200 while the database takes writes", async () => {
    h = await createHarness()
    const res = await h.request("GET", "/readyz")
    expect(res.status).toBe(200)
    expect(res.body).toEqual({ status: "ready" })
  })

  test("/readyz answers 503 with a readable body while another process holds the write lock, and 200 once it lets go", async () => {
    const lines: string[] = []
    const path = join(tempDir(), "wagate.db")
    h = await createHarness({
      databasePath: path,
      logger: createLogger({ level: "debug", format: "json", nowIso: () => new Date().toISOString(), write: (l) => lines.push(l) }),
    })
    expect((await h.request("GET", "/readyz")).status).toBe(200)
    const other = lockFromAnotherProcess(h, path)

    const blocked = await h.request("GET", "/readyz")
    expect(blocked.status).toBe(503)
    expect(blocked.headers.get("content-type")).toContain("application/json")
    expect(blocked.body).toEqual({ status: "unavailable", reason: "the database is not writable" })
    expect(lines.some((l) => JSON.parse(l).msg === "readiness check failed")).toBe(true)
    // /healthz only says the process is up.
    expect((await h.request("GET", "/healthz")).status).toBe(200)

    other.run("ROLLBACK")
    expect((await h.request("GET", "/readyz")).status).toBe(200)
    // The failed check left no transaction open behind it: writes still work.
    const { key, phone } = await h.seedTenant()
    expect((await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "hi" } })).status).toBe(201)
  })

  test("/readyz answers 503 once the database is closed", async () => {
    h = await createHarness()
    h.services.sqlite!.close()
    const res = await h.request("GET", "/readyz")
    expect(res.status).toBe(503)
    expect(res.body).toEqual({ status: "unavailable", reason: "the database is not writable" })
    expect((await h.request("GET", "/healthz")).status).toBe(200)
  })
})

describe("a database locked by another process", () => {
  test("fails background writes with a log line, not an uncaught exception, and they work again once it lets go", async () => {
    const lines: string[] = []
    const path = join(tempDir(), "wagate.db")
    h = await createHarness({
      databasePath: path,
      logger: createLogger({ level: "debug", format: "json", nowIso: () => new Date().toISOString(), write: (l) => lines.push(l) }),
    })
    const { key, phone } = await h.seedTenant()
    const sent = await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "hi" } })
    expect(sent.status).toBe(201)
    // Let the after-response work (usage counting) run, so its flush timer is set now.
    await h.settle()
    const other = lockFromAnotherProcess(h, path)

    // The delivered receipt and the usage counters fall due while the lock is held.
    await h.advance(1_000)
    await h.settle()
    const messages = lines.map((l) => JSON.parse(l).msg as string)
    expect(messages).toContain("applying sandbox transitions failed")
    expect(messages).toContain("writing usage counters failed")
    // A request that needs the writer gets the error envelope, not a dropped connection.
    const refused = await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "hi" } })
    expect(refused.status).toBe(500)
    expect(refused.body).toMatchObject({ success: false, statusCode: 500 })

    other.run("ROLLBACK")
    expect((await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "hi" } })).status).toBe(201)

    // The failed delivered receipt is not lost: the read due at 3 s brings it along, first.
    await h.advance(2_000)
    const createdMs = Date.parse(sent.body.data.createdAt)
    const read = (await h.request("GET", `/v1/messages/${sent.body.data.id}`, { key })).body.data
    expect(read).toMatchObject({ status: "read", deliveredAt: new Date(createdMs + 1_000).toISOString(), readAt: new Date(createdMs + 3_000).toISOString() })
    // Its retry, later, finds nothing left to do.
    await h.advance(SANDBOX_RETRY_MS)
    expect((await h.request("GET", `/v1/messages/${sent.body.data.id}`, { key })).body.data).toEqual(read)
  })

  test("a sandbox transition whose write failed is tried again a few seconds later", async () => {
    const path = join(tempDir(), "wagate.db")
    h = await createHarness({ databasePath: path, env: { WAGATE_SANDBOX_DELIVERED_MS: "1000", WAGATE_SANDBOX_READ_MS: "3600000" } })
    const { key, phone } = await h.seedTenant()
    const sent = await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "hi" } })
    await h.settle()
    const other = lockFromAnotherProcess(h, path)
    await h.advance(1_000)
    await h.settle()
    other.run("ROLLBACK")
    expect((await h.request("GET", `/v1/messages/${sent.body.data.id}`, { key })).body.data.status).toBe("sent")

    await h.advance(SANDBOX_RETRY_MS)
    const later = (await h.request("GET", `/v1/messages/${sent.body.data.id}`, { key })).body.data
    expect(later).toMatchObject({ status: "delivered", deliveredAt: new Date(Date.parse(sent.body.data.createdAt) + 1_000).toISOString() })
  })
})

describe("/metrics", () => {
  test("needs the admin token: 401 envelope without it or with an API key", async () => {
    h = await createHarness()
    const { key } = await h.seedTenant()
    expectErrorEnvelope(await h.request("GET", "/metrics"), 401, "Unauthorized", "/metrics")
    expectErrorEnvelope(await h.request("GET", "/metrics", { key }), 401, "Unauthorized", "/metrics")
    expectErrorEnvelope(await h.request("GET", "/metrics", { key: "adm_not_the_token_00000000000000000000000000" }), 401, "Unauthorized", "/metrics")
    const ok = await h.request("GET", "/metrics", { key: await h.adminToken() })
    expect(ok.status).toBe(200)
    expect(ok.body).toContain("# TYPE wagate_http_requests_total counter")
  })

  test("with WAGATE_METRICS_PUBLIC=1 it is served without a token", async () => {
    h = await createHarness({ env: { WAGATE_METRICS_PUBLIC: "1" } })
    const res = await h.request("GET", "/metrics")
    expect(res.status).toBe(200)
    expect(res.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8")
    parsePrometheus(res.body as string)
  })

  test("a fresh server's text parses and declares every family with its type", async () => {
    h = await createHarness()
    const { types, samples } = await scrape(h, await h.adminToken())
    expect(Object.fromEntries(types)).toEqual({
      wagate_http_requests_total: "counter",
      wagate_poll_votes_kept: "gauge",
      wagate_poll_votes_total: "counter",
      wagate_rate_limit_rejections_total: "counter",
      wagate_webhook_attempts_total: "counter",
      wagate_webhook_delivery_lag_seconds: "histogram",
      wagate_encrypted_edits_total: "counter",
      wagate_messages: "gauge",
      wagate_phones: "gauge",
      wagate_webhook_deliveries_pending: "gauge",
    })
    expect(valueOf(samples, "wagate_webhook_deliveries_pending")).toBe(0)
  })

  test("every sample of every family carries node=\"<WAGATE_NODE_ID>\", the gauges and the label-less series included", async () => {
    h = await createHarness({ env: { WAGATE_NODE_ID: "eu-west.node_7" } })
    const account = await h.seedAccount({ rateLimitPerMinute: 1 })
    const phone = await h.seedPhone(account.id)
    const key = await h.seedKey(account.id)
    expect((await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "hi" } })).status).toBe(201)
    expect((await h.request("GET", "/v1/account", { key })).status).toBe(429)
    const { samples, types } = await scrape(h, await h.adminToken())
    const families = new Set(samples.map((s) => s.name.replace(/_(bucket|sum|count)$/, "")))
    // Every family but the webhook ones (no endpoint here), encrypted edits and poll votes (no live phone) has samples.
    expect([...types.keys()].filter((f) => !families.has(f)).sort()).toEqual(["wagate_encrypted_edits_total", "wagate_poll_votes_total", "wagate_webhook_attempts_total", "wagate_webhook_delivery_lag_seconds"])
    expect(samples.filter((s) => s.labels.node !== "eu-west.node_7")).toEqual([])
  })

  test("after sends, a 429, failed authentications and webhook attempts, the series carry the expected values", async () => {
    // Public metrics: the failed authentications below throttle this client, and a throttled
    // client is refused /metrics even with the right token.
    h = await createHarness({ env: { WAGATE_METRICS_PUBLIC: "1" } })
    receiver = new WebhookReceiver()
    const { account, key, phone } = await h.seedTenant()
    await h.seedPhone(account.id)
    await addEndpoint(h, account.id, receiver.url(), { events: ["message.sent"] })
    // h.adminToken() issues a new token each time (addEndpoint took one): take ours last.
    const admin = await h.adminToken()
    // The first webhook attempt fails (a retry stays pending), the others succeed.
    receiver.respondWith({ status: 500 })

    const sendTo = (to: string) => h!.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to, content: "hi" } })
    const sent: string[] = []
    for (const to of ["+14155550199", "+14155550198", "+14155550197", "+12025550104", "+12025550101"]) {
      const res = await sendTo(to)
      expect(res.status).toBe(201)
      sent.push(res.body.data.id)
    }
    // Four message.sent events (the +12025550101 send is born failed).
    await h.advance(10)
    await receiver.waitFor(4)
    // Delivered receipts for the three ordinary recipients (the sandbox's default 1 s).
    await h.advance(1_000)

    expect((await h.request("GET", `/v1/messages/${sent[0]}`, { key })).status).toBe(200)
    expect((await h.request("GET", `/v1/messages/${sent[1]}`, { key })).status).toBe(200)
    expect((await h.request("GET", "/v1/messages/msg_00000000000000000000000000", { key })).status).toBe(404)

    // A key whose account allows one request a minute: the second is 429.
    const slowAccount = await h.seedAccount({ rateLimitPerMinute: 1 })
    const slowKey = await h.seedKey(slowAccount.id)
    expect((await h.request("GET", "/v1/account", { key: slowKey })).status).toBe(200)
    expect((await h.request("GET", "/v1/account", { key: slowKey })).status).toBe(429)

    // Failed authentications: 30 a minute per client and kind of credential, then 429; the admin token has a budget of its own.
    for (let i = 0; i < 30; i++) expect((await h.request("GET", "/v1/account", { key: "sk_test_wrong" })).status).toBe(401)
    expect((await h.request("GET", "/v1/account", { key: "sk_test_wrong" })).status).toBe(429)
    expect((await h.request("GET", "/admin/v1/accounts", { key: "adm_wrong" })).status).toBe(401)

    await waitUntil(async () => {
      const { samples } = await scrape(h!, admin)
      return (valueOf(samples, "wagate_webhook_attempts_total", { result: "succeeded" }) ?? 0) + (valueOf(samples, "wagate_webhook_attempts_total", { result: "failed" }) ?? 0) === 4
    }, 5_000, "four recorded webhook attempts")

    const { samples, text } = await scrape(h, admin)
    const http = (route: string, method: string, status: number) => valueOf(samples, "wagate_http_requests_total", { route, method, status: String(status) })

    // HTTP requests by route template, method and status.
    expect(http("/v1/messages/send", "POST", 201)).toBe(5)
    expect(http("/v1/messages/:messageId", "GET", 200)).toBe(2)
    expect(http("/v1/messages/:messageId", "GET", 404)).toBe(1)
    expect(http("/v1/account", "GET", 200)).toBe(1)
    expect(http("/v1/account", "GET", 401)).toBe(30)
    expect(http("/v1/account", "GET", 429)).toBe(2)
    expect(http("/admin/v1/accounts", "GET", 401)).toBe(1)
    expect(http("/admin/v1/accounts/:accountId/webhooks", "POST", 201)).toBe(1)
    // Ids never become labels.
    for (const id of sent) expect(text).not.toContain(id)
    expect(text).not.toContain("msg_00000000000000000000000000")
    for (const s of samples.filter((s) => s.name === "wagate_http_requests_total")) {
      expect(s.labels.route).not.toMatch(/msg_|acc_|whk_|ph_/)
      expect(Object.keys(s.labels).sort()).toEqual(["method", "node", "route", "status"])
    }

    // Rate-limit rejections by limiter.
    expect(valueOf(samples, "wagate_rate_limit_rejections_total", { limiter: "key" })).toBe(1)
    expect(valueOf(samples, "wagate_rate_limit_rejections_total", { limiter: "failed_auth" })).toBe(1)

    // Messages by environment and status, as the API counts them.
    const listed = await h.request("GET", "/v1/messages?limit=100", { key })
    const byStatus = new Map<string, number>()
    expect(listed.body.data.pagination.total).toBe(5)
    for (const m of listed.body.data.data) byStatus.set(m.status, (byStatus.get(m.status) ?? 0) + 1)
    expect(Object.fromEntries(byStatus)).toEqual({ delivered: 3, sent: 1, failed: 1 })
    for (const status of ["pending", "sent", "delivered", "read", "failed"]) {
      expect(valueOf(samples, "wagate_messages", { environment: "test", status }) ?? 0).toBe(byStatus.get(status) ?? 0)
    }
    expect(samples.filter((s) => s.name === "wagate_messages" && s.labels.environment === "live" && s.value !== 0)).toEqual([])

    // Phones by connection status, as the API lists them.
    const phones = await h.request("GET", "/v1/phone-numbers", { key })
    expect(phones.body.data.map((p: { connectionStatus: string }) => p.connectionStatus)).toEqual(["unpaired", "unpaired"])
    expect(valueOf(samples, "wagate_phones", { status: "unpaired" })).toBe(2)

    // Webhook attempts by result, and the retry that is still pending.
    expect(valueOf(samples, "wagate_webhook_attempts_total", { result: "succeeded" })).toBe(3)
    expect(valueOf(samples, "wagate_webhook_attempts_total", { result: "failed" })).toBe(1)
    expect(valueOf(samples, "wagate_webhook_attempts_total", { result: "exhausted" })).toBeUndefined()
    expect(valueOf(samples, "wagate_webhook_deliveries_pending")).toBe(1)

    // The lag histogram: buckets ascending and cumulative, +Inf equal to _count, one per attempt.
    const buckets = samples
      .filter((s) => s.name === "wagate_webhook_delivery_lag_seconds_bucket")
      .map((s) => ({ le: s.labels.le === "+Inf" ? Infinity : Number(s.labels.le), value: s.value }))
    expect(buckets.length).toBeGreaterThan(1)
    expect(buckets.at(-1)!.le).toBe(Infinity)
    for (let i = 1; i < buckets.length; i++) {
      expect(buckets[i]!.le).toBeGreaterThan(buckets[i - 1]!.le)
      expect(buckets[i]!.value).toBeGreaterThanOrEqual(buckets[i - 1]!.value)
    }
    const count = valueOf(samples, "wagate_webhook_delivery_lag_seconds_count")
    expect(count).toBe(4)
    expect(buckets.at(-1)!.value).toBe(count!)
    expect(valueOf(samples, "wagate_webhook_delivery_lag_seconds_sum")).toBeGreaterThanOrEqual(0)
  })
})

describe("logs", () => {
  test("never contain the Authorization header, an API key, the admin token or a webhook secret", async () => {
    const lines: string[] = []
    const path = join(tempDir(), "wagate.db")
    h = await createHarness({
      databasePath: path,
      logger: createLogger({ level: "debug", format: "json", nowIso: () => new Date().toISOString(), write: (l) => lines.push(l) }),
    })
    receiver = new WebhookReceiver()
    // Every webhook attempt fails, so the dispatcher logs each one.
    receiver.fallback = { status: 500, body: "receiver error" }
    const admin = await h.adminToken()
    const { account, key, phone } = await h.seedTenant()

    // Secrets handed out through the admin API.
    const created = await h.request("POST", `/admin/v1/accounts/${account.id}/keys`, {
      key: admin,
      body: { environment: "live", scopes: ["messages:send", "messages:read"], name: "ci" },
    })
    expect(created.status).toBe(201)
    const liveKey = created.body.data.key as string
    const hook = await h.request("POST", `/admin/v1/accounts/${account.id}/webhooks`, {
      key: admin,
      body: { url: receiver.url(), environment: "test", events: ["*"] },
    })
    expect(hook.status).toBe(201)
    const rotated = await h.request("POST", `/admin/v1/webhooks/${hook.body.data.id}/rotate-secret`, { key: admin })
    expect(rotated.status).toBe(200)
    const secrets = [key, liveKey, admin, hook.body.data.secret as string, rotated.body.data.secret as string]
    const wrongKey = `sk_test_${"Z".repeat(43)}`

    // Use them all, on success and failure paths.
    const send = await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "hi" } })
    expect(send.status).toBe(201)
    expect((await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber } })).status).toBe(400)
    expect((await h.request("GET", "/v1/account", { key: liveKey })).status).toBe(200)
    expect((await h.request("GET", "/v1/account", { key: wrongKey })).status).toBe(401)
    expect((await h.request("GET", "/admin/v1/accounts", { key: wrongKey })).status).toBe(401)
    expect((await h.request("GET", "/metrics", { key: admin })).status).toBe(200)
    await h.advance(10)
    await receiver.waitFor(1)
    await waitUntil(() => lines.some((l) => l.includes("webhook attempt failed")), 5_000, "the failed attempt to be logged")

    // Failure paths that log errors: readiness without the write lock, then requests that fail
    // inside the server (500) once the database is gone.
    h.services.sqlite!.run("PRAGMA busy_timeout = 50")
    const other = new Database(path)
    other.run("BEGIN IMMEDIATE")
    expect((await h.request("GET", "/readyz", { key: admin })).status).toBe(503)
    other.run("ROLLBACK")
    other.close()
    h.services.sqlite!.close()
    expect((await h.request("GET", "/v1/account", { key })).status).toBe(500)
    expect((await h.request("GET", "/admin/v1/accounts", { key: admin })).status).toBe(500)
    await h.close()
    h = undefined

    const messages = lines.map((l) => JSON.parse(l).msg as string)
    expect(messages).toContain("webhook attempt failed")
    expect(messages).toContain("readiness check failed")
    expect(messages).toContain("request failed")
    const all = lines.join("\n")
    for (const secret of [...secrets, wrongKey]) {
      expect(all).not.toContain(secret)
      // Nor any long piece of it.
      expect(all).not.toContain(secret.slice(-20))
    }
    expect(all).not.toMatch(/Bearer\s+(?!\[redacted\])\S/)
  })
})
