/**
 * How many bytes of short-lived buffers a media stage may leave behind before it collects them.
 * Bun does not count the memory of discarded `Buffer`s (socket chunks, cipher output) toward its
 * next collection soon enough: a 100 MiB download or encryption at disk or loopback speed left
 * 40 to 60 MiB of them waiting, and RSS rose by that much. A full collection every 8 MiB kept
 * each stage near 16 MiB, for about a dozen collections of 10 to 20 ms per 100 MiB
 * (docs/performance.md § "Media of live sends").
 */
export const MEDIA_COLLECT_EVERY_BYTES = 8 * 1024 * 1024

/** Counts the bytes a stream stage has passed on and collects garbage every `everyBytes`. */
export interface GarbagePacer {
  passed(bytes: number): void
}

export function createGarbagePacer(everyBytes = MEDIA_COLLECT_EVERY_BYTES, collect: () => void = () => Bun.gc(true)): GarbagePacer {
  let sinceBytes = 0
  return {
    passed(bytes) {
      sinceBytes += bytes
      if (sinceBytes < everyBytes) return
      sinceBytes = 0
      collect()
    },
  }
}
