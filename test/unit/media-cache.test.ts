import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createMediaCache, MEDIA_CACHE_FOLDER } from "../../src/lib/media-cache"
import { TestClock } from "../helpers/test-clock"

/* The on-disk media cache: whole files only, one download per key at a time, LRU under a cap. */

let dataDir: string
const clock = new TestClock()
beforeEach(() => {
  dataDir = mkdtempSync(join(tmpdir(), "wagate-media-cache-"))
})
afterEach(() => rmSync(dataDir, { recursive: true, force: true }))

const id = (n: number) => `inmsg_${String(n).padStart(26, "0")}`
const folder = () => join(dataDir, MEDIA_CACHE_FOLDER)
const write = (bytes: number) => async (path: string) => {
  writeFileSync(path, new Uint8Array(bytes), { mode: 0o600, flag: "wx" })
  return bytes
}

describe("media cache", () => {
  test("a fill that fails after writing part of the file leaves nothing behind, and the error reaches every waiting caller", async () => {
    const cache = createMediaCache({ dataDir, maxBytes: 10_000, clock })
    let calls = 0
    const failing = async (path: string) => {
      calls++
      writeFileSync(path, new Uint8Array(500), { mode: 0o600 })
      await Bun.sleep(1)
      throw new Error("connection reset")
    }
    const results = await Promise.allSettled([cache.fill(id(1), failing), cache.fill(id(1), failing)])
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"])
    expect(calls).toBe(1)
    expect(readdirSync(folder())).toEqual([])
    expect(cache.get(id(1))).toBeNull()
    expect(cache.totalBytes).toBe(0)
  })

  test("a restart forgets half-written downloads and keeps the last-use order from the files' times", async () => {
    const first = createMediaCache({ dataDir, maxBytes: 1_000, clock })
    await first.fill(id(1), write(400))
    clock.advance(1_000)
    await first.fill(id(2), write(400))
    clock.advance(1_000)
    first.get(id(1))
    await Bun.sleep(20)
    writeFileSync(join(folder(), `.part-${id(3)}-abc`), "half")
    const second = createMediaCache({ dataDir, maxBytes: 1_000, clock })
    expect(second.totalBytes).toBe(800)
    expect(readdirSync(folder()).sort()).toEqual([id(1), id(2)])
    clock.advance(1_000)
    await second.fill(id(4), write(400))
    // id(2) was used least recently before the restart: it goes.
    expect(readdirSync(folder()).sort()).toEqual([id(1), id(4)])
    expect(statSync(join(folder(), id(4))).mode & 0o777).toBe(0o600)
  })

  test("a file removed behind the cache's back is forgotten and filled again", async () => {
    const cache = createMediaCache({ dataDir, maxBytes: 1_000, clock })
    await cache.fill(id(1), write(300))
    rmSync(join(folder(), id(1)))
    expect(cache.get(id(1))).toBeNull()
    expect(cache.totalBytes).toBe(0)
    await cache.fill(id(1), write(300))
    expect(cache.get(id(1))?.sizeBytes).toBe(300)
  })

  test("keys that are not wagate ids are refused, so no path can be named", async () => {
    const cache = createMediaCache({ dataDir, maxBytes: 1_000, clock })
    expect(cache.get("../etc/passwd")).toBeNull()
    await expect(cache.fill("../x", write(1))).rejects.toThrow("not a cache key")
  })
})
