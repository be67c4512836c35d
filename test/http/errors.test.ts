import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { createLogger } from "../../src/lib/logger"
import { createHarness, expectErrorEnvelope, type Harness } from "../helpers/harness"

let h: Harness
let logLines: string[]
beforeEach(async () => {
  logLines = []
  h = await createHarness({
    logger: createLogger({ level: "debug", format: "json", nowIso: () => "t", write: (line) => logLines.push(line) }),
  })
})
afterEach(() => h.close())

describe("unexpected failures", () => {
  test("a 500 reveals no stack, SQL or path, and the cause is logged with the Authorization redacted", async () => {
    const { key } = await h.seedTenant()
    // Break the store underneath the API: the list query now fails inside SQLite.
    h.services.sqlite!.run("DROP TABLE message_sequences")
    const res = await h.request("GET", "/v1/messages", { key })
    expect(expectErrorEnvelope(res, 500, "Internal Server Error", "/v1/messages")).toEqual(["Internal server error"])
    const text = JSON.stringify(res.body)
    expect(text).not.toContain("message_sequences")
    expect(text).not.toContain("SQLite")
    expect(text).not.toContain(".ts")
    const logged = logLines.find((l) => l.includes("request failed"))
    expect(logged).toContain("message_sequences")
    expect(logLines.join("\n")).not.toContain(key)
  })
})
