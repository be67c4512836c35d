import { describe, expect, test } from "bun:test"
import { createLogger, redact, type LogLevel } from "../../src/lib/logger"

const NOW = "2026-01-05T10:11:12.345Z"

/** A JSON logger whose lines are collected instead of written to stderr. */
function capture(level: LogLevel = "debug", format: "json" | "pretty" = "json") {
  const lines: string[] = []
  const logger = createLogger({ level, format, nowIso: () => NOW, write: (line) => lines.push(line) })
  return { logger, lines, parsed: () => lines.map((l) => JSON.parse(l) as Record<string, unknown>) }
}

const SECRETS = {
  test: "sk_test_4eC39HqLyjWDarjtT1zdp7dcXyZ0aBcDeFgHiJkLmNo",
  live: "sk_live_9Zy8Xw7Vu6Ts5Rq4Po3Nm2Lk1Jh0GfEdCbA98765432",
  admin: "adm_Q2x9Lm4Np7Rs1Tv3Wy5Za8Bc0De6Fg2Hj4Kl",
  webhook: "whsec_dGhpcyBpcyBhIHNlY3JldCBvZiAzMiBieXRlcyE+/w==",
  bearer: "abc.def-ghi_jkl~123",
}
const ALL_SECRET_FRAGMENTS = ["4eC39HqLyjWDarjtT1zdp7dc", "9Zy8Xw7Vu6Ts5Rq4Po3Nm2", "Q2x9Lm4Np7Rs1Tv3", "dGhpcyBpcyBh", "abc.def-ghi"]

function expectNoSecret(text: string): void {
  for (const fragment of ALL_SECRET_FRAGMENTS) expect(text).not.toContain(fragment)
}

describe("redact", () => {
  test.each([
    { name: "an Authorization header field", value: { authorization: `Bearer ${SECRETS.test}` }, expected: { authorization: "[redacted]" } },
    { name: "the header in capitals", value: { Authorization: "Basic dXNlcjpwYXNz" }, expected: { Authorization: "[redacted]" } },
    { name: "a token field", value: { adminToken: SECRETS.admin }, expected: { adminToken: "[redacted]" } },
    { name: "a secret field", value: { secret: SECRETS.webhook }, expected: { secret: "[redacted]" } },
    { name: "a password field", value: { password: "hunter2" }, expected: { password: "[redacted]" } },
    { name: "an apiKey field", value: { apiKey: "anything" }, expected: { apiKey: "[redacted]" } },
    { name: "a key field", value: { key: "anything" }, expected: { key: "[redacted]" } },
    { name: "a field merely containing key", value: { keyId: "key_01", keys: 3 }, expected: { keyId: "key_01", keys: 3 } },
    {
      name: "headers nested in a request",
      value: { req: { method: "POST", headers: { authorization: `Bearer ${SECRETS.live}`, "content-type": "application/json" } } },
      expected: { req: { method: "POST", headers: { authorization: "[redacted]", "content-type": "application/json" } } },
    },
    {
      name: "header pairs in an array",
      value: { headers: [["authorization", `Bearer ${SECRETS.bearer}`]] },
      expected: { headers: [["authorization", "Bearer [redacted]"]] },
    },
  ])("a secret-named field is replaced: $name", ({ value, expected }) => {
    expect(redact(value)).toEqual(expected)
  })

  test.each([
    { name: "a Bearer token in text", text: `got Bearer ${SECRETS.bearer} from client`, expected: "got Bearer [redacted] from client" },
    { name: "a lower-case bearer token", text: `bearer ${SECRETS.bearer}`, expected: "bearer [redacted]" },
    { name: "a test key", text: `key ${SECRETS.test} is invalid`, expected: "key sk_test_[redacted] is invalid" },
    { name: "a live key", text: `"${SECRETS.live}"`, expected: '"sk_live_[redacted]"' },
    { name: "an admin token", text: `token=${SECRETS.admin}`, expected: "token=adm_[redacted]" },
    { name: "a webhook secret with base64 symbols", text: `secret ${SECRETS.webhook} rotated`, expected: "secret whsec_[redacted] rotated" },
    { name: "two keys in one line", text: `${SECRETS.test},${SECRETS.live}`, expected: "sk_test_[redacted],sk_live_[redacted]" },
    { name: "harmless text", text: "sent msg_01abc to +14155550199", expected: "sent msg_01abc to +14155550199" },
  ])("a secret-shaped string is masked: $name", ({ text, expected }) => {
    expect(redact(text)).toBe(expected)
  })

  test("secret-shaped strings are masked in arrays and nested objects", () => {
    const out = redact({ a: [{ note: `used ${SECRETS.test}` }], b: { c: { d: `Bearer ${SECRETS.bearer}` } } })
    expect(out).toEqual({ a: [{ note: "used sk_test_[redacted]" }], b: { c: { d: "Bearer [redacted]" } } })
  })

  test("numbers, booleans and null pass unchanged", () => {
    expect(redact({ n: 1, b: true, z: null })).toEqual({ n: 1, b: true, z: null })
  })

  test("an Error keeps its name and loses the secret in its message and its stack", () => {
    const out = redact(new Error(`rejected ${SECRETS.live}`)) as { name: string; message: string; stack: string }
    expect(out.name).toBe("Error")
    expect(out.message).toBe("rejected sk_live_[redacted]")
    expect(out.stack).toContain("sk_live_[redacted]")
    expectNoSecret(JSON.stringify(out))
  })

  test("a secret nested deeper than the depth limit never comes out", () => {
    let value: Record<string, unknown> = { headers: { authorization: `Bearer ${SECRETS.test}` }, note: SECRETS.admin }
    for (let i = 0; i < 10; i++) value = { inner: value }
    expectNoSecret(JSON.stringify(redact(value)))
  })

  test("a cyclic object can be redacted and serialised", () => {
    const value: Record<string, unknown> = { token: SECRETS.admin }
    value.self = value
    expect(() => JSON.stringify(redact(value))).not.toThrow()
    expectNoSecret(JSON.stringify(redact(value)))
  })
})

