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

  test("rabbitmq-client is imported only by the broker port's one implementation, src/webhooks/amqp/rabbitmq.ts", () => {
    const offenders = sources
      .filter(({ path, text }) => path !== "webhooks/amqp/rabbitmq.ts" && imports(text).some((s) => s === "rabbitmq-client" || s.startsWith("rabbitmq-client/")))
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

/** Source text without comments, so that rules about code are not tripped by prose. */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/(^|[^:"'`])\/\/.*$/gm, "$1")
}

/** Each function declared with `function` in a file, with its length in lines (to its closing brace at the same indent). */
function functionLengths(text: string): { name: string; lines: number }[] {
  const lines = text.split("\n")
  const out: { name: string; lines: number }[] = []
  lines.forEach((line, i) => {
    const m = /^(\s*)(?:export )?(?:async )?function (\w+)/.exec(line)
    if (!m) return
    const end = lines.findIndex((l, j) => j > i && l === `${m[1]}}`)
    out.push({ name: m[2]!, lines: end - i + 1 })
  })
  return out
}

/** The text of every call `callee(…)` in `text`, parentheses balanced. */
function calls(text: string, callee: string): string[] {
  const out: string[] = []
  for (let at = text.indexOf(`${callee}(`); at !== -1; at = text.indexOf(`${callee}(`, at + 1)) {
    let depth = 0
    for (let i = at + callee.length; i < text.length; i++) {
      if (text[i] === "(") depth++
      else if (text[i] === ")" && --depth === 0) {
        out.push(text.slice(at, i + 1))
        break
      }
    }
  }
  return out
}

describe("structure (issue 14)", () => {
  test("the domain never imports the Baileys adapter: it sees WhatsApp only through the gateway port", () => {
    const offenders = sources
      .filter(({ path }) => path.startsWith("domain/"))
      .filter(({ path, text }) => imports(text).some((s) => resolveLayer(path, s) === "whatsapp/baileys"))
      .map(({ path }) => path)
    expect(offenders).toEqual([])
  })

  test("the gateway port and the domain carry no WhatsApp number codes: no close status or error numbers cross the port", () => {
    const port = sources.filter(({ path }) => path === "whatsapp/gateway.ts" || path === "whatsapp/failures.ts")
    expect(port.map(({ path }) => path).sort()).toEqual(["whatsapp/failures.ts", "whatsapp/gateway.ts"])
    const offenders = [...port, ...sources.filter(({ path }) => path.startsWith("domain/"))]
      // The domain's own HTTP statuses (usage counts requests by status) are not WhatsApp's: only its quoted codes are looked for there.
      .filter(({ path, text }) => /"[1-5]\d\d"/.test(code(text)) || (path.startsWith("whatsapp/") && /statusCode|\b[1-5]\d\d\b/.test(code(text))))
      .map(({ path }) => path)
    expect(offenders).toEqual([])
  })

  test("the shared vocabulary is declared only in src/lib/vocabulary.ts", () => {
    const declarations: [string, RegExp][] = [
      ["environments", /"test"\s*\|\s*"live"|"live"\s*\|\s*"test"|\[\s*"test",\s*"live"\s*\]|Literal\("test"\)|Literal\("live"\)/],
      ["message statuses", /"pending",\s*"sent",\s*"delivered"|"pending"\s*\|\s*"sent"\s*\|/],
      ["connection states", /"unpaired",\s*"pairing"|"unpaired"\s*\|\s*"pairing"/],
      ["message error codes", /"recipient_not_on_whatsapp",\s*"group_not_allowed"/],
      ["event names", /"message\.sent",\s*"message\.delivered"|"message\.sent"\s*\|\s*"message\.delivered"/],
      ["inbound types", /"text",\s*"image",\s*"video"|"text"\s*\|\s*"image"\s*\|/],
      ["pages", /interface Page</],
      ["pairing methods", /"qr"\s*\|\s*"code"|Literal\("qr"\)/],
      ["receipt kinds", /"delivered"\s*\|\s*"read"/],
    ]
    const offenders = sources
      .filter(({ path }) => path !== "lib/vocabulary.ts")
      .flatMap(({ path, text }) => declarations.filter(([, pattern]) => pattern.test(code(text))).map(([what]) => `${path}: ${what}`))
    expect(offenders).toEqual([])
  })

  test("caches are invalidated in the write path: only the writer bumps the change tracker, and every write to a cached table names it", () => {
    const bumps = sources.filter(({ path, text }) => path !== "deps.ts" && !path.startsWith("store/") && /\.bump\(\)/.test(code(text)))
    expect(bumps.map(({ path }) => path)).toEqual([])
    // The store functions that change the rows behind the caches (API keys with their accounts, webhook endpoints).
    const mutators = /\b(insertAccount|updateAccountRow|updateAccount|insertApiKey|revokeApiKeyRow|revokeApiKey|insertEndpoint|updateEndpoint|deleteEndpoint)\(/
    const unnamed = sources
      .filter(({ path }) => path.startsWith("domain/") || path.startsWith("cli/"))
      .flatMap(({ path, text }) => calls(code(text), "writer.write").filter((c) => mutators.test(c) && !/changed:\s*\[/.test(c)).map(() => path))
    expect(unnamed).toEqual([])
  })

  test("routes register from one index per prefix: the app imports no single /v1 or /admin/v1 route", () => {
    const app = sources.find(({ path }) => path === "app.ts")!
    const routeImports = imports(app.text).filter((s) => /routes\/(v1|admin)(\/|$)/.test(s))
    expect(routeImports.sort()).toEqual(["./http/routes/admin", "./http/routes/v1"])
  })

  test("no service is handed another through a thunk at the composition root", () => {
    const deps = sources.find(({ path }) => path === "deps.ts")!
    expect(code(deps.text).match(/\w+:\s*\(\)\s*=>\s*[a-z]\w*\s*[,}]/g) ?? []).toEqual([])
  })

  test("the domain stays in small pieces: modules under 220 lines, functions under 80 (a closure factory under 180)", () => {
    const tooLong = sources
      .filter(({ path }) => path.startsWith("domain/"))
      .flatMap(({ path, text }) => {
        const lineCount = text.split("\n").length
        const long = functionLengths(text).filter((f) => f.lines > (/^create[A-Z]/.test(f.name) ? 180 : 80))
        return [...(lineCount > 220 ? [`${path}: ${lineCount} lines`] : []), ...long.map((f) => `${path}: ${f.name} ${f.lines} lines`)]
      })
    expect(tooLong).toEqual([])
  })
})

describe("the store's two houses (issue 28)", () => {
  /** The src-relative module a relative specifier of `fromPath` names (without extension), or null for a package. */
  const target = (fromPath: string, specifier: string): string | null =>
    specifier.startsWith(".") ? join(fromPath, "..", specifier).replace(/\\/g, "/").replace(/\.tsx?$/, "") : null
  const reaches = (path: string, text: string, house: string) => imports(text).some((s) => target(path, s)?.startsWith(`store/${house}/`))

  test("bun:sqlite is imported only under src/store/sqlite/", () => {
    const offenders = sources.filter(({ path, text }) => !path.startsWith("store/sqlite/") && imports(text).includes("bun:sqlite")).map(({ path }) => path)
    expect(offenders).toEqual([])
  })

  test("the SQLite and PostgreSQL stores never import each other: what both need lives in the neutral root of src/store/", () => {
    const offenders = sources
      .filter(({ path, text }) => (path.startsWith("store/postgres/") && reaches(path, text, "sqlite")) || (path.startsWith("store/sqlite/") && reaches(path, text, "postgres")))
      .map(({ path }) => path)
    expect(offenders).toEqual([])
  })

  test("the root of src/store/ is database-neutral: only open.ts, which picks the store, imports either house", () => {
    const offenders = sources
      .filter(({ path }) => /^store\/[^/]+$/.test(path) && path !== "store/open.ts")
      .filter(({ path, text }) => reaches(path, text, "sqlite") || reaches(path, text, "postgres"))
      .map(({ path }) => path)
    expect(offenders).toEqual([])
  })

  test("the domain, HTTP, webhook and WhatsApp layers see the store only through its neutral root, never a house", () => {
    const offenders = sources
      .filter(({ path }) => /^(domain|http|webhooks|whatsapp)\//.test(path))
      .filter(({ path, text }) => reaches(path, text, "sqlite") || reaches(path, text, "postgres"))
      .map(({ path }) => path)
    expect(offenders).toEqual([])
  })
})

describe("floors (issue 28)", () => {
  test("no import runs up a floor: of the root modules only main.ts imports the CLI, which sits above the wiring it loads (deps.ts, app.ts, config.ts, doctor-net.ts)", () => {
    const offenders = sources
      .filter(({ path }) => layerOf(path) === "root" && path !== "main.ts")
      .filter(({ path, text }) => imports(text).some((s) => resolveLayer(path, s) === "cli"))
      .map(({ path }) => path)
    expect(offenders).toEqual([])
  })
})
