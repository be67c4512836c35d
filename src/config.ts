import { hostname } from "node:os"
import { resolve } from "node:path"
import ipaddr from "ipaddr.js"
import { LOG_LEVELS, type LogLevel } from "./lib/logger"
import { isPostgresUrl, redactDatabaseUrl } from "./lib/database-url"
import { parseCidrList, type CidrList } from "./lib/net-policy"
import { DEFAULT_CONNECT_CONCURRENCY, DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_OFFLINE_MARKER_WAIT_MS } from "./whatsapp/gateway"

export { DEFAULT_CONNECT_CONCURRENCY, DEFAULT_CONNECT_TIMEOUT_MS, DEFAULT_OFFLINE_MARKER_WAIT_MS }

/** Defaults of every setting (docs/decisions.md § "Configuration and operations"). */
export const DEFAULT_PORT = 3000
export const DEFAULT_HOST = "0.0.0.0"
export const DEFAULT_DATA_DIR = "./data"
export const DEFAULT_LOG_LEVEL: LogLevel = "info"
export const DEFAULT_RATE_LIMIT_PER_MINUTE = 100
export const DEFAULT_SANDBOX_DELIVERED_MS = 1_000
export const DEFAULT_SANDBOX_READ_MS = 3_000
export const DEFAULT_WEBHOOK_RETRY_OFFSETS_MS: readonly number[] = [60_000, 300_000, 900_000]
export const DEFAULT_WEBHOOK_TIMEOUT_MS = 15_000
export const DEFAULT_WEBHOOK_RETENTION_DAYS = 30
/** Days the WhatsApp message of each outbound part is kept to answer retry receipts. */
export const DEFAULT_WA_RESEND_RETENTION_DAYS = 7
export const DEFAULT_SEND_INTERVAL_MS = 1_000
export const DEFAULT_SEND_TIMEOUT_MS = 600_000
/** Enough for four 16 MiB images handed to WhatsApp at once, or dozens of streamed documents. */
export const DEFAULT_MEDIA_MEMORY_MB = 64
/** Disk the inbound media cache may use, in MiB (docs/api.md § "Inbound media: GET /v1/messages/inbound/{messageId}/media"). */
export const DEFAULT_MEDIA_CACHE_MB = 1024
/** Ten a minute on average: a support desk's lookups, never an address book at once. */
export const DEFAULT_CHECKS_PER_PHONE_PER_HOUR = 600
export const DEFAULT_WA_WS_URL = "wss://web.whatsapp.com/ws/chat"
/** Phones one node may hold at most when several share a PostgreSQL database (docs/architecture.md § "Nodes and leases"). */
export const DEFAULT_NODE_MAX_PHONES = 1000
/** How long `wagate migrate` waits for PostgreSQL to accept connections (a database still starting). */
export const DEFAULT_DATABASE_WAIT_MS = 30_000
/**
 * The phone lease of nodes sharing PostgreSQL (WAGATE_NODE_LEASE_MS), as LEASE_DEFAULTS.leaseMs in
 * src/domain/lease-timings.ts (a test holds them equal; `wagate help` loads no domain code), and
 * its range: below 3 s a renewal comes every second and a database that takes a second to answer
 * already counts as unreachable; above 60 s a dead node's phones wait a minute.
 */
export const DEFAULT_NODE_LEASE_MS = 7_500
export const NODE_LEASE_MS_RANGE = { min: 3_000, max: 60_000 } as const
/** A configured admin token is as hard to guess as a generated one: 32 characters at least. */
export const MIN_ADMIN_TOKEN_LENGTH = 32

