import { Value } from "@sinclair/typebox/value"
import type { TSchema } from "@sinclair/typebox"
import { createApp } from "../../src/app"
import { loadConfig, type Config } from "../../src/config"
import { createServices, type Services } from "../../src/deps"
import { createAccount, updateAccount, type AccountPatch } from "../../src/domain/accounts"
import { createApiKey } from "../../src/domain/api-keys"
import { resetAdminToken } from "../../src/domain/admin"
import { addPhone } from "../../src/domain/phones"
import { CANONICAL_SCOPES } from "../../src/domain/scopes"
import { silentLogger, type Logger } from "../../src/lib/logger"
import type { AccountRow } from "../../src/store/accounts"
import type { Environment } from "../../src/lib/vocabulary"
import type { PhoneRow } from "../../src/store/phones"
import { freshMigratedDatabase } from "../store/contract/stores"
import { TestClock } from "./test-clock"
import { FakeGateway } from "../fakes/fake-gateway"
import type { FetchMedia } from "../../src/domain/outbound-parts"

/** A response read once: status, headers and parsed JSON body. */
export interface TestResponse {
  status: number
  headers: Headers
  body: any
}

export interface RequestOptions {
  key?: string
  body?: unknown
  rawBody?: string
  headers?: Record<string, string>
}

/**
 * One wagate with its own in-memory database (real migrations), a test clock and seeding
 * helpers that go through the same domain functions as the admin API and CLI.
 */
export interface Harness {
  services: Services
  app: ReturnType<typeof createApp>
  clock: TestClock
  /** The WhatsApp stand-in every session of this harness talks to. */
  gateway: FakeGateway
  config: Config
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>
  /** Moves the clock and lets the writes the timers started commit. */
  advance(ms: number): Promise<void>
  seedAccount(patch?: AccountPatch & { name?: string; email?: string }): Promise<AccountRow>
  seedKey(accountId: string, options?: { env?: Environment; scopes?: string[]; expiresAtMs?: number | null }): Promise<string>
  seedPhone(accountId: string, phoneNumber?: string): Promise<PhoneRow>
  /** A fresh account with a phone and a test key holding every scope. */
  seedTenant(options?: { env?: Environment; phoneNumber?: string }): Promise<{ account: AccountRow; key: string; phone: PhoneRow }>
  adminToken(): Promise<string>
  /** Pairs and connects a phone through the fake gateway, as if its owner scanned the QR. */
  connectPhone(phone: PhoneRow): Promise<void>
  /** Lets pending writes and their post-commit work run. */
  settle(): Promise<void>
  close(): Promise<void>
}

let phoneCounter = 0

/** A unique valid E.164 number for seeding. */
export function uniquePhoneNumber(): string {
  phoneCounter += 1
  return `+1415555${String(1000 + phoneCounter).padStart(4, "0")}`
}

