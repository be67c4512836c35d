import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { EVENT_NAMES } from "../../src/domain/event-catalogue"
import { EVENT_GROUPS } from "../../src/lib/event-filter"
import { join } from "node:path"
import { createApp } from "../../src/app"
import { loadConfig } from "../../src/config"
import { createServices, type Services } from "../../src/deps"
import { resendDelivery } from "../../src/domain/webhook-endpoints"
import { silentLogger } from "../../src/lib/logger"
import { DATABASE_FILE } from "../../src/store/sqlite/db"
import type { FetchLike } from "../../src/webhooks/sender"
import { TestClock } from "../helpers/test-clock"
import { verifySignature } from "../helpers/verify-signature"
import { WebhookReceiver, waitUntil } from "../helpers/webhook-receiver"
import { cli, makeDataDir, printedAccountId, printedKey, removeDataDir } from "./run-cli"
import { SLOW_HOOK_TIMEOUT_MS } from "../helpers/timeouts"

/*
 * `wagate webhooks …` (API-DECISIONS §12). The commands work on the data directory directly; the
 * delivery tests run a server beside them: the services and app `serve` builds, on the same
 * database file, with a test clock, answering through app.handle and posting to a real receiver.
 */

let dir: string
let accountId: string
beforeEach(async () => {
  dir = makeDataDir()
  accountId = printedAccountId((await cli(dir, ["accounts", "create", "--name", "Acme", "--email", "ops@acme.example"])).stdout)
}, SLOW_HOOK_TIMEOUT_MS)
afterEach(() => removeDataDir(dir))

const SECRET = /^ {2}(whsec_[A-Za-z0-9+/]{43}=)$/m
const DAY_MS = 24 * 60 * 60 * 1000
/** A recipient the sandbox leaves at `sent`: exactly one event per send. */
const OFFLINE_RECIPIENT = "+12025550104"

/** The id and secret a `webhooks add` printed. */
function printedWebhook(out: string): { id: string; secret: string } {
  const id = /^Added (?:test|live) webhook (wh_[0-9a-z]{26}) → /m.exec(out)?.[1]
  const secret = SECRET.exec(out)?.[1]
  if (!id || !secret) throw new Error(`no webhook id or secret in output:\n${out}`)
  return { id, secret }
}

async function listJson(extra: string[] = []): Promise<any[]> {
  const res = await cli(dir, ["webhooks", "list", "--json", ...extra])
  expect(res.code).toBe(0)
  return JSON.parse(res.stdout)
}