/** The validated settings of one wagate process. */
export interface Config {
  port: number
  host: string
  dataDir: string
  logLevel: LogLevel
  adminToken: string | null
  rateLimitPerMinute: number
  sandboxDeliveredMs: number
  sandboxReadMs: number
  outboundAllowCidrs: CidrList
  outboundAllowCidrsText: string
  /** Retry offsets counted from a delivery's first attempt. */
  webhookRetryOffsetsMs: readonly number[]
  webhookTimeoutMs: number
  /** Days a webhook event and its delivery log are kept after it occurred; 0 keeps them for ever. */
  webhookRetentionDays: number
  /** Days each sent WhatsApp message is kept so a recipient's retry receipt gets it re-encrypted; 0 keeps none. */
  waResendRetentionDays: number
  /** Days echo and history messages (the timeline rows beyond the seed's lists) are kept, by WhatsApp's timestamp; 0 (unset) keeps them for ever. */
  historyRetentionDays: number
  /** Pause between two live sends of one phone (±30% jitter), so WhatsApp sees a human pace. */
  sendIntervalMs: number
  /** How long a live send may wait for a disconnected phone before it fails with send_timeout. */
  sendTimeoutMs: number
  /** What all live sends' media may hold in memory at once while handed to WhatsApp, in MiB. */
  mediaMemoryMb: number
  /** Disk inbound media downloaded from WhatsApp may use, in MiB; least recently used out first. */
  mediaCacheMb: number
  /** Numbers each phone may ask WhatsApp about per hour through POST /v1/contacts/check. */
  checksPerPhonePerHour: number
  /** This node's name among the nodes sharing a database (default: the host name); two running nodes may not share it. */
  nodeId: string
  /** Phones this node may hold at most. */
  nodeMaxPhones: number
  /** How long a phone lease runs without renewal (a node renews every third of it): the failover time after a node dies. */
  nodeLeaseMs: number
  /**
   * Where the other nodes reach this one to forward the requests that need a phone it holds
   * (docs/operations.md § "Running several nodes"); null: they answer 409 naming it instead.
   */
  nodeUrl: string | null
  /** The WhatsApp Web socket (a simulator in tests). */
  waWsUrl: string
  /** How long opening the WhatsApp socket and its handshake may take before the attempt fails. */
  waConnectTimeoutMs: number
  /** How long after login to wait for WhatsApp's end-of-offline-queue marker before releasing held inbound events. */
  waOfflineMarkerWaitMs: number
  /** How many phones may be opening their WhatsApp socket (pairing or reconnecting) at once. */
  waConnectConcurrency: number
  /**
   * The WhatsApp Web version to announce, as [major, minor, patch]; `auto` looks the current one
   * up when a phone connects and falls back to the version built into Baileys.
   */
  waVersion: readonly [number, number, number] | "auto"
  /**
   * Where `auto` reads the current WhatsApp Web version (a page shaped like
   * web.whatsapp.com/sw.js); null asks web.whatsapp.com through Baileys, and only when the
   * WebSocket is WhatsApp's.
   */
  waVersionUrl: string | null
  /** Serve /metrics without the admin token (for a scraper on a private network). */
  metricsPublic: boolean
  /** Reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are believed; empty believes none. */
  trustedProxies: CidrList
  /** PostgreSQL shared by several nodes (postgres:// or postgresql://); null is SQLite in the data directory. */
  databaseUrl: string | null
  /** How long `wagate migrate` waits for PostgreSQL to accept connections; 0 tries once. */
  databaseWaitMs: number
  /** RabbitMQ to publish every event to (amqp:// or amqps://); null publishes nothing (docs/webhooks.md § "RabbitMQ"). */
  amqpUrl: string | null
  /** The durable topic exchange events are published to. */
  amqpExchange: string
}

/** A setting that cannot be used; the message says what to change. */
export class ConfigError extends Error {
  constructor(message: string) {
    super(message)
    this.name = "ConfigError"
  }
}

/** One setting: its flag, its environment variable and how to read it. */
interface Setting<K extends keyof Config> {
  key: K
  flag: string
  env: string
  parse: (text: string, name: string) => Config[K]
}

function integer(min: number, max: number) {
  return (text: string, name: string): number => {
    if (!/^\d+$/.test(text.trim())) throw new ConfigError(`${name} must be a whole number between ${min} and ${max}, got "${text}"`)
    const n = Number(text)
    if (n < min || n > max) throw new ConfigError(`${name} must be between ${min} and ${max}, got ${n}`)
    return n
  }
}

