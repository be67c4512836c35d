import { describe, expect, test } from "bun:test"
import { hostname } from "node:os"
import { resolve } from "node:path"
import ipaddr from "ipaddr.js"
import { ConfigError, loadConfig, SETTINGS, type Config } from "../../src/config"
import { LEASE_DEFAULTS } from "../../src/domain/lease-timings"

/** Runs `fn`, expecting a ConfigError, and returns its message. */
function configError(fn: () => unknown): string {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError)
    return (err as Error).message
  }
  throw new Error("expected a ConfigError, but the config loaded")
}

describe("defaults", () => {
  test("an empty environment gives the documented defaults", () => {
    const config = loadConfig({})
    expect(config).toMatchObject({
      port: 3000,
      host: "0.0.0.0",
      dataDir: resolve("./data"),
      logLevel: "info",
      adminToken: null,
      rateLimitPerMinute: 100,
      sandboxDeliveredMs: 1_000,
      sandboxReadMs: 3_000,
      outboundAllowCidrs: [],
      outboundAllowCidrsText: "",
      webhookRetryOffsetsMs: [60_000, 300_000, 900_000],
      webhookTimeoutMs: 15_000,
      webhookRetentionDays: 30,
      waResendRetentionDays: 7,
      historyRetentionDays: 0,
      waVersion: "auto",
      waConnectTimeoutMs: 15_000,
      waOfflineMarkerWaitMs: 10_000,
      waConnectConcurrency: 8,
    })
  })

  test("the node id defaults to the host name, a node holds at most 1000 phones, and its lease is the lease keeper's default", () => {
    expect(loadConfig({})).toMatchObject({ nodeId: hostname(), nodeMaxPhones: 1000, nodeLeaseMs: LEASE_DEFAULTS.leaseMs })
  })

  test("WAGATE_WA_VERSION takes auto (any case) or major.minor.patch; an explicit version wins over auto", () => {
    expect(loadConfig({ WAGATE_WA_VERSION: "AUTO" }).waVersion).toBe("auto")
    expect(loadConfig({ WAGATE_WA_VERSION: "2.3000.1" }).waVersion).toEqual([2, 3000, 1])
    expect(loadConfig({ WAGATE_WA_VERSION: "auto" }, { "wa-version": "2.3000.7" }).waVersion).toEqual([2, 3000, 7])
    expect(loadConfig({}).waVersionUrl).toBeNull()
    expect(() => loadConfig({ WAGATE_WA_VERSION_URL: "ftp://mirror.example/sw.js" })).toThrow("WAGATE_WA_VERSION_URL must be an http:// or https:// URL")
  })

  test("an empty variable counts as unset", () => {
    expect(loadConfig({ WAGATE_PORT: "", WAGATE_LOG_LEVEL: "" })).toMatchObject({ port: 3000, logLevel: "info" })
  })

  test("variables without the WAGATE_ prefix are ignored", () => {
    expect(loadConfig({ PORT: "8080", LOG_LEVEL: "debug" })).toMatchObject({ port: 3000, logLevel: "info" })
  })

  test("the config is frozen", () => {
    const config = loadConfig({})
    expect(() => {
      ;(config as { port: number }).port = 1
    }).toThrow()
  })
})

/**
 * One valid value per setting and what it becomes. Keyed by setting so the test below notices
 * a setting added to SETTINGS without a case here.
 */
