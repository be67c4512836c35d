import { describe, expect, test } from "bun:test"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"

const ROOT = join(import.meta.dir, "..", "..")
const SRC = join(ROOT, "src")

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? files(path) : /\.tsx?$/.test(path) ? [path] : []
  })
}

/**
 * Source text with comment continuations joined, so a citation wrapped over two comment lines
 * (`docs/x.md §` then ` * "Heading"`) reads as one.
 */
function joined(text: string): string {
  return text.replace(/\n\s*(?:\*(?!\/)|\/\/|--)\s*/g, " ")
}

/** The headings of a docs file, as written, without Markdown code marks. */
function headings(docPath: string): Set<string> {
  const text = readFileSync(join(ROOT, docPath), "utf8")
  return new Set([...text.matchAll(/^#{1,6}\s+(.+?)\s*$/gm)].map((m) => m[1]!.replaceAll("`", "")))
}

const sources = files(SRC).map((path) => ({ path: relative(ROOT, path), text: joined(readFileSync(path, "utf8")) }))
const CITATION = /(docs\/[\w-]+\.md) §\s*"([^"]+)"/g

describe("citations in src/ point into this repository's docs", () => {
  test("every § citation names a heading that exists in the cited docs file", () => {
    const broken: string[] = []
    let count = 0
    for (const { path, text } of sources) {
      for (const [, doc, heading] of text.matchAll(CITATION)) {
        count += 1
        let known: Set<string>
        try {
          known = headings(doc!)
        } catch {
          broken.push(`${path}: ${doc} does not exist`)
          continue
        }
        if (!known.has(heading!)) broken.push(`${path}: ${doc} has no heading "${heading}"`)
      }
    }
    expect(broken).toEqual([])
    // The rule above must have something to hold: the decisions are cited throughout src/.
    expect(count).toBeGreaterThan(20)
  })

  test("every § in src/ is a docs citation or an RFC section", () => {
    const stray: string[] = []
    for (const { path, text } of sources) {
      const rest = text.replace(CITATION, "").replace(/RFC \d+ §[\d.]+/g, "")
      if (rest.includes("§")) stray.push(path)
    }
    expect(stray).toEqual([])
  })

  test("no comment cites documents that live outside the repository", () => {
    const offenders = sources.filter(({ text }) => /API-DECISIONS|reference\/[\w-]+\.md|shared\/reference/.test(text)).map(({ path }) => path)
    expect(offenders).toEqual([])
  })
})
