import { randomBytes } from "node:crypto"
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs"
import { rename, rm, utimes } from "node:fs/promises"
import { join } from "node:path"
import type { Clock } from "./clock"
import { DATA_DIR_MODE } from "./data-dir"

/** The folder inside the data directory that holds downloaded inbound media. */
export const MEDIA_CACHE_FOLDER = "media-cache"
/** A download in progress is written under this prefix and renamed when complete, so a crash leaves only these behind. */
const PART_PREFIX = ".part-"
/** Cached file names are ids wagate made; anything else in the folder is left alone. */
const CACHE_NAME = /^[a-z]+_[0-9a-z]{26}$/

/** One cached file. */
export interface CachedFile {
  path: string
  sizeBytes: number
}

/**
 * Downloaded files on disk under a total size cap, least recently used out first. A file is
 * written under a temporary name (mode 0600) and renamed into place only when complete, so a
 * failed download leaves nothing, and two requests for the same key download it once. Last use
 * is kept in memory and written to the file's mtime, so the order survives a restart.
 */
export interface MediaCache {
  /** The cached file of `key`, marked as just used; null when not cached. */
  get(key: string): CachedFile | null
  /**
   * The cached file of `key`, downloading it with `fill` when absent. `fill` writes the file at
   * the path it is given (which does not exist yet) and resolves to its size; when it throws, the
   * path is removed and every waiting caller gets the error.
   */
  fill(key: string, fill: (path: string) => Promise<number>): Promise<CachedFile>
  /** Bytes cached now. */
  readonly totalBytes: number
}

export function createMediaCache(options: { dataDir: string; maxBytes: number; clock: Clock }): MediaCache {
  const dir = join(options.dataDir, MEDIA_CACHE_FOLDER)
  const entries = new Map<string, { sizeBytes: number; usedAtMs: number }>()
  const inFlight = new Map<string, Promise<CachedFile>>()
  let totalBytes = 0
  let loaded = false

  /** Made and read on first use: a server that never serves media never creates the folder. */
  function load(): void {
    if (loaded) return
    loaded = true
    mkdirSync(dir, { recursive: true, mode: DATA_DIR_MODE })
    const found: [string, { sizeBytes: number; usedAtMs: number }][] = []
    for (const name of readdirSync(dir)) {
      const path = join(dir, name)
      if (name.startsWith(PART_PREFIX)) rmSync(path, { force: true })
      else if (CACHE_NAME.test(name)) {
        const stat = statSync(path)
        found.push([name, { sizeBytes: stat.size, usedAtMs: stat.mtimeMs }])
      }
    }
    // The map's order is the eviction order: least recently used first.
    for (const [name, entry] of found.sort((a, b) => a[1].usedAtMs - b[1].usedAtMs)) {
      entries.set(name, entry)
      totalBytes += entry.sizeBytes
    }
  }

  function touch(key: string, entry: { sizeBytes: number; usedAtMs: number }): void {
    entry.usedAtMs = options.clock.nowMs()
    entries.delete(key)
    entries.set(key, entry)
    const seconds = entry.usedAtMs / 1000
    // Best effort: a lost mtime only makes the order after a restart less exact.
    utimes(join(dir, key), seconds, seconds).catch(() => undefined)
  }

  function evict(keep: string): void {
    for (const [key, entry] of entries) {
      if (totalBytes <= options.maxBytes) return
      if (key === keep) continue
      entries.delete(key)
      totalBytes -= entry.sizeBytes
      // A response streaming this file keeps reading it: an unlinked file lives while it is open.
      rmSync(join(dir, key), { force: true })
    }
  }

  async function download(key: string, fill: (path: string) => Promise<number>): Promise<CachedFile> {
    const part = join(dir, `${PART_PREFIX}${key}-${randomBytes(6).toString("hex")}`)
    const path = join(dir, key)
    try {
      const sizeBytes = await fill(part)
      await rename(part, path)
      const entry = { sizeBytes, usedAtMs: options.clock.nowMs() }
      entries.set(key, entry)
      totalBytes += sizeBytes
      // Last use is the injected clock's time, on disk too, so the order after a restart is the same.
      touch(key, entry)
      evict(key)
      return { path, sizeBytes }
    } catch (err) {
      await rm(part, { force: true })
      throw err
    }
  }

  return {
    get(key) {
      if (!CACHE_NAME.test(key)) return null
      load()
      const entry = entries.get(key)
      if (!entry) return null
      // Someone removed the file (an operator clearing the cache): forget it, so it is downloaded again.
      if (!existsSync(join(dir, key))) {
        entries.delete(key)
        totalBytes -= entry.sizeBytes
        return null
      }
      touch(key, entry)
      return { path: join(dir, key), sizeBytes: entry.sizeBytes }
    },
    fill(key, fill) {
      if (!CACHE_NAME.test(key)) return Promise.reject(new TypeError(`not a cache key: ${key.slice(0, 40)}`))
      const cached = this.get(key)
      if (cached) return Promise.resolve(cached)
      const running = inFlight.get(key)
      if (running) return running
      const started = download(key, fill).finally(() => inFlight.delete(key))
      inFlight.set(key, started)
      return started
    },
    get totalBytes() {
      load()
      return totalBytes
    },
  }
}