const VALID: Record<string, { raw: string; expected: Partial<Config> }> = {
  port: { raw: "8080", expected: { port: 8080 } },
  host: { raw: "127.0.0.1", expected: { host: "127.0.0.1" } },
  dataDir: { raw: "/tmp/wagate-data", expected: { dataDir: "/tmp/wagate-data" } },
  logLevel: { raw: "debug", expected: { logLevel: "debug" } },
  adminToken: { raw: "adm_0123456789abcdef0123456789abcdef", expected: { adminToken: "adm_0123456789abcdef0123456789abcdef" } },
  rateLimitPerMinute: { raw: "250", expected: { rateLimitPerMinute: 250 } },
  sandboxDeliveredMs: { raw: "0", expected: { sandboxDeliveredMs: 0 } },
  sandboxReadMs: { raw: "5000", expected: { sandboxReadMs: 5_000 } },
  outboundAllowCidrsText: { raw: "10.0.0.0/8, ::1/128", expected: { outboundAllowCidrsText: "10.0.0.0/8, ::1/128" } },
  webhookRetryOffsetsMs: { raw: "1000, 2000,30000", expected: { webhookRetryOffsetsMs: [1_000, 2_000, 30_000] } },
  webhookTimeoutMs: { raw: "5000", expected: { webhookTimeoutMs: 5_000 } },
  webhookRetentionDays: { raw: "0", expected: { webhookRetentionDays: 0 } },
  waResendRetentionDays: { raw: "30", expected: { waResendRetentionDays: 30 } },
  historyRetentionDays: { raw: "365", expected: { historyRetentionDays: 365 } },
  sendIntervalMs: { raw: "250", expected: { sendIntervalMs: 250 } },
  sendTimeoutMs: { raw: "120000", expected: { sendTimeoutMs: 120_000 } },
  mediaMemoryMb: { raw: "256", expected: { mediaMemoryMb: 256 } },
  mediaCacheMb: { raw: "2048", expected: { mediaCacheMb: 2048 } },
  checksPerPhonePerHour: { raw: "60", expected: { checksPerPhonePerHour: 60 } },
  nodeId: { raw: "wagate-2.eu_west", expected: { nodeId: "wagate-2.eu_west" } },
  nodeMaxPhones: { raw: "250", expected: { nodeMaxPhones: 250 } },
  nodeLeaseMs: { raw: "4000", expected: { nodeLeaseMs: 4_000 } },
  nodeUrl: { raw: "http://10.0.0.5:3000/", expected: { nodeUrl: "http://10.0.0.5:3000" } },
  waWsUrl: { raw: "ws://127.0.0.1:4455/ws/chat", expected: { waWsUrl: "ws://127.0.0.1:4455/ws/chat" } },
  waVersion: { raw: "2.3000.1027934701", expected: { waVersion: [2, 3000, 1027934701] } },
  waVersionUrl: { raw: "https://mirror.example/sw.js", expected: { waVersionUrl: "https://mirror.example/sw.js" } },
  waConnectTimeoutMs: { raw: "5000", expected: { waConnectTimeoutMs: 5_000 } },
  waOfflineMarkerWaitMs: { raw: "2500", expected: { waOfflineMarkerWaitMs: 2_500 } },
  waConnectConcurrency: { raw: "32", expected: { waConnectConcurrency: 32 } },
  metricsPublic: { raw: "1", expected: { metricsPublic: true } },
  trustedProxies: { raw: "10.0.0.0/8", expected: { trustedProxies: [ipaddr.parseCIDR("10.0.0.0/8")] } },
  databaseUrl: { raw: "postgres://wagate:pw@127.0.0.1:5432/wagate", expected: { databaseUrl: "postgres://wagate:pw@127.0.0.1:5432/wagate" } },
  databaseWaitMs: { raw: "0", expected: { databaseWaitMs: 0 } },
  amqpUrl: { raw: "amqp://wagate:pw@127.0.0.1:5672/%2f", expected: { amqpUrl: "amqp://wagate:pw@127.0.0.1:5672/%2f" } },
  amqpExchange: { raw: "acme.events", expected: { amqpExchange: "acme.events" } },
}

describe("environment variables and flags", () => {
  test("every setting has a case in this table", () => {
    expect(SETTINGS.map((s) => s.key as string).sort()).toEqual(Object.keys(VALID).sort())
  })

  test.each(SETTINGS.map((s) => ({ ...s, name: s.env })))("$name is read from the environment", ({ key, env }) => {
    const { raw, expected } = VALID[key]!
    expect(loadConfig({ [env]: raw })).toMatchObject(expected)
  })

  test.each(SETTINGS.map((s) => ({ ...s, name: `--${s.flag}` })))("$name is read from the flags", ({ key, flag }) => {
    const { raw, expected } = VALID[key]!
    expect(loadConfig({}, { [flag]: raw })).toMatchObject(expected)
  })

  test.each(SETTINGS.map((s) => ({ ...s, name: `--${s.flag}` })))(
    "$name wins over an invalid $env, which is then never read",
    ({ key, flag, env }) => {
      const { raw, expected } = VALID[key]!
      expect(loadConfig({ [env]: "\u0000 not valid for anything" }, { [flag]: raw })).toMatchObject(expected)
    },
  )

  test("a flag wins over a valid variable", () => {
    expect(loadConfig({ WAGATE_PORT: "4000", WAGATE_LOG_LEVEL: "warn" }, { port: "5000" })).toMatchObject({ port: 5000, logLevel: "warn" })
  })

  test("a relative data directory is made absolute", () => {
    expect(loadConfig({ WAGATE_DATA_DIR: "some/dir" }).dataDir).toBe(resolve("some/dir"))
  })

  test("allowed CIDRs are parsed into ranges", () => {
    const config = loadConfig({ WAGATE_OUTBOUND_ALLOW_CIDRS: "10.0.0.0/8,fc00::/7" })
    expect(config.outboundAllowCidrs.map(([a, bits]) => `${a.toString()}/${bits}`)).toEqual(["10.0.0.0/8", "fc00::/7"])
  })
})

