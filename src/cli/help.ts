import {
  DEFAULT_CHECKS_PER_PHONE_PER_HOUR,
  DEFAULT_CONNECT_CONCURRENCY,
  DEFAULT_CONNECT_TIMEOUT_MS,
  DEFAULT_DATA_DIR,
  DEFAULT_DATABASE_WAIT_MS,
  DEFAULT_HOST,
  DEFAULT_LOG_LEVEL,
  DEFAULT_MEDIA_CACHE_MB,
  DEFAULT_NODE_MAX_PHONES,
  DEFAULT_NODE_LEASE_MS,
  DEFAULT_MEDIA_MEMORY_MB,
  DEFAULT_OFFLINE_MARKER_WAIT_MS,
  DEFAULT_PORT,
  DEFAULT_RATE_LIMIT_PER_MINUTE,
  DEFAULT_SANDBOX_DELIVERED_MS,
  DEFAULT_SANDBOX_READ_MS,
  DEFAULT_SEND_INTERVAL_MS,
  DEFAULT_SEND_TIMEOUT_MS,
  DEFAULT_WA_RESEND_RETENTION_DAYS,
  DEFAULT_WA_WS_URL,
  DEFAULT_WEBHOOK_RETENTION_DAYS,
  DEFAULT_WEBHOOK_RETRY_OFFSETS_MS,
  DEFAULT_WEBHOOK_TIMEOUT_MS,
  MIN_ADMIN_TOKEN_LENGTH,
  SETTINGS,
} from "../config"
import { ALL_SCOPES, CANONICAL_SCOPES } from "../lib/vocabulary"
import { UsageError } from "./args"
import { COMMANDS, findCommand, ownAndDataDirOptions, usageLines, type CommandSpec, type OptionHelp, type SubcommandSpec } from "./commands"
import type { CliIo } from "./io"

/**
 * What each server setting's value looks like, what it does and its default, for `wagate serve
 * --help`. Every setting has an entry (test/cli/help.test.ts checks it, and that each default
 * shown is the one loadConfig applies).
 */