const text = (value: string) => value

function waVersion(value: string, name: string): readonly [number, number, number] | "auto" {
  if (value.trim().toLowerCase() === "auto") return "auto"
  const m = /^(\d+)[.,](\d+)[.,](\d+)$/.exec(value.trim())
  if (!m) throw new ConfigError(`${name} must be auto or a version like 2.3000.1023456789 (major.minor.patch), got "${value}"`)
  return [Number(m[1]), Number(m[2]), Number(m[3])]
}

function httpUrl(value: string, name: string): string {
  let url: URL
  try {
    url = new URL(value.trim())
  } catch {
    throw new ConfigError(`${name} must be an http:// or https:// URL, got "${value}"`)
  }
  if (url.protocol !== "https:" && url.protocol !== "http:") throw new ConfigError(`${name} must be an http:// or https:// URL, got "${value}"`)
  return url.href
}

function wsUrl(value: string, name: string): string {
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ConfigError(`${name} must be a ws:// or wss:// URL, got "${value}"`)
  }
  if (url.protocol !== "ws:" && url.protocol !== "wss:") throw new ConfigError(`${name} must be a ws:// or wss:// URL, got "${value}"`)
  return value
}

function boolean(value: string, name: string): boolean {
  if (["1", "true", "yes"].includes(value.toLowerCase())) return true
  if (["0", "false", "no"].includes(value.toLowerCase())) return false
  throw new ConfigError(`${name} must be 1 or 0 (true or false), got "${value}"`)
}

function nodeId(value: string, name: string): string {
  if (!/^[A-Za-z0-9._-]{1,100}$/.test(value)) {
    throw new ConfigError(`${name} must be 1 to 100 letters, digits, dots, hyphens or underscores (it names this node to the others), got "${value}"`)
  }
  return value
}

/**
 * An http(s) URL other nodes send forwarded requests to. Credentials are refused: the URL is
 * stored in the shared database and listed by `wagate nodes`, and the forwarded request carries
 * the client's own Authorization. A query or fragment would be mixed into every forwarded path.
 */
