import { describe, expect, test } from "bun:test"
import { createLogger } from "../../src/lib/logger"
import { createRetentionPasses } from "../../src/lib/retention-passes"
import { createScheduler } from "../../src/lib/scheduler"
import { TestClock } from "../helpers/test-clock"

const FIRST_MS = 60_000
const INTERVAL_MS = 3_600_000
/** More than the scheduler's tick, so a job due at an instant has run once the clock passed it by this. */
const TICK_MS = 20

function setUp(pass: () => Promise<void>) {
  const clock = new TestClock()
  const lines: string[] = []
  const logger = createLogger({ level: "info", format: "json", nowIso: () => "t", write: (line) => lines.push(line) })
  const passes = createRetentionPasses({ clock, logger, scheduler: createScheduler(clock), kind: "test-retention", firstDelayMs: FIRST_MS, intervalMs: INTERVAL_MS, pass, failure: "test pruning failed" })
  return { clock, lines, passes }
}

/** Lets the promise callbacks of a pass that just ran settle. */
const settle = () => new Promise((resolve) => setImmediate(resolve))

describe("retention passes (the loop the webhook and resend retentions share)", () => {
  test("the first pass runs firstDelayMs after start, and each next one intervalMs after the previous ended", async () => {
    let runs = 0
    const { clock, passes } = setUp(async () => void runs++)
    passes.start()
    clock.advance(FIRST_MS - TICK_MS)
    expect(runs).toBe(0)
    clock.advance(2 * TICK_MS)
    expect(runs).toBe(1)
    await settle()
    clock.advance(INTERVAL_MS - 2 * TICK_MS)
    expect(runs).toBe(1)
    clock.advance(2 * TICK_MS)
    expect(runs).toBe(2)
    await passes.stop()
  })

  test("a failed pass is logged once at error with its reason, and the next pass is still scheduled", async () => {
    let runs = 0
    const { clock, lines, passes } = setUp(async () => {
      runs++
      throw new Error("disk full")
    })
    passes.start()
    clock.advance(FIRST_MS + TICK_MS)
    await settle()
    expect(lines.map((l) => JSON.parse(l) as { level: string; msg: string })).toEqual([expect.objectContaining({ level: "error", msg: "test pruning failed" })])
    expect(lines[0]).toContain("disk full")
    clock.advance(INTERVAL_MS + TICK_MS)
    expect(runs).toBe(2)
    await passes.stop()
  })

  test("a pass deletes batch after batch until one comes back short, and no further batch once stopped", async () => {
    const { passes } = setUp(async () => {})
    const sizes = [5, 5, 3, 5]
    expect(await passes.inBatches(5, async () => sizes.shift()!)).toBe(13)
    let calls = 0
    const stopping = passes.inBatches(5, async () => {
      if (++calls === 2) void passes.stop()
      // Full batches for ever, but for a bound that keeps a loop that ignores stop from hanging the test.
      return calls < 10 ? 5 : 0
    })
    expect(await stopping).toBe(10)
    expect(calls).toBe(2)
  })

  test("stop waits for the pass under way, and no pass is scheduled after it", async () => {
    let release: () => void = () => {}
    let runs = 0
    const { clock, passes } = setUp(() => {
      runs++
      return new Promise<void>((resolve) => (release = resolve))
    })
    passes.start()
    clock.advance(FIRST_MS + TICK_MS)
    let stopped = false
    const stopping = passes.stop().then(() => (stopped = true))
    await settle()
    expect(stopped).toBe(false)
    release()
    await stopping
    clock.advance(2 * INTERVAL_MS)
    expect(runs).toBe(1)
  })
})
