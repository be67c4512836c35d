import type { Clock, TimerHandle } from "../../src/lib/clock"

interface Timer {
  id: number
  atMs: number
  fn: () => void
}

/** 2026-01-05T00:00:00.000Z, a Monday: day, week and month boundaries are easy to reason about. */
export const TEST_EPOCH_MS = Date.UTC(2026, 0, 5)

/**
 * A clock tests drive by hand. `advance` moves time forward and runs, in due order, every timer
 * that falls due on the way, each at its own due time, so code under test never sleeps.
 */
export class TestClock implements Clock {
  private now: number
  private timers: Timer[] = []
  private nextId = 1

  constructor(startMs = TEST_EPOCH_MS) {
    this.now = startMs
  }

  nowMs(): number {
    return this.now
  }

  setTimer(delayMs: number, fn: () => void): TimerHandle {
    const timer = { id: this.nextId++, atMs: this.now + Math.max(0, delayMs), fn }
    this.timers.push(timer)
    return { cancel: () => (this.timers = this.timers.filter((t) => t.id !== timer.id)) }
  }

  /** Number of timers waiting. */
  get pendingTimers(): number {
    return this.timers.length
  }

  /** Moves time forward by `ms`, running due timers in order (including ones they schedule). */
  advance(ms: number): void {
    const target = this.now + ms
    for (;;) {
      const due = this.timers.filter((t) => t.atMs <= target).sort((a, b) => a.atMs - b.atMs || a.id - b.id)[0]
      if (!due) break
      this.timers = this.timers.filter((t) => t.id !== due.id)
      this.now = Math.max(this.now, due.atMs)
      due.fn()
    }
    this.now = target
  }

  /**
   * `advance` between two settlings. The store is async, so work often finishes in later turns
   * and sets its timers only then: what was started before the call settles first, so its
   * timers count from the present; then time moves, and after each `settle` the timers that the
   * fired ones set, due already, fire too, until none is left (at most `maxRounds` rounds). A
   * timer armed late fires late, as it would on a busy machine, never early.
   */
  async advanceAndCatchUp(ms: number, settle: () => Promise<void>, maxRounds = 50): Promise<void> {
    await settle()
    this.advance(ms)
    for (let round = 0; round < maxRounds; round++) {
      await settle()
      if (!this.timers.some((t) => t.atMs <= this.now)) return
      this.advance(0)
    }
  }

  /** Moves time to an absolute instant (never backwards). */
  advanceTo(ms: number): void {
    this.advance(Math.max(0, ms - this.now))
  }
}
