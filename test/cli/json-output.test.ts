import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import type { TObject } from "@sinclair/typebox"
import { join } from "node:path"
import { createApp } from "../../src/app"
import { loadConfig } from "../../src/config"
import { createServices, type Services } from "../../src/deps"
import { AdminAccount, AdminPhone, ApiKeyRecord } from "../../src/http/models/admin"
import { WebhookAttempt, WebhookDelivery, WebhookEndpoint } from "../../src/http/models/webhooks"
import { silentLogger } from "../../src/lib/logger"
import { DATABASE_FILE } from "../../src/store/sqlite/db"
import { TestClock } from "../helpers/test-clock"
import { waitUntil } from "../helpers/webhook-receiver"
import { cli, makeDataDir, printedAccountId, printedKey, removeDataDir } from "./run-cli"
import { SLOW_HOOK_TIMEOUT_MS } from "../helpers/timeouts"

/*
 * Every `--json` output uses the admin API's shapes: the same field names (`environment`, not
 * `env`; `accountId`), ISO timestamps (`createdAt`, not `createdAtMs`), and the same values the
 * API returns for the same records.
 */

const ADMIN_TOKEN = "json-output-admin-token-0123456789"
const PHONE = "+14155550123"
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/

let dir: string
let services: Services
let app: ReturnType<typeof createApp>
let accountId: string
let webhookId: string

/** GET on the admin API, answered in-process. */
async function adminGet(path: string): Promise<any> {
  const res = await app.handle(new Request(`http://localhost${path}`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` } }))
  return res.json()
}

beforeAll(async () => {
  dir = makeDataDir()
  const clock = new TestClock(Date.parse("2026-11-23T10:00:00.000Z"))
  accountId = printedAccountId((await cli(dir, ["accounts", "create", "--name", "Acme", "--email", "ops@acme.example"], { clock })).stdout)
  const key = printedKey((await cli(dir, ["keys", "create", "--name", "ci", "--expires", "2099-01-01T00:00:00Z"], { clock })).stdout)
  expect((await cli(dir, ["phones", "add", PHONE, "--name", "Support"], { clock })).code).toBe(0)
  const added = await cli(dir, ["webhooks", "add", "--url", "https://hooks.example.com/wagate", "--events", "message.sent"], { clock })
  webhookId = /webhook (wh_[0-9a-z]+) /.exec(added.stdout)![1]!
  // A server beside the CLI sends one sandbox message; its message.sent delivery succeeds at once.
  services = await createServices(loadConfig({ WAGATE_DATA_DIR: dir, WAGATE_ADMIN_TOKEN: ADMIN_TOKEN }), {
    clock,
    logger: silentLogger,
    databasePath: join(dir, DATABASE_FILE),
    fetch: async () => new Response("ok", { status: 200 }),
  })
  await services.start()
  app = createApp(services)
  const sent = await app.handle(
    new Request("http://localhost/v1/messages/send", {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ fromPhoneId: PHONE, to: "+12025550104", content: "hello" }),
    }),
  )
  expect(sent.status).toBe(201)
  await waitUntil(
    () => (services.sqlite!.query("SELECT COUNT(*) AS n FROM webhook_attempts").get() as { n: number }).n === 1,
    5_000,
    "the delivery's attempt",
  )
}, SLOW_HOOK_TIMEOUT_MS)

afterAll(async () => {
  await services?.stop()
  removeDataDir(dir)
}, SLOW_HOOK_TIMEOUT_MS)

/** Each listing command, the admin API route that lists the same records, and the API's schema of one record. */
const CASES: { name: string; argv: () => string[]; route: () => string; schema: TObject; items: (data: any) => any[] }[] = [
  { name: "accounts list", argv: () => ["accounts", "list", "--json"], route: () => "/admin/v1/accounts", schema: AdminAccount, items: (d) => d },
  { name: "keys list", argv: () => ["keys", "list", "--json"], route: () => `/admin/v1/accounts/${accountId}/keys`, schema: ApiKeyRecord, items: (d) => d },
  { name: "phones list", argv: () => ["phones", "list", "--json"], route: () => `/admin/v1/accounts/${accountId}/phones`, schema: AdminPhone, items: (d) => d },
  { name: "webhooks list", argv: () => ["webhooks", "list", "--json"], route: () => `/admin/v1/accounts/${accountId}/webhooks`, schema: WebhookEndpoint, items: (d) => d },
  {
    name: "webhooks deliveries",
    argv: () => ["webhooks", "deliveries", webhookId, "--json"],
    route: () => `/admin/v1/webhooks/${webhookId}/deliveries`,
    schema: WebhookDelivery,
    items: (d) => d.data,
  },
]

describe("--json output uses the admin API's field names and values", () => {
  test.each(CASES)("wagate $name --json has exactly the API schema's fields, with ISO timestamps", async ({ argv, schema, items }) => {
    const res = await cli(dir, argv())
    expect(res.code).toBe(0)
    const records = items(JSON.parse(res.stdout))
    expect(records).toHaveLength(1)
    const record = records[0]
    expect(Object.keys(record).sort()).toEqual(Object.keys(schema.properties).sort())
    for (const [field, value] of Object.entries(record)) {
      if (/At$/.test(field) && value !== null) expect(value as string).toMatch(ISO)
      expect(field).not.toMatch(/Ms$|^env$/)
    }
  })

  test.each(CASES)("wagate $name --json prints what the admin API returns for the same records", async ({ argv, route }) => {
    const res = await cli(dir, argv())
    const fromApi = await adminGet(route())
    expect(fromApi.success).toBe(true)
    expect(JSON.parse(res.stdout)).toEqual(fromApi.data)
  })

  test("a delivery's attempts have the API's attempt fields", async () => {
    const res = await cli(dir, ["webhooks", "deliveries", webhookId, "--json"])
    const [delivery] = JSON.parse(res.stdout).data
    expect(delivery.attempts).toHaveLength(1)
    expect(Object.keys(delivery.attempts[0]).sort()).toEqual(Object.keys(WebhookAttempt.properties).sort())
    expect(delivery.attempts[0]).toMatchObject({ attempt: 1, statusCode: 200 })
  })

  test("the key fields a script reads have their API names: environment, createdAt, expiresAt, phoneNumber", async () => {
    const [key] = JSON.parse((await cli(dir, ["keys", "list", "--json"])).stdout)
    expect(key).toMatchObject({ environment: "test", createdAt: "2026-11-23T10:00:00.000Z", expiresAt: "2099-01-01T00:00:00.000Z", revokedAt: null })
    const [phone] = JSON.parse((await cli(dir, ["phones", "list", "--json"])).stdout)
    expect(phone).toMatchObject({ phoneNumber: PHONE, displayName: "Support", createdAt: "2026-11-23T10:00:00.000Z", lastError: null })
    const [account] = JSON.parse((await cli(dir, ["accounts", "list", "--json"])).stdout)
    expect(account).toMatchObject({ accountId, stats: { apiKeys: 1, phoneNumbers: 1, messages: 1 } })
  })
})
