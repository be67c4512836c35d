import { describe, expect, test } from "bun:test"
import { createGarbagePacer } from "../../src/lib/garbage-pacer"

/*
 * A media stage collects the buffers it discarded once RSS rose by its allowance, and only then
 * (docs/performance.md § "Media of live sends").
 */

const MiB = 1024 * 1024

/** Runs chunks through a pacer over a simulated RSS (a function of the chunk and the collections so far); returns the collections. */
function simulate(chunks: readonly number[], rssAfterChunk: (i: number, collected: number) => number) {
  let collected = 0
  let i = -1
  const pacer = createGarbagePacer({ allowanceBytes: 16 * MiB, checkEveryBytes: 4 * MiB, rssBytes: () => (i < 0 ? 100 * MiB : rssAfterChunk(i, collected)), collect: () => collected++ })
  for (i = 0; i < chunks.length; i++) pacer.passed(chunks[i]!)
  return collected
}

describe("garbage pacer", () => {
  test.each([
    // RSS climbs by each chunk's size and a collection brings it back to where the stage began.
    { name: "a stage whose garbage piles up collects every allowance's worth", chunks: Array(100).fill(MiB), rss: (i: number, c: number) => 100 * MiB + (i + 1) * MiB - c * 16 * MiB, collections: 6 },
    { name: "a stage whose RSS stays flat (the runtime keeps up) never collects", chunks: Array(100).fill(MiB), rss: () => 100 * MiB, collections: 0 },
    { name: "a rise under the allowance never collects", chunks: Array(100).fill(MiB), rss: (i: number) => 100 * MiB + Math.min(i, 15) * MiB, collections: 0 },
    // After a collection that freed nothing visible, the allowance counts from the new level.
    { name: "pages kept after a collection are not counted again", chunks: Array(40).fill(MiB), rss: (i: number) => 100 * MiB + Math.min(i + 1, 20) * MiB, collections: 1 },
    { name: "RSS is read only every 4 MiB", chunks: [3 * MiB], rss: () => 500 * MiB, collections: 0 },
  ])("$name", ({ chunks, rss, collections }) => {
    expect(simulate(chunks, rss)).toBe(collections)
  })

  test("a fall in RSS lowers the level the allowance counts from", () => {
    const levels = [100, 80, 90, 97, 100].map((m) => m * MiB)
    let call = 0
    let collected = 0
    const pacer = createGarbagePacer({ allowanceBytes: 16 * MiB, checkEveryBytes: MiB, rssBytes: () => levels[Math.min(call++, levels.length - 1)]!, collect: () => collected++ })
    for (let i = 0; i < 4; i++) pacer.passed(MiB)
    // 80 → 97 is past the allowance although 100 → 97 is not.
    expect(collected).toBe(1)
  })
})