export const SETTING_HELP: Record<string, { value: string; text: string; default: string }> = {
  port: { value: "N", text: "port to listen on, 0–65535; 0 picks a free port", default: String(DEFAULT_PORT) },
  host: { value: "ADDR", text: "address to bind; the default listens on every interface, 127.0.0.1 only on this host", default: DEFAULT_HOST },
  data: { value: "DIR", text: "the data directory", default: DEFAULT_DATA_DIR },
  "log-level": { value: "LEVEL", text: "debug, info, warn or error", default: DEFAULT_LOG_LEVEL },
  "admin-token": {
    value: "TOKEN",
    text: `the admin token, at least ${MIN_ADMIN_TOKEN_LENGTH} characters; make one with \`openssl rand -hex 32\``,
    default: "none: one is generated at the first start",
  },
  "rate-limit-per-minute": { value: "N", text: "requests per minute per key unless the account overrides it", default: String(DEFAULT_RATE_LIMIT_PER_MINUTE) },
  "sandbox-delivered-ms": { value: "MS", text: "when a sandbox message becomes delivered, after the send", default: String(DEFAULT_SANDBOX_DELIVERED_MS) },
  "sandbox-read-ms": { value: "MS", text: "when a sandbox message becomes read, after the send", default: String(DEFAULT_SANDBOX_READ_MS) },
  "outbound-allow-cidrs": { value: "CIDR,…", text: "non-public networks that media URLs may point to", default: "none" },
  "webhook-retry-offsets-ms": { value: "MS,…", text: "webhook retries, in ms after the first attempt", default: DEFAULT_WEBHOOK_RETRY_OFFSETS_MS.join(",") },
  "webhook-timeout-ms": { value: "MS", text: "deadline of one webhook attempt", default: String(DEFAULT_WEBHOOK_TIMEOUT_MS) },
  "webhook-retention-days": { value: "DAYS", text: "days webhook events and their delivery log are kept; 0 keeps them", default: String(DEFAULT_WEBHOOK_RETENTION_DAYS) },
  "wa-resend-retention-days": {
    value: "DAYS",
    text: "days each sent WhatsApp message is kept to answer a recipient's retry receipt; 0 keeps none",
    default: String(DEFAULT_WA_RESEND_RETENTION_DAYS),
  },
  "history-retention-days": { value: "DAYS", text: "days the phone's own and history messages stay in chat timelines; 0 keeps them", default: "none: kept for ever" },
  "send-interval-ms": { value: "MS", text: "pause between two live sends of one phone, ±30 %", default: String(DEFAULT_SEND_INTERVAL_MS) },
  "send-timeout-ms": { value: "MS", text: "how long live sends wait for a disconnected phone", default: String(DEFAULT_SEND_TIMEOUT_MS) },
  "checks-per-phone-per-hour": { value: "N", text: "numbers each phone may check per hour with POST /v1/contacts/check", default: String(DEFAULT_CHECKS_PER_PHONE_PER_HOUR) },
  "media-memory-mb": { value: "MIB", text: "memory all live sends' media may hold at once while handed to WhatsApp", default: String(DEFAULT_MEDIA_MEMORY_MB) },
  "media-cache-mb": { value: "MIB", text: "disk inbound media downloaded from WhatsApp may use, least recently used out first", default: String(DEFAULT_MEDIA_CACHE_MB) },
  "wa-ws-url": { value: "URL", text: "the WhatsApp Web socket", default: DEFAULT_WA_WS_URL },
  "wa-connect-timeout-ms": { value: "MS", text: "how long opening the WhatsApp connection may take", default: String(DEFAULT_CONNECT_TIMEOUT_MS) },
  "wa-offline-marker-wait-ms": {
    value: "MS",
    text: "how long after login to wait for WhatsApp's end-of-offline-queue marker before releasing held inbound messages",
    default: String(DEFAULT_OFFLINE_MARKER_WAIT_MS),
  },
  "wa-connect-concurrency": {
    value: "N",
    text: "how many phones may be opening their WhatsApp connection (pairing or reconnecting) at once",
    default: String(DEFAULT_CONNECT_CONCURRENCY),
  },
  "wa-version": { value: "auto|X.Y.Z", text: "the WhatsApp Web version to announce; auto looks it up", default: "auto" },
  "wa-version-url": { value: "URL", text: "where auto reads the current WhatsApp Web version (a page shaped like web.whatsapp.com/sw.js)", default: "none: web.whatsapp.com, for its own socket" },
  "metrics-public": { value: "1|0", text: "serve /metrics without the admin token", default: "0" },
  "trusted-proxies": { value: "CIDR,…", text: "proxies whose X-Forwarded-For and X-Forwarded-Proto are believed", default: "none" },
  "database-url": { value: "URL", text: "PostgreSQL shared by several nodes (postgres://user:password@host:5432/db)", default: "none: SQLite in the data directory" },
  "database-wait-ms": { value: "MS", text: "how long `wagate migrate` waits for PostgreSQL to accept connections (0: one try)", default: String(DEFAULT_DATABASE_WAIT_MS) },
  "amqp-url": { value: "URL", text: "RabbitMQ to publish every event to (amqp://user:password@host:5672/vhost)", default: "none: nothing is published" },
  "amqp-exchange": { value: "NAME", text: "the durable topic exchange events are published to", default: "wagate.events" },
  "node-id": { value: "NAME", text: "this node's name among the nodes sharing a database (letters, digits, . - _)", default: "none: the host name" },
  "node-max-phones": { value: "N", text: "the most phones this node holds when several share a database", default: String(DEFAULT_NODE_MAX_PHONES) },
  "node-lease-ms": { value: "MS", text: "how long a phone lease runs unrenewed (3000–60000; renewed every third): a dead node's phones move this long after", default: String(DEFAULT_NODE_LEASE_MS) },
  "node-url": { value: "URL", text: "where the other nodes forward requests that need a phone this node holds", default: "none: they answer 409" },
}

