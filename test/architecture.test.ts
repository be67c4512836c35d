import { describe, expect, test } from "bun:test"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"

const SRC = join(import.meta.dir, "..", "src")

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? files(path) : /\.tsx?$/.test(path) ? [path] : []
  })
}

const sources = files(SRC).map((path) => ({ path: relative(SRC, path), text: readFileSync(path, "utf8") }))

/** Every module specifier a file imports (static, dynamic and re-exports). */
function imports(text: string): string[] {
  const out: string[] = []
  for (const m of text.matchAll(/(?:import|export)\s[^'"]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|require\(\s*["']([^"']+)["']\s*\)/g)) {
    out.push((m[1] ?? m[2] ?? m[3])!)
  }
  return out
}

/** The layer a src-relative path belongs to. */
function layerOf(path: string): string {
  if (path.startsWith("whatsapp/baileys/")) return "whatsapp/baileys"
  const top = path.split("/")[0]!
  return /\.tsx?$/.test(top) ? "root" : top
}

/** Which layers each layer may import (http → domain → store → lib; the root wires everything). */
const ALLOWED: Record<string, string[]> = {
  lib: ["lib"],
  store: ["store", "lib"],
  domain: ["domain", "store", "lib", "whatsapp", "webhooks"],
  webhooks: ["webhooks", "store", "lib"],
  whatsapp: ["whatsapp", "lib"],
  "whatsapp/baileys": ["whatsapp/baileys", "whatsapp", "store", "lib"],
  http: ["http", "domain", "lib", "store-types"],
  cli: ["cli", "domain", "store", "lib", "root"],
  root: ["root", "cli", "http", "domain", "store", "lib", "whatsapp", "whatsapp/baileys", "webhooks"],
}

function resolveLayer(fromPath: string, specifier: string): string | null {
  if (!specifier.startsWith(".")) return null
  const target = join(fromPath, "..", specifier).replace(/\\/g, "/")
  if (target.startsWith("..")) return "outside"
  return layerOf(/\.tsx?$/.test(target) ? target : `${target}.ts`)
}

describe("architecture", () => {
  test("imports point one way: http → domain → store → lib", () => {
    const violations: string[] = []
    for (const { path, text } of sources) {
      const from = layerOf(path)
      for (const specifier of imports(text)) {
        const to = resolveLayer(path, specifier)
        if (to === null || to === "outside") continue
        // The HTTP layer may use store row *types* for mapping, never store functions.
        const typeOnly = new RegExp(`import\\s+type\\s[^;]*["']${specifier.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}["']`).test(text)
        const effective = from === "http" && to === "store" && typeOnly ? "store-types" : to
        if (!ALLOWED[from]!.includes(effective)) violations.push(`${path} (${from}) imports ${specifier} (${to})`)
      }
    }
    expect(violations).toEqual([])
  })

  test("Baileys is imported only under src/whatsapp/baileys/", () => {
    const offenders = sources
      .filter(({ path, text }) => !path.startsWith("whatsapp/baileys/") && imports(text).some((s) => s.startsWith("@whiskeysockets/baileys")))
      .map(({ path }) => path)
    expect(offenders).toEqual([])
  })

  test("Elysia is imported only by the HTTP layer and the app", () => {
    const offenders = sources
      .filter(({ path, text }) => !path.startsWith("http/") && path !== "app.ts" && imports(text).some((s) => s === "elysia" || s.startsWith("@elysiajs/")))
      .map(({ path }) => path)
    expect(offenders).toEqual([])
  })

  test("time is read only through the clock: no Date.now() or argument-less new Date() outside lib/clock.ts", () => {
    const offenders = sources
      .filter(({ path }) => path !== "lib/clock.ts")
      .filter(({ text }) => /Date\.now\(\)|new Date\(\)|performance\.now\(\)/.test(text))
      .map(({ path }) => path)
    expect(offenders).toEqual([])
  })

  test("no module mocking and no focused or skipped tests in the suite", () => {
    const testFiles = files(join(import.meta.dir)).filter((p) => p.endsWith(".test.ts") && !p.endsWith("architecture.test.ts"))
    const offenders = testFiles.filter((p) => /mock\.module\(|\b(test|it|describe)\.(only|skip|todo)\(/.test(readFileSync(p, "utf8")))
    expect(offenders).toEqual([])
  })
})
