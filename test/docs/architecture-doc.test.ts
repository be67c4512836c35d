import { describe, expect, test } from "bun:test"
import { existsSync, readFileSync } from "node:fs"
import { join } from "node:path"

/*
 * docs/architecture.md names files and functions so that a newcomer can open them in order. A
 * rename that forgets the page would send them nowhere: every path it names must exist, and in
 * the two walks every name must be declared in a file of its row.
 */

const REPO = join(import.meta.dir, "..", "..")
const DOC = readFileSync(join(REPO, "docs", "architecture.md"), "utf8")

/** Every `src/…`, `test/…` or `deploy/…` path the page names in backticks. */
function namedPaths(text: string): string[] {
  return [...new Set([...text.matchAll(/`((?:src|test|deploy)\/[^`*…]*?)`/g)].map((m) => m[1]!))]
}

interface WalkRow {
  step: string
  files: string[]
  names: string[]
}

/** The rows of the walk tables: `| step | files | names | what happens |`. */
function walkRows(text: string): WalkRow[] {
  const rows: WalkRow[] = []
  for (const section of text.split(/^## /m).filter((s) => s.startsWith("Walk "))) {
    for (const line of section.split("\n")) {
      const cells = line.split("|").map((c) => c.trim())
      if (cells.length < 5 || !/^\d+[a-z]?$/.test(cells[1]!)) continue
      const ticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!)
      rows.push({ step: `${section.slice(0, 6)} step ${cells[1]}`, files: ticked(cells[2]!), names: ticked(cells[3]!) })
    }
  }
  return rows
}

/** True when `name` is declared in `source`: a function, class, constant, type, method or member. */
function declares(source: string, name: string): boolean {
  const n = name.replace(/[$]/g, "\\$")
  return (
    new RegExp(`\\b(?:function\\*?|class|const|let|interface|type)\\s+${n}\\b`).test(source) ||
    new RegExp(`^\\s*(?:(?:private|public|readonly|async|static)\\s+)*${n}\\s*[(:<]`, "m").test(source)
  )
}

describe("docs/architecture.md", () => {
  test("every path it names exists", () => {
    const paths = namedPaths(DOC)
    expect(paths.length).toBeGreaterThan(40)
    expect(paths.filter((p) => !existsSync(join(REPO, p)))).toEqual([])
  })

  test("both walks name files in order, and every name is declared in a file of its row", () => {
    const rows = walkRows(DOC)
    expect(rows.filter((r) => r.step.startsWith("Walk 1")).length).toBeGreaterThan(10)
    expect(rows.filter((r) => r.step.startsWith("Walk 2")).length).toBeGreaterThan(5)
    const missing: string[] = []
    for (const row of rows) {
      const sources = row.files.map((f) => (existsSync(join(REPO, f)) ? readFileSync(join(REPO, f), "utf8") : ""))
      for (const name of row.names) if (!sources.some((s) => declares(s, name))) missing.push(`${row.step}: ${name} in ${row.files.join(", ")}`)
    }
    expect(missing).toEqual([])
  })

  test("its layer table matches the import rule test/architecture.test.ts enforces", () => {
    // The folders the table lists, and the architecture test's layer names for them.
    const layerOf: Record<string, string> = {
      "src/http/": "http",
      "src/domain/": "domain",
      "src/store/": "store",
      "src/lib/": "lib",
      "src/webhooks/": "webhooks",
      "src/whatsapp/": "whatsapp",
      "src/whatsapp/baileys/": "whatsapp/baileys",
      "src/cli/": "cli",
    }
    const rule = readFileSync(join(REPO, "test", "architecture.test.ts"), "utf8")
    const allowed = Object.fromEntries(
      [...rule.matchAll(/^\s+"?([\w/]+)"?: \[([^\]]*)\],$/gm)].map((m) => [m[1]!, [...m[2]!.matchAll(/"([^"]+)"/g)].map((x) => x[1]!)]),
    )
    const checked: string[] = []
    for (const line of DOC.split("\n")) {
      const cells = line.split("|").map((c) => c.trim())
      const folder = /^`(src\/[^`]+\/)`/.exec(cells[2] ?? "")?.[1]
      if (!folder || !layerOf[folder]) continue
      const layer = layerOf[folder]!
      // What the doc says the layer may import, in the test's names ("store row types" → store-types).
      const said = [...cells[3]!.matchAll(/`(\w+)`|the port|store row \*\*types\*\*|the root files/g)].map((m) =>
        m[1] ?? (m[0] === "the port" ? "whatsapp" : m[0].startsWith("store row") ? "store-types" : "root"),
      )
      const enforced = allowed[layer]!.filter((l) => l !== layer)
      expect([layer, [...new Set(said)].sort()]).toEqual([layer, [...enforced].sort()])
      checked.push(layer)
    }
    expect(checked.sort()).toEqual(Object.values(layerOf).sort())
  })
})