/** The options of `serve`: one per server setting, each with its default and environment variable. */
function settingOptions(): OptionHelp[] {
  return SETTINGS.map((s) => {
    const help = SETTING_HELP[s.flag]
    return { flag: `--${s.flag} ${help?.value ?? "VALUE"}`, text: help ? `${help.text} (default ${help.default}) [${s.env}]` : `[${s.env}]` }
  })
}

function optionBlock(options: readonly OptionHelp[]): string {
  if (options.length === 0) return ""
  const width = Math.max(...options.map((o) => o.flag.length))
  return `\nOptions:\n${options.map((o) => `  ${o.flag.padEnd(width)}  ${o.text}`).join("\n")}\n`
}

/** Every option a command (or one of its subcommands, whose own options are `own`) takes, as help lists them. */
export function commandOptions(command: CommandSpec, own: readonly OptionHelp[]): OptionHelp[] {
  return command.takesSettings ? settingOptions() : ownAndDataDirOptions(command, own)
}

/** `wagate help`: the usage of every command. */
export function overview(): string {
  const lines = COMMANDS.flatMap(usageLines)
  return `wagate: a self-hosted WhatsApp HTTP API

Usage:
${lines.map((l) => `  ${l}`).join("\n")}

With no command, wagate serves. Every command but help and version takes --data DIR (or WAGATE_DATA_DIR, default ./data).
Run \`wagate COMMAND --help\` for a command's options.
`
}

/** `wagate COMMAND --help`. */
export function commandHelp(command: CommandSpec): string {
  const subs = command.subcommands
  const usage = usageLines(command).map((l) => `  ${l}`).join("\n")
  let text = `${command.summary}\n\nUsage:\n${usage}\n`
  if (subs) {
    const width = Math.max(...subs.map((s) => s.name.length))
    text += `\nCommands:\n${subs.map((s) => `  ${s.name.padEnd(width)}  ${s.summary}`).join("\n")}\n`
  }
  text += optionBlock(commandOptions(command, command.options ?? []))
  if (subs) text += `\nRun \`wagate ${command.name} COMMAND --help\` for a command's options.\n`
  return text
}

/** `wagate COMMAND SUBCOMMAND --help`. */
export function subcommandHelp(command: CommandSpec, sub: SubcommandSpec): string {
  const more = MORE_HELP[`${command.name} ${sub.name}`]?.() ?? ""
  return `${sub.summary}\n\nUsage:\n  ${sub.usage}\n${optionBlock(commandOptions(command, sub.options))}${more}`
}

/** What a subcommand's help shows after its options, from vocabulary the command table cannot import. */
const MORE_HELP: Record<string, () => string> = {
  "keys create": () =>
    `\nScopes (--scopes takes any of these):\n${ALL_SCOPES.map((s) => `  ${s}`).join("\n")}\n` +
    `Without --scopes a key gets the canonical ones: ${CANONICAL_SCOPES.join(", ")}.\n` +
    "messages:write is an alias of messages:send, phone-numbers:read of phone_numbers:read.\n",
}

/**
 * The help that `words` (the command line without its options) asks for: the overview, a
 * command's or a subcommand's. A subcommand is recognised wherever it stands among the words,
 * so `wagate phones pair +14155550123 --help` shows the help of `phones pair`.
 */
export function helpFor(words: readonly string[]): string {
  const [name, ...rest] = words
  if (name === undefined) return overview()
  const command = findCommand(name)
  if (!command) throw new UsageError(`Unknown command "${name}"`)
  const sub = command.subcommands?.find((s) => rest.includes(s.name))
  return sub ? subcommandHelp(command, sub) : commandHelp(command)
}

/** `wagate help [COMMAND [SUBCOMMAND]]` */
export function helpCommand(argv: string[], io: CliIo): number {
  io.stdout(helpFor(argv.filter((a) => !a.startsWith("-"))))
  return 0
}
