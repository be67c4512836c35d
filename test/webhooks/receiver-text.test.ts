import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { createLogger } from "../../src/lib/logger"
import { boundedOutsideText, OUTSIDE_TEXT_MAX_CHARS } from "../../src/lib/outside-text"
import { signIn } from "../helpers/dashboard"
import { createHarness, type Harness } from "../helpers/harness"
import { TestClock } from "../helpers/test-clock"
import { addEndpoint, deliveryRows, waitForAttempts } from "../helpers/webhooks"

/*
 * What a receiver writes (a redirect's Location, its answer's body) reaches the delivery log,
 * `lastError`, the logs, the admin API and the dashboard only bounded to 256 characters with
 * control characters escaped (src/lib/outside-text.ts).
 */

// Any C0 or C1 control character, DEL included: none may reach a store, a log line or a screen raw.
const RAW_CONTROL = /[\u0000-\u001f\u007f-\u009f]/
// Sent as UTF-8, a C1 CSI (U+009B) arrives in a header as "Â" and U+009B: a terminal's escape.
const LOCATION = `http://evil.example/\u009b2J${"a".repeat(400)}`
const BODY = `\u001b]0;pwned\u0007\r\n\u0000${"b".repeat(5_000)}`

let h: Harness
let logLines: string[]
let listener: { port: number; stop(closeActive?: boolean): void }
let url = ""

beforeEach(async () => {
  logLines = []
  const clock = new TestClock()
  h = await createHarness({
    clock,
    logger: createLogger({ level: "debug", format: "pretty", nowIso: () => new Date(clock.nowMs()).toISOString(), write: (line) => logLines.push(line) }),
  })
  // A raw receiver: Bun.serve would refuse to send such a Location.
  listener = Bun.listen({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      data(socket) {
        const body = Buffer.from(BODY)
        socket.write(Buffer.concat([Buffer.from(`HTTP/1.1 307 Temporary Redirect\r\nLocation: ${LOCATION}\r\nContent-Length: ${body.length}\r\n\r\n`), body]))
      },
    },
  })
  url = `http://127.0.0.1:${listener.port}/hook`
})
afterEach(async () => {
  await h.close()
  listener.stop(true)
})

async function oneFailedAttempt(): Promise<{ endpointId: string; deliveryId: string }> {
  const { account, key, phone } = await h.seedTenant()
  const { id: endpointId } = await addEndpoint(h, account.id, url, { events: ["message.sent"] })
  const res = await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "hi" } })
  expect(res.status).toBe(201)
  await h.advance(10)
  const [delivery] = deliveryRows(h, endpointId)
  await waitForAttempts(h, delivery!.id, 1)
  return { endpointId, deliveryId: delivery!.id }
}

function expectSafe(text: string | null | undefined): asserts text is string {
  expect(text).toBeString()
  expect(text!).not.toMatch(RAW_CONTROL)
  expect(text!.length).toBeLessThanOrEqual(OUTSIDE_TEXT_MAX_CHARS)
}

describe("a receiver's text is bounded and escaped", () => {
  test("in the delivery log (error and body) and the delivery's lastError", async () => {
    const { deliveryId } = await oneFailedAttempt()
    const attempt = h.services.sqlite!.query("SELECT status_code AS statusCode, error, response_body AS responseBody FROM webhook_attempts WHERE delivery_id = ?").get(deliveryId) as {
      statusCode: number
      error: string
      responseBody: string
    }
    expect(attempt.statusCode).toBe(307)
    expectSafe(attempt.error)
    expect(attempt.error).toStartWith("redirect to http://evil.example/Â\\x9b2Jaaa")
    expect(attempt.error).toEndWith("… not followed")
    expectSafe(attempt.responseBody)
    expect(attempt.responseBody).toStartWith("\\x1b]0;pwned\\x07\\r\\n\\x00bbb")
    expect(attempt.responseBody).toEndWith("b…")
    const [delivery] = deliveryRows(h, (h.services.sqlite!.query("SELECT endpoint_id AS e FROM webhook_deliveries WHERE id = ?").get(deliveryId) as { e: string }).e)
    expect(delivery!.lastError).toBe(attempt.error)
  })

  test("in the log line of the failed attempt", async () => {
    await oneFailedAttempt()
    const line = logLines.find((l) => l.includes("webhook attempt failed"))
    expect(line).toBeDefined()
    expect(line!).not.toMatch(RAW_CONTROL)
    expect(line!).toContain("redirect to http://evil.example/Â\\x9b2J")
  })

  test("in the admin API and the dashboard, also for rows written before the bound existed", async () => {
    const { endpointId, deliveryId } = await oneFailedAttempt()
    // A row as an older version stored it: raw and long.
    h.services.sqlite!.query("UPDATE webhook_attempts SET error = ?1, response_body = ?1 WHERE delivery_id = ?2").run(BODY, deliveryId)
    h.services.sqlite!.query("UPDATE webhook_deliveries SET last_error = ? WHERE id = ?").run(BODY, deliveryId)
    const res = await h.request("GET", `/admin/v1/webhooks/${endpointId}/deliveries`, { key: await h.adminToken() })
    expect(res.status).toBe(200)
    const [view] = res.body.data.data
    expectSafe(view.lastError)
    expectSafe(view.attempts[0].error)
    expectSafe(view.attempts[0].responseBody)
    expect(view.attempts[0].responseBody).toBe(boundedOutsideText(BODY))

    const client = await signIn(h)
    const page = await client.get(`/dashboard/webhooks/${endpointId}`)
    expect(page.status).toBe(200)
    expect(page.html).toContain("\\x1b]0;pwned\\x07")
    expect(page.html).not.toMatch(RAW_CONTROL)
  })
})

describe("boundedOutsideText", () => {
  test.each([
    ["plain short text stays as it is", "HTTP 500", "HTTP 500"],
    ["C0 controls are escaped, common ones by name", "a\nb\rc\td\u0000e\u001b[31m", "a\\nb\\rc\\td\\x00e\\x1b[31m"],
    ["DEL and C1 controls are escaped", "x\u007fy\u0085z\u009b", "x\\x7fy\\x85z\\x9b"],
    ["other non-ASCII text stays", "réponse 日本 🎉", "réponse 日本 🎉"],
    ["exactly 256 characters are kept whole", "c".repeat(256), "c".repeat(256)],
    ["longer text is cut to 256 characters, the cut marked", "d".repeat(300), "d".repeat(255) + "…"],
    ["a cut never splits an escape", "e".repeat(253) + "\u0000" + "f", "e".repeat(253) + "…"],
    ["a cut never splits a surrogate pair", "g".repeat(254) + "🎉🎉", "g".repeat(254) + "…"],
  ])("%s", (_name, input, expected) => {
    expect(boundedOutsideText(input)).toBe(expected)
    expect(boundedOutsideText(input).length).toBeLessThanOrEqual(256)
    // Bounding what is already bounded changes nothing, so every layer may apply it.
    expect(boundedOutsideText(boundedOutsideText(input))).toBe(boundedOutsideText(input))
  })

  test("a 64 KiB answer costs no more than its first characters", () => {
    const huge = "\u001b".repeat(64 * 1024)
    expect(boundedOutsideText(huge)).toBe("\\x1b".repeat(63) + "…")
  })
})
