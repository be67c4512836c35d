import { describe, expect, test } from "bun:test"
import { createGarbagePacer } from "../../src/lib/garbage-pacer"

/* A media stage collects the buffers it discarded every so many bytes (docs/performance.md § "Media of live sends"). */

describe("garbage pacer", () => {
  test.each([
    { name: "nothing before the first interval", chunks: [3, 3, 3], every: 10, collections: 0 },
    { name: "one collection when the interval is reached exactly", chunks: [5, 5], every: 10, collections: 1 },
    { name: "a count that starts again after each collection", chunks: [6, 6, 6, 6], every: 10, collections: 2 },
    { name: "one collection for a chunk larger than the interval", chunks: [25], every: 10, collections: 1 },
    { name: "a collection every 8 MiB of 512 KiB chunks", chunks: Array(200).fill(512 * 1024), every: 8 * 1024 * 1024, collections: 12 },
  ])("$name", ({ chunks, every, collections }) => {
    let collected = 0
    const pacer = createGarbagePacer(every, () => collected++)
    for (const bytes of chunks) pacer.passed(bytes)
    expect(collected).toBe(collections)
  })
})
