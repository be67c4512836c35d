import { describe, expect, test } from "bun:test"
import { readdirSync, readFileSync, statSync } from "node:fs"
import { join, relative } from "node:path"

/*
 * Bun 1.4.5 gives every test and hook 5 s and ignores bunfig's `[test] timeout`, so a file whose
 * tests spawn processes or run the WhatsApp simulator would fail on a busy machine, or (a hook)
 * leave its tests unrun. These checks keep every such file on an explicit, longer default.
 */

const TEST_DIR = import.meta.dir

function testFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? testFiles(path) : path.endsWith(".test.ts") ? [path] : []
  })
}

/** A file whose tests start other processes, the compiled executable or the simulator. */
function spawnsOrSimulates(path: string, text: string): boolean {
  const rel = relative(TEST_DIR, path)
  return rel.startsWith("e2e") || rel.startsWith("wa-sim/") || /Bun\.spawn|spawnSync|new Proc\(|helpers\/wagate-process|wa-sim\/|live-world/.test(text)
}

describe("test timeouts", () => {
  test("every test file that spawns processes or runs the simulator sets a longer default timeout", () => {
    const missing = testFiles(TEST_DIR)
      .filter((path) => path !== import.meta.path)
      .map((path) => ({ path, text: readFileSync(path, "utf8") }))
      .filter(({ path, text }) => spawnsOrSimulates(path, text) && !/^setDefaultTimeout\(SLOW_TEST_TIMEOUT_MS\)$/m.test(text))
      .map(({ path }) => relative(TEST_DIR, path))
    expect(missing).toEqual([])
  })

  test("bunfig.toml sets no test timeout, which Bun 1.4.5 would silently ignore", () => {
    const bunfig = readFileSync(join(TEST_DIR, "..", "bunfig.toml"), "utf8")
    expect(bunfig).not.toMatch(/^\s*timeout\s*=/m)
  })
})