function nodeUrl(value: string, name: string): string {
  const wrong = `${name} must be the http:// or https:// URL the other nodes reach this one at (for example http://10.0.0.5:3000)`
  let url: URL
  try {
    url = new URL(value)
  } catch {
    throw new ConfigError(`${wrong}, got "${value.slice(0, 200)}"`)
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ConfigError(`${wrong}, got "${value.slice(0, 200)}"`)
  if (url.username !== "" || url.password !== "") throw new ConfigError(`${name} must not carry a user name or password: nodes store it in the shared database`)
  if (url.search !== "" || url.hash !== "") throw new ConfigError(`${wrong}, without a query or fragment`)
  // Without the trailing slash, so a request's path is appended as is.
  return url.href.replace(/\/+$/, "")
}

/** A list of proxies: CIDR ranges, or single addresses (a /32 or /128). */
function proxies(value: string, name: string): CidrList {
  const out: [ipaddr.IPv4 | ipaddr.IPv6, number][] = []
  for (const entry of value.split(",").map((p) => p.trim()).filter(Boolean)) {
    if (ipaddr.isValidCIDR(entry)) out.push(ipaddr.parseCIDR(entry))
    else if (ipaddr.isValid(entry)) {
      const address = ipaddr.parse(entry)
      out.push([address, address.kind() === "ipv4" ? 32 : 128])
    } else {
      throw new ConfigError(
        `${name} must be a comma-separated list of the reverse proxies' addresses or CIDR ranges (for example 127.0.0.1,10.0.0.0/8); "${entry}" is neither`,
      )
    }
  }
  return out
}

function offsets(value: string, name: string): number[] {
  const parts = value.split(",").map((p) => p.trim())
  if (parts.some((p) => !/^\d+$/.test(p))) {
    throw new ConfigError(`${name} must be a comma-separated list of milliseconds, for example 60000,300000,900000; got "${value}"`)
  }
  const list = parts.map(Number)
  if (list.some((n, i) => i > 0 && n <= list[i - 1]!)) throw new ConfigError(`${name} must be increasing: each retry comes after the previous one`)
  if (list.length > 20) throw new ConfigError(`${name} may list at most 20 retries`)
  return list
}

function databaseUrl(value: string, name: string): string {
  if (!isPostgresUrl(value)) {
    throw new ConfigError(`${name} must be a postgres:// or postgresql:// URL (or unset, for SQLite in the data directory), got "${redactDatabaseUrl(value)}"`)
  }
  return value
}

function amqpUrl(value: string, name: string): string {
  let ok = false
  try {
    const url = new URL(value)
    ok = (url.protocol === "amqp:" || url.protocol === "amqps:") && url.hostname !== ""
  } catch {}
  if (!ok) throw new ConfigError(`${name} must be an amqp:// or amqps:// URL such as amqp://user:password@rabbitmq:5672/vhost, got "${redactDatabaseUrl(value)}"`)
  return value
}

function amqpExchange(value: string, name: string): string {
  // RabbitMQ's own rule for names; "amq." is reserved for its built-in exchanges.
  if (!/^[A-Za-z0-9_.:-]{1,127}$/.test(value) || value.startsWith("amq.")) {
    throw new ConfigError(`${name} must be 1–127 letters, digits, "-", "_", "." or ":" and not start with "amq.", got "${value.slice(0, 140)}"`)
  }
  return value
}

/** Every setting, each readable as a flag and a WAGATE_* variable; flags win. */
export const SETTINGS = [
  { key: "port", flag: "port", env: "WAGATE_PORT", parse: integer(0, 65_535) },
  { key: "host", flag: "host", env: "WAGATE_HOST", parse: text },
  { key: "dataDir", flag: "data", env: "WAGATE_DATA_DIR", parse: (v: string) => resolve(v) },
  {
    key: "logLevel",
    flag: "log-level",
    env: "WAGATE_LOG_LEVEL",
    parse: (v: string, name: string) => {
      if (!(LOG_LEVELS as readonly string[]).includes(v)) throw new ConfigError(`${name} must be one of ${LOG_LEVELS.join(", ")}, got "${v}"`)
      return v as LogLevel
    },
  },
  {
    key: "adminToken",
    flag: "admin-token",
    env: "WAGATE_ADMIN_TOKEN",
    parse: (v: string, name: string) => {
      if (v.length < MIN_ADMIN_TOKEN_LENGTH) {
        throw new ConfigError(
          `${name} must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters long (this one has ${v.length}): make a good one with \`openssl rand -hex 32\``,
        )
      }
      return v
    },
  },
  { key: "rateLimitPerMinute", flag: "rate-limit-per-minute", env: "WAGATE_RATE_LIMIT_PER_MINUTE", parse: integer(1, 1_000_000) },
  { key: "sandboxDeliveredMs", flag: "sandbox-delivered-ms", env: "WAGATE_SANDBOX_DELIVERED_MS", parse: integer(0, 86_400_000) },
  { key: "sandboxReadMs", flag: "sandbox-read-ms", env: "WAGATE_SANDBOX_READ_MS", parse: integer(0, 86_400_000) },
  { key: "outboundAllowCidrsText", flag: "outbound-allow-cidrs", env: "WAGATE_OUTBOUND_ALLOW_CIDRS", parse: text },
  { key: "webhookRetryOffsetsMs", flag: "webhook-retry-offsets-ms", env: "WAGATE_WEBHOOK_RETRY_OFFSETS_MS", parse: offsets },
  { key: "webhookTimeoutMs", flag: "webhook-timeout-ms", env: "WAGATE_WEBHOOK_TIMEOUT_MS", parse: integer(100, 120_000) },
  { key: "webhookRetentionDays", flag: "webhook-retention-days", env: "WAGATE_WEBHOOK_RETENTION_DAYS", parse: integer(0, 36_500) },
  { key: "waResendRetentionDays", flag: "wa-resend-retention-days", env: "WAGATE_WA_RESEND_RETENTION_DAYS", parse: integer(0, 365) },
  { key: "historyRetentionDays", flag: "history-retention-days", env: "WAGATE_HISTORY_RETENTION_DAYS", parse: integer(0, 36_500) },
  { key: "sendIntervalMs", flag: "send-interval-ms", env: "WAGATE_SEND_INTERVAL_MS", parse: integer(0, 3_600_000) },
  { key: "sendTimeoutMs", flag: "send-timeout-ms", env: "WAGATE_SEND_TIMEOUT_MS", parse: integer(1_000, 7 * 86_400_000) },
  { key: "mediaMemoryMb", flag: "media-memory-mb", env: "WAGATE_MEDIA_MEMORY_MB", parse: integer(1, 65_536) },
  { key: "mediaCacheMb", flag: "media-cache-mb", env: "WAGATE_MEDIA_CACHE_MB", parse: integer(1, 1_048_576) },
  { key: "checksPerPhonePerHour", flag: "checks-per-phone-per-hour", env: "WAGATE_CHECKS_PER_PHONE_PER_HOUR", parse: integer(1, 100_000) },
  { key: "nodeId", flag: "node-id", env: "WAGATE_NODE_ID", parse: nodeId },
  { key: "nodeMaxPhones", flag: "node-max-phones", env: "WAGATE_NODE_MAX_PHONES", parse: integer(1, 1_000_000) },
  { key: "nodeLeaseMs", flag: "node-lease-ms", env: "WAGATE_NODE_LEASE_MS", parse: integer(NODE_LEASE_MS_RANGE.min, NODE_LEASE_MS_RANGE.max) },
  { key: "nodeUrl", flag: "node-url", env: "WAGATE_NODE_URL", parse: nodeUrl },
  { key: "waWsUrl", flag: "wa-ws-url", env: "WAGATE_WA_WS_URL", parse: wsUrl },
  { key: "waConnectTimeoutMs", flag: "wa-connect-timeout-ms", env: "WAGATE_WA_CONNECT_TIMEOUT_MS", parse: integer(1_000, 120_000) },
  { key: "waOfflineMarkerWaitMs", flag: "wa-offline-marker-wait-ms", env: "WAGATE_WA_OFFLINE_MARKER_WAIT_MS", parse: integer(1_000, 30_000) },
  { key: "waConnectConcurrency", flag: "wa-connect-concurrency", env: "WAGATE_WA_CONNECT_CONCURRENCY", parse: integer(1, 1_000) },
  { key: "waVersion", flag: "wa-version", env: "WAGATE_WA_VERSION", parse: waVersion },
  { key: "waVersionUrl", flag: "wa-version-url", env: "WAGATE_WA_VERSION_URL", parse: httpUrl },
  { key: "metricsPublic", flag: "metrics-public", env: "WAGATE_METRICS_PUBLIC", parse: boolean },
  { key: "trustedProxies", flag: "trusted-proxies", env: "WAGATE_TRUSTED_PROXIES", parse: proxies },
  { key: "databaseUrl", flag: "database-url", env: "WAGATE_DATABASE_URL", parse: databaseUrl },
  { key: "databaseWaitMs", flag: "database-wait-ms", env: "WAGATE_DATABASE_WAIT_MS", parse: integer(0, 600_000) },
  { key: "amqpUrl", flag: "amqp-url", env: "WAGATE_AMQP_URL", parse: amqpUrl },
  { key: "amqpExchange", flag: "amqp-exchange", env: "WAGATE_AMQP_EXCHANGE", parse: amqpExchange },
] as const satisfies readonly Setting<keyof Config>[]

/**
 * Builds the one config object from flags and environment (flags win), applies defaults and
 * checks the settings against each other. Throws ConfigError with an actionable message.
 */
export function loadConfig(env: Record<string, string | undefined>, flags: Record<string, string | undefined> = {}): Config {
  const config: Config = {
    port: DEFAULT_PORT,
    host: DEFAULT_HOST,
    dataDir: resolve(DEFAULT_DATA_DIR),
    logLevel: DEFAULT_LOG_LEVEL,
    adminToken: null,
    rateLimitPerMinute: DEFAULT_RATE_LIMIT_PER_MINUTE,
    sandboxDeliveredMs: DEFAULT_SANDBOX_DELIVERED_MS,
    sandboxReadMs: DEFAULT_SANDBOX_READ_MS,
    outboundAllowCidrs: [],
    outboundAllowCidrsText: "",
    webhookRetryOffsetsMs: DEFAULT_WEBHOOK_RETRY_OFFSETS_MS,
    webhookTimeoutMs: DEFAULT_WEBHOOK_TIMEOUT_MS,
    webhookRetentionDays: DEFAULT_WEBHOOK_RETENTION_DAYS,
    waResendRetentionDays: DEFAULT_WA_RESEND_RETENTION_DAYS,
    historyRetentionDays: 0,
    sendIntervalMs: DEFAULT_SEND_INTERVAL_MS,
    sendTimeoutMs: DEFAULT_SEND_TIMEOUT_MS,
    mediaMemoryMb: DEFAULT_MEDIA_MEMORY_MB,
    mediaCacheMb: DEFAULT_MEDIA_CACHE_MB,
    checksPerPhonePerHour: DEFAULT_CHECKS_PER_PHONE_PER_HOUR,
    nodeId: "",
    nodeMaxPhones: DEFAULT_NODE_MAX_PHONES,
    nodeLeaseMs: DEFAULT_NODE_LEASE_MS,
    nodeUrl: null,
    waWsUrl: DEFAULT_WA_WS_URL,
    waConnectTimeoutMs: DEFAULT_CONNECT_TIMEOUT_MS,
    waOfflineMarkerWaitMs: DEFAULT_OFFLINE_MARKER_WAIT_MS,
    waConnectConcurrency: DEFAULT_CONNECT_CONCURRENCY,
    waVersion: "auto",
    waVersionUrl: null,
    metricsPublic: false,
    trustedProxies: [],
    databaseUrl: null,
    databaseWaitMs: DEFAULT_DATABASE_WAIT_MS,
    amqpUrl: null,
    amqpExchange: "wagate.events",
  }
  for (const s of SETTINGS) {
    const fromFlag = flags[s.flag]
    const raw = fromFlag ?? env[s.env]
    // The commands wagate suggests on PostgreSQL pass `--database-url "$WAGATE_DATABASE_URL"`:
    // empty in a shell without the variable, it must not fall back to SQLite in silence.
    if (fromFlag === "" && s.flag === "database-url") throw new ConfigError(`--database-url is empty: set WAGATE_DATABASE_URL in this shell to the database's URL`)
    if (raw === undefined || raw === "") continue
    const name = fromFlag !== undefined ? `--${s.flag}` : s.env
    ;(config as unknown as Record<string, unknown>)[s.key] = s.parse(raw, name)
  }
  config.nodeId ||= nodeId(hostname(), "The host name (the default of WAGATE_NODE_ID; set WAGATE_NODE_ID instead)")
  try {
    config.outboundAllowCidrs = parseCidrList(config.outboundAllowCidrsText)
  } catch (err) {
    throw new ConfigError(`WAGATE_OUTBOUND_ALLOW_CIDRS: ${(err as Error).message}`)
  }
  if (config.sandboxReadMs < config.sandboxDeliveredMs) {
    throw new ConfigError(
      `WAGATE_SANDBOX_READ_MS (${config.sandboxReadMs}) must not be less than WAGATE_SANDBOX_DELIVERED_MS (${config.sandboxDeliveredMs}): both count from the send`,
    )
  }
  return Object.freeze(config)
}
