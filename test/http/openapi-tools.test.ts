import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import SwaggerParser from "@apidevtools/swagger-parser"
import { mkdtempSync, rmSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createHarness, type Harness } from "../helpers/harness"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Spawns processes (or runs the simulator): see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * What outside tools say about the served document: Redocly's recommended lint rules and
 * swagger-parser's validation, both run offline from the pinned dev dependencies.
 */

const REPO = join(import.meta.dir, "..", "..")
const REDOCLY = join(REPO, "node_modules", ".bin", "redocly")
const LINT_TIMEOUT_MS = 120_000

let h: Harness
let doc: any
let dir: string
let file: string
beforeAll(async () => {
  h = await createHarness()
  doc = (await h.request("GET", "/openapi.json")).body
  dir = mkdtempSync(join(tmpdir(), "wagate-openapi-"))
  file = join(dir, "openapi.json")
  writeFileSync(file, JSON.stringify(doc))
})
afterAll(async () => {
  await h.close()
  rmSync(dir, { recursive: true, force: true })
})

/** Runs `redocly lint` with the recommended rules and no telemetry; returns its JSON report. */
async function redoclyLint(path: string): Promise<{ totals: { errors: number; warnings: number }; problems: { ruleId: string; message: string }[] }> {
  const proc = Bun.spawn([REDOCLY, "lint", path, "--extends=recommended", "--format=json"], {
    cwd: dir,
    stdout: "pipe",
    stderr: "pipe",
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", REDOCLY_SUPPRESS_NOTIFICATIONS: "true" },
  })
  const [out] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited])
  return JSON.parse(out.slice(out.indexOf("{")))
}

describe("outside tools accept the OpenAPI document", () => {
  test(
    "Redocly's recommended rules find no error",
    async () => {
      const report = await redoclyLint(file)
      const errors = report.problems.filter((p: any) => p.severity === "error").map((p) => `${p.ruleId}: ${p.message}`)
      expect(errors).toEqual([])
      expect(report.totals.errors).toBe(0)
    },
    LINT_TIMEOUT_MS,
  )

  test(
    "Redocly does find errors in a document that breaks its rules (the check is not blind)",
    async () => {
      const broken = structuredClone(doc)
      delete broken.paths["/v1/messages"].get.responses["200"].description
      delete broken.paths["/v1/messages"].get.security
      const brokenFile = join(dir, "broken.json")
      writeFileSync(brokenFile, JSON.stringify(broken))
      const report = await redoclyLint(brokenFile)
      expect(report.totals.errors).toBeGreaterThan(0)
    },
    LINT_TIMEOUT_MS,
  )

  test("swagger-parser validates it, and refuses a response without a description", async () => {
    await SwaggerParser.validate(structuredClone(doc))
    const broken = structuredClone(doc)
    delete broken.paths["/v1/messages"].get.responses["200"].description
    await expect(SwaggerParser.validate(broken)).rejects.toThrow(/description/)
  })
})