describe("createLogger", () => {
  test("a JSON line has time, level, message and the redacted fields", () => {
    const { logger, parsed } = capture()
    logger.info("request", { method: "GET", authorization: `Bearer ${SECRETS.test}`, status: 200 })
    expect(parsed()).toEqual([{ time: NOW, level: "info", msg: "request", method: "GET", authorization: "[redacted]", status: 200 }])
  })

  test("secrets in the message itself are masked", () => {
    const { logger, lines } = capture()
    logger.warn(`unknown key ${SECRETS.test}`)
    expect(lines).toHaveLength(1)
    expectNoSecret(lines[0]!)
    expect(JSON.parse(lines[0]!).msg).toBe("unknown key sk_test_[redacted]")
  })

  test("no secret reaches a line in either format", () => {
    for (const format of ["json", "pretty"] as const) {
      const { logger, lines } = capture("debug", format)
      logger.error(`failed with ${SECRETS.webhook}`, {
        headers: { Authorization: `Bearer ${SECRETS.bearer}` },
        body: { note: `key ${SECRETS.live}` },
        err: new Error(`bad ${SECRETS.admin}`),
      })
      expect(lines).toHaveLength(1)
      expectNoSecret(lines[0]!)
    }
  })

  test("a pretty line shows the time of day, the level and the fields", () => {
    const { logger, lines } = capture("debug", "pretty")
    logger.warn("slow request", { path: "/v1/messages", ms: 1_234 })
    expect(lines).toEqual(["10:11:12.345 WARN  slow request path=/v1/messages ms=1234"])
  })

  test("a pretty line prints control characters from outside escaped, never raw, so a terminal cannot act on them", () => {
    const { logger, lines } = capture("debug", "pretty")
    logger.info("webhook attempt failed\u001b[2J", { error: "redirect to http://x/\u001b]0;t\u0007\n\u009b not followed" })
    expect(lines).toEqual(["10:11:12.345 INFO  webhook attempt failed\\x1b[2J error=redirect to http://x/\\x1b]0;t\\x07\\n\\x9b not followed"])
  })

  test.each<{ level: LogLevel; written: string[] }>([
    { level: "debug", written: ["debug", "info", "warn", "error"] },
    { level: "info", written: ["info", "warn", "error"] },
    { level: "warn", written: ["warn", "error"] },
    { level: "error", written: ["error"] },
  ])("at level $level only $written are written", ({ level, written }) => {
    const { logger, parsed } = capture(level)
    logger.debug("d")
    logger.info("i")
    logger.warn("w")
    logger.error("e")
    expect(parsed().map((l) => l.level)).toEqual(written)
  })
})
