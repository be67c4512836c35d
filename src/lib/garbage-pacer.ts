/**
 * How far a media stage may raise the process's RSS with buffers it already discarded before it
 * collects them. Bun does not count the memory of discarded `Buffer`s (socket chunks, cipher
 * output) toward its next collection soon enough: a 100 MiB download or encryption at disk or
 * loopback speed left 40 to 60 MiB of them waiting, and RSS rose by that much
 * (docs/performance.md § "Media of live sends").
 */
export const MEDIA_GARBAGE_ALLOWANCE_BYTES = 16 * 1024 * 1024
/** How often a stage looks at RSS: reading it is a system call, so not on every chunk. */
export const MEDIA_RSS_CHECK_EVERY_BYTES = 4 * 1024 * 1024

/** Counts the bytes a stream stage has passed on, and collects garbage when RSS rose too far. */
export interface GarbagePacer {
  passed(bytes: number): void
}

export interface GarbagePacerOptions {
  allowanceBytes?: number
  checkEveryBytes?: number
  rssBytes?: () => number
  collect?: () => void
}

/**
 * A pacer for one stage. A full collection costs 20 to 30 ms in a running wagate, so it runs only
 * when RSS rose by the allowance since the stage began or since the last collection: a slow
 * download, whose garbage the runtime collects by itself, never pays for one.
 */
export function createGarbagePacer(options: GarbagePacerOptions = {}): GarbagePacer {
  const allowanceBytes = options.allowanceBytes ?? MEDIA_GARBAGE_ALLOWANCE_BYTES
  const checkEveryBytes = options.checkEveryBytes ?? MEDIA_RSS_CHECK_EVERY_BYTES
  const rssBytes = options.rssBytes ?? (() => process.memoryUsage.rss())
  const collect = options.collect ?? (() => Bun.gc(true))
  let baselineBytes = rssBytes()
  let sinceBytes = 0
  return {
    passed(bytes) {
      sinceBytes += bytes
      if (sinceBytes < checkEveryBytes) return
      sinceBytes = 0
      const rss = rssBytes()
      // The runtime collected by itself: the allowance counts from the lower level.
      baselineBytes = Math.min(baselineBytes, rss)
      if (rss - baselineBytes < allowanceBytes) return
      collect()
      // A collection may leave RSS where it was (the allocator keeps the pages for reuse): the
      // next allowance counts from there, and the kept pages are reused first.
      baselineBytes = rssBytes()
    },
  }
}