describe("wagate webhooks add and list", () => {
  test("add prints the endpoint and its secret, once; list, as a table or --json, never prints a secret", async () => {
    const res = await cli(dir, ["webhooks", "add", "--url", "https://hooks.example.com/wagate", "--events", "message.sent,message.read"])
    expect(res.code).toBe(0)
    expect(res.stderr).toBe("")
    const { id, secret } = printedWebhook(res.stdout)
    expect(res.stdout).toContain(`Added test webhook ${id} → https://hooks.example.com/wagate (events: message.sent, message.read).`)
    expect(res.stdout).toContain("Signing secret (shown only now):")
    expect(res.stdout.split(secret)).toHaveLength(2)
    expect(Buffer.from(secret.slice("whsec_".length), "base64")).toHaveLength(32)

    const table = await cli(dir, ["webhooks", "list"])
    expect(table.code).toBe(0)
    expect(table.stdout).toMatch(new RegExp(`^${id} +test +https://hooks\\.example\\.com/wagate +message\\.sent,message\\.read +yes +\\S+$`, "m"))
    const json = await cli(dir, ["webhooks", "list", "--json"])
    expect(JSON.parse(json.stdout)).toEqual([
      expect.objectContaining({ id, accountId, environment: "test", url: "https://hooks.example.com/wagate", events: ["message.sent", "message.read"], enabled: true }),
    ])
    // `webhooks` alone is `webhooks list`.
    const bare = await cli(dir, ["webhooks"])
    expect(bare.stdout).toBe(table.stdout)
    for (const out of [table.stdout, json.stdout, bare.stdout]) {
      expect(out).not.toContain(secret)
      expect(out).not.toContain("whsec_")
    }
    expect(Object.keys(JSON.parse(json.stdout)[0])).not.toContain("secret")
    expect(Object.keys(JSON.parse(json.stdout)[0])).not.toContain("previousSecret")
  })

  test("add defaults to the test environment and every event; --env live and --events choose them", async () => {
    const { id: first } = printedWebhook((await cli(dir, ["webhooks", "add", "--url", "http://127.0.0.1:5678/webhook/n8n"])).stdout)
    const live = await cli(dir, ["webhooks", "add", "--url", "https://hooks.example.com/live", "--env", "live", "--events", "phone.connected, phone.disconnected"])
    expect(live.code).toBe(0)
    expect(live.stdout).toMatch(/^Added live webhook wh_/)
    const { id: second } = printedWebhook(live.stdout)
    const list = await listJson()
    expect(list.map((e) => [e.id, e.environment, e.url, e.events])).toEqual([
      [first, "test", "http://127.0.0.1:5678/webhook/n8n", ["*"]],
      [second, "live", "https://hooks.example.com/live", ["phone.connected", "phone.disconnected"]],
    ])
  })

  test("with several accounts --account chooses one, and leaving it out is a usage error", async () => {
    const other = printedAccountId((await cli(dir, ["accounts", "create", "--name", "Other", "--email", "o@other.example"])).stdout)
    const refused = await cli(dir, ["webhooks", "add", "--url", "https://hooks.example.com/x"])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain("error: There are 2 accounts: pass --account")
    const { id } = printedWebhook((await cli(dir, ["webhooks", "add", "--url", "https://hooks.example.com/x", "--account", other])).stdout)
    expect((await listJson(["--account", other])).map((e) => e.id)).toEqual([id])
    expect(await listJson(["--account", accountId])).toEqual([])
  })
})

describe("wagate webhooks update, remove and rotate-secret", () => {
  test("update --disable, --enable, --events and --url change only what they name", async () => {
    const { id } = printedWebhook((await cli(dir, ["webhooks", "add", "--url", "https://hooks.example.com/a", "--events", "message.sent"])).stdout)

    const disabled = await cli(dir, ["webhooks", "update", id, "--disable"])
    expect(disabled.code).toBe(0)
    expect(disabled.stdout).toBe(`Updated webhook ${id}: https://hooks.example.com/a, events message.sent, disabled.\n`)
    expect((await listJson())[0]).toMatchObject({ enabled: false, url: "https://hooks.example.com/a", events: ["message.sent"] })
    expect((await cli(dir, ["webhooks", "list"])).stdout).toMatch(new RegExp(`^${id} .* no +\\S+$`, "m"))

    expect((await cli(dir, ["webhooks", "update", id, "--events", "message.delivered,message.read"])).code).toBe(0)
    expect((await listJson())[0]).toMatchObject({ enabled: false, events: ["message.delivered", "message.read"] })

    expect((await cli(dir, ["webhooks", "update", id, "--url", "https://hooks.example.com/b", "--enable"])).code).toBe(0)
    expect((await listJson())[0]).toMatchObject({ enabled: true, url: "https://hooks.example.com/b", events: ["message.delivered", "message.read"] })

    expect((await cli(dir, ["webhooks", "update", id, "--events", "*"])).code).toBe(0)
    expect((await listJson())[0].events).toEqual(["*"])
  })

  test("remove deletes the endpoint; removing it again exits 1", async () => {
    const { id } = printedWebhook((await cli(dir, ["webhooks", "add", "--url", "https://hooks.example.com/a"])).stdout)
    const { id: kept } = printedWebhook((await cli(dir, ["webhooks", "add", "--url", "https://hooks.example.com/b"])).stdout)
    const removed = await cli(dir, ["webhooks", "remove", id])
    expect(removed.code).toBe(0)
    expect(removed.stdout).toBe(`Removed webhook ${id} (https://hooks.example.com/a) and its delivery log.\n`)
    expect((await listJson()).map((e) => e.id)).toEqual([kept])
    const again = await cli(dir, ["webhooks", "remove", id])
    expect(again.code).toBe(1)
    expect(again.stderr).toBe(`error: Webhook endpoint ${id} not found\n`)
  })

  test("rotate-secret prints a new secret once and when the previous one stops signing, 24 h later", async () => {
    const clock = new TestClock()
    const { id, secret } = printedWebhook((await cli(dir, ["webhooks", "add", "--url", "https://hooks.example.com/a"], { clock })).stdout)
    clock.advance(3_600_000)
    const res = await cli(dir, ["webhooks", "rotate-secret", id], { clock })
    expect(res.code).toBe(0)
    const rotated = SECRET.exec(res.stdout)?.[1]
    expect(rotated).toBeDefined()
    expect(rotated).not.toBe(secret)
    expect(res.stdout).toContain(`New signing secret for ${id} (shown only now):`)
    expect(res.stdout).toContain(`The previous secret keeps signing beside it until ${new Date(clock.nowMs() + DAY_MS).toISOString()}.`)
    expect(res.stdout).not.toContain(secret)
    const list = await cli(dir, ["webhooks", "list", "--json"])
    expect(list.stdout).not.toContain(rotated!)
    expect(list.stdout).not.toContain("whsec_")
    expect(JSON.parse(list.stdout)[0].previousSecretExpiresAt).toBe(new Date(clock.nowMs() + DAY_MS).toISOString())
  })
})

