import { escapeControls } from "./outside-text"

/** Log levels in increasing severity. */
export const LOG_LEVELS = ["debug", "info", "warn", "error"] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

/** Structured logger: a message plus fields. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void
  info(msg: string, fields?: Record<string, unknown>): void
  warn(msg: string, fields?: Record<string, unknown>): void
  error(msg: string, fields?: Record<string, unknown>): void
}

const SECRET_FIELD = /authorization|token|secret|password|apikey|api_key|^key$/i
const BEARER = /\b(Bearer\s+)[^\s"',]+/gi
const KEY_LIKE = /\b(sk_(?:test|live)_|adm_|whsec_)[A-Za-z0-9+/=]+/g

/** Replaces secrets in a value: secret-named fields, bearer tokens and key-shaped strings. */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === "string") return value.replace(BEARER, "$1[redacted]").replace(KEY_LIKE, "$1[redacted]")
  if (value === null || typeof value !== "object") return value
  // Past the depth limit (deep or cyclic values) nothing is shown: returning the raw object
  // would print the secrets inside it, or make JSON.stringify throw on a cycle.
  if (depth > 5) return "[truncated]"
  // The stack starts with the message, so it carries the same secrets.
  if (value instanceof Error) return { name: value.name, message: redact(value.message), stack: redact(value.stack) }
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1))
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_FIELD.test(k) ? "[redacted]" : redact(v, depth + 1)
  return out
}

/**
 * Writes one line per entry: JSON (for log collectors) or a short human line (on a terminal).
 * Every field passes through `redact`, so a key or the Authorization header never reaches a log.
 */
export function createLogger(options: {
  level: LogLevel
  format: "json" | "pretty"
  nowIso: () => string
  write?: (line: string) => void
}): Logger {
  const min = LOG_LEVELS.indexOf(options.level)
  const write = options.write ?? ((line: string) => process.stderr.write(line + "\n"))
  const log = (level: LogLevel) => (msg: string, fields: Record<string, unknown> = {}) => {
    if (LOG_LEVELS.indexOf(level) < min) return
    const clean = redact(fields) as Record<string, unknown>
    if (options.format === "json") {
      write(JSON.stringify({ time: options.nowIso(), level, msg: redact(msg), ...clean }))
    } else {
      const extra = Object.entries(clean)
        .map(([k, v]) => `${k}=${typeof v === "string" ? escapeControls(v) : JSON.stringify(v)}`)
        .join(" ")
      write(`${options.nowIso().slice(11, 23)} ${level.toUpperCase().padEnd(5)} ${escapeControls(String(redact(msg)))}${extra ? " " + extra : ""}`)
    }
  }
  return { debug: log("debug"), info: log("info"), warn: log("warn"), error: log("error") }
}

/** A logger that discards everything (tests and quiet CLI commands). */
export const silentLogger: Logger = { debug() {}, info() {}, warn() {}, error() {} }
