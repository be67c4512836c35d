import { describe, expect, test } from "bun:test"
import { createOfflineWatchdog } from "../../src/whatsapp/baileys/offline-watchdog"
import { TEST_EPOCH_MS, TestClock } from "../helpers/test-clock"

function setup(held = true) {
  const clock = new TestClock()
  const released: { atMs: number; held: boolean }[] = []
  let flushes = 0
  const watchdog = createOfflineWatchdog({
    clock,
    waitMs: 10_000,
    release: () => {
      flushes++
      return held
    },
    onReleased: (info) => released.push(info),
  })
  return { clock, watchdog, released, flushes: () => flushes }
}

describe("offline-marker watchdog", () => {
  test("without the marker it releases the buffer once, the wait after the connection opened", () => {
    const { clock, watchdog, released, flushes } = setup()
    watchdog.opened()
    clock.advance(9_999)
    expect(flushes()).toBe(0)
    clock.advance(1)
    expect(flushes()).toBe(1)
    expect(released).toEqual([{ atMs: TEST_EPOCH_MS + 10_000, held: true }])
    watchdog.opened()
    clock.advance(60_000)
    expect(flushes()).toBe(1)
  })

  test("the marker in time disarms it: Baileys' own flush stands and nothing is recorded", () => {
    const { clock, watchdog, released, flushes } = setup()
    watchdog.opened()
    clock.advance(3_000)
    watchdog.markerArrived()
    clock.advance(60_000)
    expect([flushes(), released.length]).toEqual([0, 0])
  })

  test("a marker seen before the open event, or a close, leaves nothing armed", () => {
    const early = setup()
    early.watchdog.markerArrived()
    early.watchdog.opened()
    early.clock.advance(60_000)
    expect(early.flushes()).toBe(0)
    const closed = setup()
    closed.watchdog.opened()
    closed.watchdog.stop()
    closed.clock.advance(60_000)
    expect(closed.flushes()).toBe(0)
  })

  test("it reports whether anything was held when it fired", () => {
    const { clock, watchdog, released } = setup(false)
    watchdog.opened()
    clock.advance(10_000)
    expect(released).toEqual([{ atMs: TEST_EPOCH_MS + 10_000, held: false }])
  })
})