describe("wagate webhooks: mistakes get one clear line and exit 1 (failure) or 2 (usage)", () => {
  const EVENTS = `events must be ["*"] or a non-empty list of: ${[...EVENT_NAMES, ...EVENT_GROUPS].join(", ")}`
  test.each([
    [["webhooks", "add"], 2, "error: webhooks add needs --url"],
    [["webhooks", "add", "--url", "ftp://hooks.example.com"], 1, "error: url must use http or https\n"],
    [["webhooks", "add", "--url", "https://u:p@hooks.example.com"], 1, "error: url must not contain credentials: verify the X-Service-Signature header instead\n"],
    [["webhooks", "add", "--url", "https://hooks.example.com", "--events", "message.sent,message.bogus"], 1, `error: ${EVENTS}\n`],
    [
      ["webhooks", "add", "--url", "https://hooks.example.com/t0ken\r\n?key=s3cret"],
      1,
      "error: url must not contain control characters: found \\r at character 32 (the URL for https://hooks.example.com)\n",
    ],
    [["webhooks", "add", "--url", "ftp://hooks.example.com", "--events", "message.bogus"], 1, `error: url must use http or https; ${EVENTS}\n`],
    [["webhooks", "add", "--url", "https://hooks.example.com", "--env", "production"], 2, "error: --env must be test or live"],
    [["webhooks", "add", "--url"], 2, "error: --url needs a value"],
    [["webhooks", "update"], 2, "error: webhooks update needs a WEBHOOK_ID"],
    [["webhooks", "update", "wh_missing", "--enable", "--disable"], 2, "error: use --enable or --disable, not both"],
    [["webhooks", "update", "wh_missing", "--disable"], 1, "error: Webhook endpoint wh_missing not found\n"],
    [["webhooks", "remove"], 2, "error: webhooks remove needs a WEBHOOK_ID"],
    [["webhooks", "rotate-secret", "wh_missing"], 1, "error: Webhook endpoint wh_missing not found\n"],
    [["webhooks", "deliveries", "wh_missing"], 1, "error: Webhook endpoint wh_missing not found\n"],
    [["webhooks", "resend"], 2, "error: webhooks resend needs a DELIVERY_ID"],
    [["webhooks", "resend", "whd_missing"], 1, "error: Delivery whd_missing not found\n"],
    [["webhooks", "list", "--account", "acc_missing"], 1, "error: Account acc_missing not found\n"],
    [["webhooks", "frobnicate"], 2, 'error: Unknown webhooks command "frobnicate"'],
  ] as const)("wagate %p exits %d", async (argv, code, message) => {
    const res = await cli(dir, [...argv])
    expect(res.code).toBe(code)
    expect(res.stdout).toBe("")
    expect(res.stderr.startsWith(message)).toBe(true)
    if (code === 2) expect(res.stderr).toContain("Run `wagate help` for usage.")
    expect(await listJson()).toEqual([])
  })

  test.each([
    [["--status", "done"], "error: --status must be pending, succeeded or failed"],
    [["--limit", "0"], "error: --limit must be a whole number from 1 to 100"],
    [["--limit", "101"], "error: --limit must be a whole number from 1 to 100"],
    [["--page", "x"], "error: --page must be a whole number from 1 to 1000000000"],
  ])("wagate webhooks deliveries ID %p exits 2", async (flags, message) => {
    const { id } = printedWebhook((await cli(dir, ["webhooks", "add", "--url", "https://hooks.example.com/a"])).stdout)
    const res = await cli(dir, ["webhooks", "deliveries", id, ...flags])
    expect(res.code).toBe(2)
    expect(res.stderr).toStartWith(message)
  })
})

