import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { cli, makeDataDir, removeDataDir } from "./run-cli"

/*
 * A data directory that cannot be written ends every command with exit 1 and one sentence naming
 * the directory and what to do, never a raw EACCES and a stack. Running as root defeats chmod, so
 * the unusable directory here is a path under a regular file, which fails for root too.
 */

let root: string
beforeEach(() => {
  root = makeDataDir()
})
afterEach(() => removeDataDir(root))

describe("an unusable data directory", () => {
  test.each([[["serve", "--port", "0", "--host", "127.0.0.1"]], [["keys", "list"]], [["backup", "x.db"]], [["migrate"]]])(
    "`wagate %p` exits 1 with one sentence",
    async (argv) => {
      writeFileSync(join(root, "not-a-dir"), "")
      const dir = join(root, "not-a-dir", "data")
      const res = await cli(dir, argv)
      expect(res.code).toBe(1)
      expect(res.stderr).toBe(
        `error: cannot create data directory ${dir} (it or a parent is a file, not a directory): remove that file or choose another directory with --data (WAGATE_DATA_DIR)\n`,
      )
      expect(res.stdout).toBe("")
    },
  )
})

describe("a usable data directory", () => {
  test("`wagate migrate` creates it 0700 with a 0600 database", async () => {
    const dir = join(root, "data")
    expect((await cli(dir, ["migrate"])).code).toBe(0)
    expect(statSync(dir).mode & 0o777).toBe(0o700)
    expect(statSync(join(dir, "wagate.db")).mode & 0o777).toBe(0o600)
  })

  test("`wagate backup FILE` writes a 0600 file", async () => {
    const dir = join(root, "data")
    const target = join(root, "backup.db")
    const res = await cli(dir, ["backup", target])
    expect(res.code).toBe(0)
    expect(statSync(target).mode & 0o777).toBe(0o600)
  })
})