describe("invalid values", () => {
  test.each([
    { name: "a non-numeric port", env: "WAGATE_PORT", raw: "abc" },
    { name: "a port above 65535", env: "WAGATE_PORT", raw: "65536" },
    { name: "a negative port", env: "WAGATE_PORT", raw: "-1" },
    { name: "a fractional port", env: "WAGATE_PORT", raw: "80.5" },
    { name: "an unknown log level", env: "WAGATE_LOG_LEVEL", raw: "verbose" },
    { name: "a log level in capitals", env: "WAGATE_LOG_LEVEL", raw: "DEBUG" },
    { name: "an admin token under 16 characters", env: "WAGATE_ADMIN_TOKEN", raw: "short" },
    { name: "an admin token of 31 characters", env: "WAGATE_ADMIN_TOKEN", raw: "a".repeat(31) },
    { name: "a rate limit of 0", env: "WAGATE_RATE_LIMIT_PER_MINUTE", raw: "0" },
    { name: "a rate limit above a million", env: "WAGATE_RATE_LIMIT_PER_MINUTE", raw: "1000001" },
    { name: "a rate limit in words", env: "WAGATE_RATE_LIMIT_PER_MINUTE", raw: "lots" },
    { name: "a negative delivered delay", env: "WAGATE_SANDBOX_DELIVERED_MS", raw: "-5" },
    { name: "a read delay over a day", env: "WAGATE_SANDBOX_READ_MS", raw: "86400001" },
    { name: "a read delay with a unit", env: "WAGATE_SANDBOX_READ_MS", raw: "3s" },
    { name: "a node id with a space", env: "WAGATE_NODE_ID", raw: "node 1" },
    { name: "a node id of 101 characters", env: "WAGATE_NODE_ID", raw: "n".repeat(101) },
    { name: "a node maximum of 0 phones", env: "WAGATE_NODE_MAX_PHONES", raw: "0" },
    { name: "a lease shorter than 3 s (a renewal a second: a slow answer moves phones)", env: "WAGATE_NODE_LEASE_MS", raw: "2999" },
    { name: "a lease longer than a minute", env: "WAGATE_NODE_LEASE_MS", raw: "60001" },
    { name: "a node URL that is not a URL", env: "WAGATE_NODE_URL", raw: "10.0.0.5:3000" },
    { name: "a node URL of another scheme", env: "WAGATE_NODE_URL", raw: "ftp://10.0.0.5/" },
    { name: "a node URL with a password", env: "WAGATE_NODE_URL", raw: "http://user:pw@10.0.0.5:3000" },
    { name: "a broker URL of another scheme", env: "WAGATE_AMQP_URL", raw: "http://user:pw@rabbitmq:5672/" },
    { name: "a broker URL that is not a URL", env: "WAGATE_AMQP_URL", raw: "rabbitmq:5672" },
    { name: "an exchange name with a space", env: "WAGATE_AMQP_EXCHANGE", raw: "wagate events" },
    { name: "an exchange name RabbitMQ reserves", env: "WAGATE_AMQP_EXCHANGE", raw: "amq.topic" },
    { name: "a node URL with a query", env: "WAGATE_NODE_URL", raw: "http://10.0.0.5:3000/?next=1" },
    { name: "a history retention in weeks", env: "WAGATE_HISTORY_RETENTION_DAYS", raw: "2w" },
    { name: "a negative history retention", env: "WAGATE_HISTORY_RETENTION_DAYS", raw: "-1" },
    { name: "a history retention over 100 years", env: "WAGATE_HISTORY_RETENTION_DAYS", raw: "36501" },
    { name: "a bad CIDR", env: "WAGATE_OUTBOUND_ALLOW_CIDRS", raw: "10.0.0.0/33" },
    { name: "an address without a prefix", env: "WAGATE_OUTBOUND_ALLOW_CIDRS", raw: "10.0.0.1" },
    { name: "retry offsets that are not numbers", env: "WAGATE_WEBHOOK_RETRY_OFFSETS_MS", raw: "1m,5m" },
    { name: "retry offsets out of order", env: "WAGATE_WEBHOOK_RETRY_OFFSETS_MS", raw: "300000,60000" },
    { name: "a repeated retry offset", env: "WAGATE_WEBHOOK_RETRY_OFFSETS_MS", raw: "1000,1000" },
    { name: "a webhook timeout under 100 ms", env: "WAGATE_WEBHOOK_TIMEOUT_MS", raw: "99" },
    { name: "a negative webhook retention", env: "WAGATE_WEBHOOK_RETENTION_DAYS", raw: "-1" },
    { name: "a webhook retention in weeks", env: "WAGATE_WEBHOOK_RETENTION_DAYS", raw: "4w" },
    { name: "a WhatsApp Web version with two parts", env: "WAGATE_WA_VERSION", raw: "2.3000" },
    { name: "a WhatsApp Web version that is a word", env: "WAGATE_WA_VERSION", raw: "latest" },
    { name: "a connect timeout under a second", env: "WAGATE_WA_CONNECT_TIMEOUT_MS", raw: "999" },
    { name: "an offline-marker wait past Baileys' own 30 s", env: "WAGATE_WA_OFFLINE_MARKER_WAIT_MS", raw: "30001" },
    { name: "a MySQL database URL", env: "WAGATE_DATABASE_URL", raw: "mysql://u:pw@h/db" },
    { name: "a path instead of a database URL", env: "WAGATE_DATABASE_URL", raw: "./data/wagate.db" },
  ])("$name is a ConfigError naming $env", ({ env, raw }) => {
    expect(configError(() => loadConfig({ [env]: raw }))).toContain(env)
  })

  test.each([
    { name: "a bad port", flag: "port", raw: "http" },
    { name: "a bad log level", flag: "log-level", raw: "loud" },
    { name: "a bad rate limit", flag: "rate-limit-per-minute", raw: "0" },
  ])("$name given as a flag is a ConfigError naming --$flag", ({ flag, raw }) => {
    expect(configError(() => loadConfig({}, { [flag]: raw }))).toContain(`--${flag}`)
  })

  test("a refused broker URL is quoted with its password hidden", () => {
    const message = configError(() => loadConfig({ WAGATE_AMQP_URL: "http://wagate:s3cret@rabbitmq:5672/" }))
    expect(message).toContain('"http://wagate:***@rabbitmq:5672/"')
    expect(message).not.toContain("s3cret")
  })

  test("a refused database URL is quoted with its password hidden", () => {
    const message = configError(() => loadConfig({ WAGATE_DATABASE_URL: "mysql://wagate:s3cret@db:3306/wagate" }))
    expect(message).toContain('"mysql://wagate:***@db:3306/wagate"')
    expect(message).not.toContain("s3cret")
  })

  test("without a database URL the store is SQLite in the data directory", () => {
    expect(loadConfig({}).databaseUrl).toBeNull()
  })

  test("the message quotes the value that was refused", () => {
    expect(configError(() => loadConfig({ WAGATE_PORT: "30OO" }))).toContain('"30OO"')
  })

  test.each([
    { name: "read before delivered", env: { WAGATE_SANDBOX_DELIVERED_MS: "2000", WAGATE_SANDBOX_READ_MS: "1999" } },
    { name: "a read delay under the default delivered delay", env: { WAGATE_SANDBOX_READ_MS: "500" } },
    { name: "a delivered delay over the default read delay", env: { WAGATE_SANDBOX_DELIVERED_MS: "3001" } },
  ])("WAGATE_SANDBOX_READ_MS < WAGATE_SANDBOX_DELIVERED_MS is refused: $name", ({ env }) => {
    const message = configError(() => loadConfig(env))
    expect(message).toContain("WAGATE_SANDBOX_READ_MS")
    expect(message).toContain("WAGATE_SANDBOX_DELIVERED_MS")
  })

  test("equal sandbox delays are allowed", () => {
    expect(loadConfig({ WAGATE_SANDBOX_DELIVERED_MS: "2000", WAGATE_SANDBOX_READ_MS: "2000" })).toMatchObject({
      sandboxDeliveredMs: 2_000,
      sandboxReadMs: 2_000,
    })
  })
})
