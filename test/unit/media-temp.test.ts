import { afterEach, describe, expect, test } from "bun:test"
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { clearMediaTemp, discardFiles, mediaTempDir } from "../../src/lib/media-temp"

let dataDir: string
afterEach(() => rmSync(dataDir, { recursive: true, force: true }))

describe("media temp folder", () => {
  test("is made inside the data directory with mode 0700 on first use", () => {
    dataDir = mkdtempSync(join(tmpdir(), "wagate-mt-"))
    const dir = mediaTempDir(dataDir)
    expect(dir).toBe(join(dataDir, "tmp"))
    expect(statSync(dir).mode & 0o777).toBe(0o700)
  })

  test("a start removes what a crash left behind, and only the fetcher's files", () => {
    dataDir = mkdtempSync(join(tmpdir(), "wagate-mt-"))
    const dir = mediaTempDir(dataDir)
    for (const name of ["media-a.part", "media-b.part", "notes.txt"]) writeFileSync(join(dir, name), "x")
    expect(clearMediaTemp(dataDir)).toBe(2)
    expect(readdirSync(dir)).toEqual(["notes.txt"])
  })

  test("a data directory without the folder has nothing to clear", () => {
    dataDir = mkdtempSync(join(tmpdir(), "wagate-mt-"))
    expect(clearMediaTemp(dataDir)).toBe(0)
    expect(readdirSync(dataDir)).toEqual([])
  })

  test("discarding files that are already gone, or whose folder vanished, does not throw", () => {
    dataDir = mkdtempSync(join(tmpdir(), "wagate-mt-"))
    mkdirSync(join(dataDir, "tmp"))
    writeFileSync(join(dataDir, "tmp", "media-x.part"), "x")
    discardFiles([join(dataDir, "tmp", "media-x.part"), join(dataDir, "tmp", "media-gone.part"), join(dataDir, "nowhere", "media-y.part")])
    expect(readdirSync(join(dataDir, "tmp"))).toEqual([])
  })
})
