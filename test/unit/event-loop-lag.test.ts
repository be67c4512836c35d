import { describe, expect, test } from "bun:test"
import type { Clock, TimerHandle } from "../../src/lib/clock"
import { createEventLoopLagMonitor, LAG_SAMPLE_INTERVAL_MS } from "../../src/lib/event-loop-lag"

/**
 * An event loop played by hand: `busy(ms)` is synchronous work (time passes, no timer runs),
 * `idle()` lets the timers that fell due run, late by however long the work took.
 */
class LoopClock implements Clock {
  now = 0
  private timers: Array<{ atMs: number; fn: () => void; live: boolean }> = []
  nowMs = () => this.now
  setTimer(delayMs: number, fn: () => void): TimerHandle {
    const timer = { atMs: this.now + delayMs, fn, live: true }
    this.timers.push(timer)
    return { cancel: () => void (timer.live = false) }
  }
  get pending(): number {
    return this.timers.filter((t) => t.live).length
  }
  busy(ms: number): void {
    this.now += ms
  }
  /** Runs due timers; with nothing due, time moves to the next one (an idle loop). */
  idle(): void {
    const next = this.timers.filter((t) => t.live).sort((a, b) => a.atMs - b.atMs)[0]
    if (!next) return
    this.now = Math.max(this.now, next.atMs)
    next.live = false
    this.timers = this.timers.filter((t) => t.live)
    next.fn()
  }
}

describe("event-loop lag monitor", () => {
  const cases: Array<{ name: string; busyMs: number[]; lagMs: number }> = [
    { name: "an idle loop has no lag", busyMs: [0, 0, 0], lagMs: 0 },
    { name: "work shorter than the interval is no lag", busyMs: [LAG_SAMPLE_INTERVAL_MS - 1], lagMs: 0 },
    { name: "a 40 ms stretch shows as 30 ms late at once", busyMs: [40], lagMs: 30 },
    { name: "a spike halves with each calm reading", busyMs: [40, 0], lagMs: 15 },
    { name: "two calm readings after the spike bring it under 10 ms", busyMs: [40, 0, 0], lagMs: 7.5 },
    { name: "a new spike larger than what is left replaces it", busyMs: [40, 60], lagMs: 50 },
  ]
  for (const { name, busyMs, lagMs } of cases) {
    test(name, () => {
      const clock = new LoopClock()
      const monitor = createEventLoopLagMonitor(clock)
      monitor.start()
      for (const ms of busyMs) {
        clock.busy(ms)
        clock.idle()
      }
      expect(monitor.lagMs()).toBe(lagMs)
      expect(monitor.readings()).toBe(busyMs.length)
    })
  }

  test("stop cancels its timer and start after stop measures again", () => {
    const clock = new LoopClock()
    const monitor = createEventLoopLagMonitor(clock)
    monitor.start()
    monitor.start()
    expect(clock.pending).toBe(1)
    monitor.stop()
    expect(clock.pending).toBe(0)
    monitor.start()
    clock.busy(30)
    clock.idle()
    expect(monitor.lagMs()).toBe(20)
  })

  test("watch(true) starts sampling and watch(false) stops it, so an idle server runs no timer", () => {
    const clock = new LoopClock()
    const monitor = createEventLoopLagMonitor(clock)
    expect(clock.pending).toBe(0)
    monitor.watch?.(true)
    monitor.watch?.(true)
    expect(clock.pending).toBe(1)
    monitor.watch?.(false)
    expect(clock.pending).toBe(0)
  })
})
