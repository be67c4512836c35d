import { describe, expect, test } from "bun:test"
import { isPostgresUrl, redactDatabaseUrl } from "../../src/lib/database-url"

describe("redactDatabaseUrl", () => {
  test.each([
    { name: "a password", url: "postgres://wagate:s3cret@db.internal:5432/wagate", shown: "postgres://wagate:***@db.internal:5432/wagate" },
    { name: "the postgresql scheme", url: "postgresql://wagate:s3cret@127.0.0.1:1/x", shown: "postgresql://wagate:***@127.0.0.1:1/x" },
    { name: "a password with @ and : in it, percent-encoded", url: "postgres://u:p%40ss%3Aw@h/db", shown: "postgres://u:***@h/db" },
    { name: "options after the database", url: "postgres://u:pw@h:5432/db?sslmode=require", shown: "postgres://u:***@h:5432/db?sslmode=require" },
    { name: "a user without a password", url: "postgres://wagate@127.0.0.1:5432/wagate", shown: "postgres://wagate@127.0.0.1:5432/wagate" },
    { name: "no user at all", url: "postgres://127.0.0.1/wagate", shown: "postgres://127.0.0.1/wagate" },
    { name: "an unparsable URL with a password", url: "postgres://u:pw@[bad/db", shown: "postgres://u:***@[bad/db" },
    { name: "control characters", url: "postgres://u:pw@h/d\u001b[31mb", shown: "postgres://u:***@h/d%1B[31mb" },
  ])("$name", ({ url, shown }) => {
    expect(redactDatabaseUrl(url)).toBe(shown)
    expect(redactDatabaseUrl(url)).not.toContain("s3cret")
  })

  test("never shows more than a bounded length", () => {
    expect(redactDatabaseUrl(`postgres://u:pw@h/${"d".repeat(10_000)}`).length).toBeLessThanOrEqual(256)
  })
})

describe("isPostgresUrl", () => {
  test.each([
    { url: "postgres://h/db", is: true },
    { url: "postgresql://h/db", is: true },
    { url: "POSTGRES://h/db", is: true },
    { url: "mysql://h/db", is: false },
    { url: "sqlite:///data/wagate.db", is: false },
    { url: "postgres:h/db", is: false },
    { url: "./data/wagate.db", is: false },
  ])("$url: $is", ({ url, is }) => {
    expect(isPostgresUrl(url)).toBe(is)
  })
})