/** A server on the data directory: what `serve` builds, on a test clock, answering in-process. */
interface Server {
  services: Services
  send(key: string, to?: string): Promise<void>
  deliveries(endpointId: string): { id: string; status: string; attemptCount: number; resentFrom: string | null }[]
  waitForAttempts(deliveryId: string, count: number, status?: string): Promise<void>
  close(): Promise<void>
}

async function startServer(clock: TestClock, env: Record<string, string>): Promise<Server> {
  const services = await createServices(loadConfig({ WAGATE_DATA_DIR: dir, ...env }), {
    clock,
    logger: silentLogger,
    databasePath: join(dir, DATABASE_FILE),
  })
  await services.start()
  const app = createApp(services)
  const row = (id: string) =>
    services.sqlite!.query("SELECT status, attempt_count AS n FROM webhook_deliveries WHERE id = ?").get(id) as { status: string; n: number } | null
  return {
    services,
    async send(key, to = OFFLINE_RECIPIENT) {
      const res = await app.handle(
        new Request("http://localhost/v1/messages/send", {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ fromPhoneId: "+14155550123", to, content: "hello" }),
        }),
      )
      if (res.status !== 201) throw new Error(`send failed: ${res.status} ${await res.text()}`)
    },
    deliveries: (endpointId) =>
      services.sqlite!
        .query("SELECT id, status, attempt_count AS attemptCount, resent_from AS resentFrom FROM webhook_deliveries WHERE endpoint_id = ? ORDER BY created_at_ms, id")
        .all(endpointId) as { id: string; status: string; attemptCount: number; resentFrom: string | null }[],
    async waitForAttempts(deliveryId, count, status) {
      await waitUntil(
        () => {
          const r = row(deliveryId)
          return (r?.n ?? 0) >= count && (status === undefined || r?.status === status)
        },
        5_000,
        `${count} recorded attempts of ${deliveryId}`,
      )
      // Let the batch commit, and the retry it schedules afterwards, happen before the clock moves on.
      await new Promise((r) => setImmediate(r))
    },
    close: () => services.stop(),
  }
}

