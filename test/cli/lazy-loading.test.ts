import { describe, expect, test } from "bun:test"
import { existsSync, readFileSync } from "node:fs"
import { dirname, join, relative } from "node:path"
import { COMMANDS } from "../../src/cli/commands"

/*
 * `wagate version` and `wagate help` must start about as fast as a compiled hello-world, so the
 * entry point loads the server (Elysia, the store, the domain) only through the command table's
 * dynamic imports. This follows the static imports from src/main.ts and checks what they reach.
 */

const SRC = join(import.meta.dir, "..", "..", "src")

/** The module specifiers a file imports statically (`import … from`, `export … from`, `import "…"`), type-only imports left out. */
function staticImports(text: string): string[] {
  const out: string[] = []
  for (const m of text.matchAll(/^(import|export)\s+(type\s+)?(?:[^'";]*?\sfrom\s+)?["']([^"']+)["']/gm)) {
    if (!m[2]) out.push(m[3]!)
  }
  return out
}

function resolveSource(from: string, specifier: string): string {
  const base = join(dirname(from), specifier)
  return existsSync(`${base}.ts`) ? `${base}.ts` : base
}

/** Every source file and package the module at `entry` loads before any dynamic import runs. */
function staticClosure(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>()
  const packages = new Set<string>()
  const visit = (file: string) => {
    if (files.has(file)) return
    files.add(file)
    for (const specifier of staticImports(readFileSync(file, "utf8"))) {
      if (specifier.startsWith(".")) {
        if (specifier.endsWith(".json")) continue
        visit(resolveSource(file, specifier))
      } else packages.add(specifier)
    }
  }
  visit(entry)
  return { files: [...files].map((f) => relative(SRC, f)).sort(), packages: [...packages].sort() }
}

describe("the CLI loads each command's code only when that command runs", () => {
  test("src/main.ts reaches only the CLI's light modules and Node built-ins before a command is chosen", () => {
    const { files, packages } = staticClosure(join(SRC, "main.ts"))
    expect(files.filter((f) => !f.startsWith("cli/") && f !== "main.ts")).toEqual([])
    expect(files).not.toContain("cli/serve.ts")
    expect(packages.filter((p) => !p.startsWith("node:"))).toEqual([])
  })

  test("the option check every command runs first loads only the command table and the word distance, no settings", () => {
    const { files, packages } = staticClosure(join(SRC, "cli", "options.ts"))
    expect(files).toEqual(["cli/args.ts", "cli/commands.ts", "cli/options.ts", "lib/closest-word.ts"])
    expect(packages.filter((p) => !p.startsWith("node:"))).toEqual([])
  })

  test.each([
    ["version", ["cli/version.ts", "store/sqlite/db.ts", "store/sqlite/migrations.ts", "version.ts"]],
    ["help", ["cli/args.ts", "cli/commands.ts", "cli/help.ts", "config.ts", "lib/logger.ts", "lib/net-policy.ts"]],
  ])("`wagate %s` loads no Elysia, no domain and no HTTP layer", (name, expected) => {
    const command = COMMANDS.find((c) => c.name === name)!
    const module = /import\("\.\/([\w-]+)"\)/.exec(command.load.toString())![1]!
    const { files, packages } = staticClosure(join(SRC, "cli", `${module}.ts`))
    expect(files.filter((f) => /^(domain|http|webhooks|whatsapp\/baileys)\/|^(app|deps)\.ts$/.test(f))).toEqual([])
    for (const file of expected) expect(files).toContain(file)
    expect(packages.filter((p) => p === "elysia" || p.startsWith("@elysiajs/") || p.startsWith("@whiskeysockets/"))).toEqual([])
  })
})