export async function createHarness(
  options: {
    env?: Record<string, string>
    clock?: TestClock
    databasePath?: string
    logger?: Logger
    gateway?: FakeGateway
    fetchMedia?: FetchMedia
    /** Jitter source; default 0.5, so every jittered delay is exactly its midpoint. */
    random?: () => number
    /** The store: SQLite in memory (the default), or a fresh, migrated PostgreSQL database. */
    database?: "sqlite" | "postgres"
    /** Event stream bounds (src/domain/event-streams.ts). */
    eventStreams?: { bufferBytes?: number; perKey?: number }
  } = {},
): Promise<Harness> {
  const env = options.database === "postgres" ? { ...options.env, WAGATE_DATABASE_URL: await freshMigratedDatabase() } : options.env
  const config = loadConfig(env ?? {})
  const clock = options.clock ?? new TestClock()
  const gateway = options.gateway ?? new FakeGateway()
  const services = await createServices(config, {
    clock,
    logger: options.logger ?? silentLogger,
    databasePath: options.databasePath ?? ":memory:",
    gateway,
    fetchMedia: options.fetchMedia ?? (async (url) => ({ ok: false, errorCode: "media_fetch_failed", message: `no media fixture for ${url}` })),
    // Deterministic jitter: exactly the configured intervals.
    random: options.random ?? (() => 0.5),
    eventStreams: options.eventStreams,
  })
  await services.start()
  const app = createApp(services)
  const ctx = services.ctx

  const harness: Harness = {
    services,
    app,
    clock,
    gateway,
    config,
    async request(method, path, opts = {}) {
      const headers: Record<string, string> = { ...opts.headers }
      // The router lists a WebSocket route under "WS": it is a GET asking to upgrade.
      if (method === "WS") {
        method = "GET"
        Object.assign(headers, { upgrade: "websocket", connection: "Upgrade", "sec-websocket-version": "13", "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==" })
      }
      if (opts.key !== undefined) headers.authorization = `Bearer ${opts.key}`
      let body: string | undefined
      if (opts.rawBody !== undefined) body = opts.rawBody
      else if (opts.body !== undefined) {
        body = JSON.stringify(opts.body)
        headers["content-type"] ??= "application/json"
      }
      const res = await app.handle(new Request(`http://localhost${path}`, { method, headers, body }))
      const text = await res.text()
      let parsed: unknown = text
      try {
        parsed = JSON.parse(text)
      } catch {
        // Not JSON (the Swagger UI page, for example); keep the text.
      }
      return { status: res.status, headers: res.headers, body: parsed }
    },
    async advance(ms) {
      await clock.advanceAndCatchUp(ms, () => new Promise((r) => setImmediate(r)))
      await new Promise((r) => setImmediate(r))
    },
    async seedAccount(patch = {}) {
      const account = await createAccount(ctx, patch.name ?? "Test account", patch.email ?? "test@example.com")
      const { name: _n, email: _e, ...rest } = patch
      return Object.keys(rest).length > 0 ? updateAccount(ctx, account.id, rest) : account
    },
    async seedKey(accountId, o = {}) {
      const { key } = await createApiKey(ctx, {
        accountId,
        env: o.env ?? "test",
        scopes: o.scopes ?? [...CANONICAL_SCOPES],
        expiresAtMs: o.expiresAtMs ?? null,
      })
      return key
    },
    seedPhone: (accountId, phoneNumber = uniquePhoneNumber()) => addPhone(ctx, accountId, phoneNumber),
    async seedTenant(o = {}) {
      const account = await harness.seedAccount()
      const phone = await harness.seedPhone(account.id, o.phoneNumber)
      const key = await harness.seedKey(account.id, { env: o.env ?? "test" })
      return { account, key, phone }
    },
    adminToken: () => resetAdminToken(ctx),
    async connectPhone(phone) {
      await services.sessions.connect(phone.id, "qr")
      gateway.current(phone.id).open(phone.phoneNumber)
      await harness.settle()
    },
    async settle() {
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r))
    },
    close: () => services.stop(),
  }
  return harness
}

/** Asserts `value` matches a TypeBox schema, listing the mismatches when it does not. */
export function expectSchema(schema: TSchema, value: unknown): void {
  const problems = [...Value.Errors(schema, value)].map((e) => `${e.path}: ${e.message}`)
  if (problems.length > 0) throw new Error(`Response does not match its schema:\n${problems.join("\n")}\n${JSON.stringify(value, null, 2)}`)
}

/** Asserts the spec's error envelope and returns its messages. */
export function expectErrorEnvelope(res: TestResponse, statusCode: number, error: string, path?: string): string[] {
  if (res.status !== statusCode) throw new Error(`expected ${statusCode}, got ${res.status}: ${JSON.stringify(res.body)}`)
  const body = res.body
  const ok =
    body.success === false &&
    body.error === error &&
    body.statusCode === statusCode &&
    Array.isArray(body.message) &&
    body.message.length > 0 &&
    typeof body.timestamp === "string" &&
    !Number.isNaN(Date.parse(body.timestamp)) &&
    (path === undefined || body.path === path)
  if (!ok) throw new Error(`not the expected error envelope (${statusCode} ${error}): ${JSON.stringify(body)}`)
  return body.message as string[]
}