describe("wagate webhooks deliveries and resend, beside a running server", () => {
  let clock: TestClock
  let receiver: WebhookReceiver
  let server: Server
  let key: string
  let endpoint: { id: string; secret: string }
  const run = (argv: string[]) => cli(dir, argv, { clock })

  beforeEach(async () => {
    clock = new TestClock()
    receiver = new WebhookReceiver()
    key = printedKey((await run(["keys", "create"])).stdout)
    expect((await run(["phones", "add", "+14155550123"])).code).toBe(0)
    endpoint = printedWebhook((await run(["webhooks", "add", "--url", receiver.url(), "--events", "message.sent"])).stdout)
    // One retry, one second after the first attempt.
    server = await startServer(clock, { WAGATE_WEBHOOK_RETRY_OFFSETS_MS: "1000" })
  }, SLOW_HOOK_TIMEOUT_MS)
  afterEach(async () => {
    await server.close()
    await receiver.stop()
  }, SLOW_HOOK_TIMEOUT_MS)

  /** Sends once with the receiver answering 500 twice: a delivery that has failed after its retry. */
  async function failedDelivery(): Promise<string> {
    receiver.respondWith({ status: 500 }, { status: 500 })
    await server.send(key)
    const [delivery] = server.deliveries(endpoint.id)
    await server.waitForAttempts(delivery!.id, 1)
    clock.advance(1_000)
    await server.waitForAttempts(delivery!.id, 2, "failed")
    return delivery!.id
  }

  test("deliveries prints each delivery with every attempt: number, time, status code, latency and error; --status filters; --json", async () => {
    const t0 = clock.nowMs()
    receiver.respondWith({ delayMs: 400, status: 500 }, { status: 500 })
    await server.send(key)
    const [delivery] = server.deliveries(endpoint.id)
    // The receiver holds its first answer for 400 ms of real time; meanwhile 250 ms pass on the server's clock.
    await receiver.waitFor(1)
    clock.advance(250)
    await server.waitForAttempts(delivery!.id, 1)
    clock.advance(750)
    await server.waitForAttempts(delivery!.id, 2, "failed")

    const res = await run(["webhooks", "deliveries", endpoint.id])
    expect(res.code).toBe(0)
    const lines = res.stdout.trimEnd().split("\n")
    expect(lines[0]).toMatch(/^DELIVERY +EVENT +STATUS +ATTEMPTS +LAST RESULT +NEXT ATTEMPT$/)
    expect(lines[1]).toMatch(new RegExp(`^${delivery!.id} +message\\.sent +failed +2 +500 +-$`))
    expect(lines[2]).toMatch(new RegExp(`^ {2}#1 +${new Date(t0).toISOString()} +500 +250 ms +HTTP 500 +-$`))
    expect(lines[3]).toMatch(new RegExp(`^ {2}#2 +${new Date(t0 + 1_000).toISOString()} +500 +0 ms +HTTP 500 +-$`))
    expect(lines[4]).toBe("page 1, 1 of 1")
    expect(lines).toHaveLength(5)

    const none = await run(["webhooks", "deliveries", endpoint.id, "--status", "succeeded"])
    expect(none.stdout.trimEnd().split("\n")).toEqual([expect.stringMatching(/^DELIVERY/), "page 1, 0 of 0"])

    const json = JSON.parse((await run(["webhooks", "deliveries", endpoint.id, "--status", "failed", "--json"])).stdout)
    expect(json.pagination).toEqual({ total: 1, page: 1, limit: 20, totalPages: 1 })
    expect(json.data[0]).toMatchObject({ id: delivery!.id, status: "failed", attemptCount: 2 })
    expect(json.data[0].attempts.map((a: { attempt: number; statusCode: number; latencyMs: number }) => [a.attempt, a.statusCode, a.latencyMs])).toEqual([
      [1, 500, 250],
      [2, 500, 0],
    ])
  })

  test("deliveries never prints a raw control character, even from a row an older version stored raw", async () => {
    const id = await failedDelivery()
    const raw = "\u001b]0;pwned\u0007\u001b[2J\r\u0085\u009b31m"
    server.services.sqlite!.query("UPDATE webhook_attempts SET error = ? WHERE delivery_id = ?").run(raw, id)
    server.services.sqlite!.query("UPDATE webhook_deliveries SET last_status_code = NULL, last_error = ? WHERE id = ?").run(raw, id)
    const res = await run(["webhooks", "deliveries", endpoint.id])
    expect(res.code).toBe(0)
    expect(res.stdout.replaceAll("\n", "")).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/)
    expect(res.stdout).toContain("\\x1b]0;pwned\\x07\\x1b[2J\\r\\x85\\x9b31m")
  })

  test("resend of a delivery still being retried exits 1 and queues nothing", async () => {
    receiver.respondWith({ status: 500 })
    await server.send(key)
    const [delivery] = server.deliveries(endpoint.id)
    await server.waitForAttempts(delivery!.id, 1)
    const res = await run(["webhooks", "resend", delivery!.id])
    expect(res.code).toBe(1)
    expect(res.stderr).toBe(`error: Delivery ${delivery!.id} is still being attempted; resend it once it has succeeded or failed\n`)
    expect(server.deliveries(endpoint.id)).toHaveLength(1)
  })

  test("the CLI leaves attempts to the server: services that were never started post nothing when a resend is written", async () => {
    const failed = await failedDelivery()
    const posted: string[] = []
    const spy: FetchLike = async (url) => {
      posted.push(url)
      return new Response("ok")
    }
    // What every short command builds (services that are never started), with a fetch that records.
    const cliServices = await createServices(loadConfig({ WAGATE_DATA_DIR: dir }), { clock, logger: silentLogger, databasePath: join(dir, DATABASE_FILE), fetch: spy })
    try {
      const created = await resendDelivery(cliServices.ctx, failed)
      // A dispatcher that acts on the commit calls fetch before the write resolves.
      expect(posted).toEqual([])
      expect(server.deliveries(endpoint.id).find((d) => d.id === created.delivery.id)).toMatchObject({ status: "pending", attemptCount: 0, resentFrom: failed })
    } finally {
      await cliServices.stop()
    }
  })

  test("A resend made by the CLI beside a running server is delivered: same X-Service-Event-Id, X-Service-Delivery-Attempt: 1, signed with the secret add printed", async () => {
    const failed = await failedDelivery()
    expect(receiver.received).toHaveLength(2)
    receiver.fallback = { status: 200 }

    const res = await run(["webhooks", "resend", failed])
    expect(res.code).toBe(0)
    const newId = /^Queued delivery (whd_[0-9a-z]{26}) of message\.sent \(resent from (whd_[0-9a-z]{26})\)\.$/m.exec(res.stdout)
    expect(newId?.[2]).toBe(failed)
    const resent = newId![1]!
    const queued = await run(["webhooks", "deliveries", endpoint.id, "--status", "pending"])
    expect(queued.stdout).toMatch(new RegExp(`^${resent} +message\\.sent +pending +0 +- +${new Date(clock.nowMs()).toISOString()}$`, "m"))

    // The server notices the CLI's write on its next look at the database, within a second.
    clock.advance(1_000)
    const hooks = await receiver.waitFor(3)
    await server.waitForAttempts(resent, 1, "succeeded")
    const [first, , again] = hooks
    expect(again!.headers["x-service-event-id"]).toBe(first!.headers["x-service-event-id"]!)
    expect(again!.headers["x-service-delivery-attempt"]).toBe("1")
    expect(again!.headers["x-service-event"]).toBe("message.sent")
    expect(again!.body).toBe(first!.body)
    expect(verifySignature(again!.headers["x-service-signature"]!, again!.body, endpoint.secret, Math.floor(clock.nowMs() / 1000))).toBe(true)
    // Delivered once, by the server: the CLI process posted nothing itself.
    expect(receiver.received).toHaveLength(3)

    const log = await run(["webhooks", "deliveries", endpoint.id])
    expect(log.stdout).toMatch(new RegExp(`^${resent} +message\\.sent +succeeded +1 +200 +-$`, "m"))
    expect(log.stdout).toMatch(new RegExp(`^${failed} +message\\.sent +failed +2 +500 +-$`, "m"))
  })
})
