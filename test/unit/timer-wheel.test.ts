import { afterEach, describe, expect, test } from "bun:test"
import type { Clock, TimerHandle } from "../../src/lib/clock"
import { TimerWheel } from "../../src/lib/timer-wheel"
import { TestClock } from "../helpers/test-clock"

interface Fired {
  atMs: number
  items: string[]
}

let wheels: TimerWheel<string>[] = []
afterEach(() => {
  for (const w of wheels) w.stop()
  wheels = []
})

/** A wheel on `clock` that records every onDue call with the clock time it ran at. */
function recordingWheel(clock: Clock, tickMs = 10, slotCount = 1024) {
  const fired: Fired[] = []
  const wheel = new TimerWheel<string>(clock, (items) => fired.push({ atMs: clock.nowMs(), items }), tickMs, slotCount)
  wheels.push(wheel)
  return { wheel, fired, all: () => fired.flatMap((f) => f.items) }
}

describe("firing time", () => {
  test.each([
    { name: "due on a tick boundary", offsetMs: 30, firesAtOffset: 30 },
    { name: "due inside a tick is rounded up to the tick end", offsetMs: 25, firesAtOffset: 30 },
    { name: "due 1 ms after a tick boundary", offsetMs: 31, firesAtOffset: 40 },
    { name: "due in the current tick fires on the next one", offsetMs: 0, firesAtOffset: 10 },
    { name: "due in the past fires on the next tick", offsetMs: -5_000, firesAtOffset: 10 },
  ])("$name", ({ offsetMs, firesAtOffset }) => {
    const clock = new TestClock()
    const t0 = clock.nowMs()
    const { wheel, fired } = recordingWheel(clock)
    wheel.schedule("a", t0 + offsetMs, "a")
    clock.advance(firesAtOffset - 1)
    expect(fired).toEqual([])
    clock.advance(1)
    expect(fired).toEqual([{ atMs: t0 + firesAtOffset, items: ["a"] }])
  })

  test("an entry never fires before its due time", () => {
    const clock = new TestClock()
    const t0 = clock.nowMs()
    const { wheel, fired } = recordingWheel(clock, 10, 16)
    const due = new Map<string, number>()
    for (let i = 0; i < 200; i++) {
      const key = `k${i}`
      due.set(key, t0 + 1 + ((i * 7_919) % 3_000))
      wheel.schedule(key, due.get(key)!, key)
    }
    clock.advance(4_000)
    expect(fired.flatMap((f) => f.items).sort()).toEqual([...due.keys()].sort())
    for (const f of fired) {
      for (const key of f.items) {
        expect(f.atMs).toBeGreaterThanOrEqual(due.get(key)!)
        expect(f.atMs - due.get(key)!).toBeLessThan(10)
      }
    }
  })

  test("entries of one tick are handed over in one call, in due order", () => {
    const clock = new TestClock()
    const t0 = clock.nowMs()
    const { wheel, fired } = recordingWheel(clock)
    wheel.schedule("late", t0 + 19, "late")
    wheel.schedule("early", t0 + 11, "early")
    wheel.schedule("middle", t0 + 15, "middle")
    clock.advance(20)
    expect(fired).toEqual([{ atMs: t0 + 20, items: ["early", "middle", "late"] }])
  })
})

describe("cancel and reschedule", () => {
  test("a cancelled entry never fires", () => {
    const clock = new TestClock()
    const t0 = clock.nowMs()
    const { wheel, all } = recordingWheel(clock)
    wheel.schedule("a", t0 + 50, "a")
    wheel.schedule("b", t0 + 50, "b")
    wheel.cancel("a")
    expect(wheel.size).toBe(1)
    clock.advance(1_000)
    expect(all()).toEqual(["b"])
  })

  test("cancelling an unknown key is harmless", () => {
    const clock = new TestClock()
    const { wheel, all } = recordingWheel(clock)
    wheel.schedule("a", clock.nowMs() + 10, "a")
    wheel.cancel("nope")
    clock.advance(10)
    expect(all()).toEqual(["a"])
  })

  test("rescheduling a key earlier replaces it: one firing, at the new time, with the new item", () => {
    const clock = new TestClock()
    const t0 = clock.nowMs()
    const { wheel, fired } = recordingWheel(clock)
    wheel.schedule("k", t0 + 100, "first")
    wheel.schedule("k", t0 + 50, "second")
    expect(wheel.size).toBe(1)
    clock.advance(1_000)
    expect(fired).toEqual([{ atMs: t0 + 50, items: ["second"] }])
  })

  test("rescheduling a key later replaces it: nothing at the old time", () => {
    const clock = new TestClock()
    const t0 = clock.nowMs()
    const { wheel, fired } = recordingWheel(clock)
    wheel.schedule("k", t0 + 50, "first")
    wheel.schedule("k", t0 + 200, "second")
    clock.advance(1_000)
    expect(fired).toEqual([{ atMs: t0 + 200, items: ["second"] }])
  })
})

describe("more than one revolution ahead", () => {
  // 8 slots of 10 ms: one revolution is 80 ms, so +90, +170 and +250 share the slot of +10.
  test("entries sharing a slot across revolutions each fire at their own time", () => {
    const clock = new TestClock()
    const t0 = clock.nowMs()
    const { wheel, fired } = recordingWheel(clock, 10, 8)
    for (const offset of [250, 90, 10, 170]) wheel.schedule(`+${offset}`, t0 + offset, `+${offset}`)
    clock.advance(1_000)
    expect(fired).toEqual([
      { atMs: t0 + 10, items: ["+10"] },
      { atMs: t0 + 90, items: ["+90"] },
      { atMs: t0 + 170, items: ["+170"] },
      { atMs: t0 + 250, items: ["+250"] },
    ])
  })

  test("a lone entry many revolutions away fires at its time, not a revolution early", () => {
    const clock = new TestClock()
    const t0 = clock.nowMs()
    const { wheel, fired } = recordingWheel(clock, 10, 8)
    wheel.schedule("far", t0 + 10_005, "far")
    clock.advance(10_009)
    expect(fired).toEqual([])
    clock.advance(1)
    expect(fired).toEqual([{ atMs: t0 + 10_010, items: ["far"] }])
  })

  test("a near entry scheduled after a far one in the same slot fires first", () => {
    const clock = new TestClock()
    const t0 = clock.nowMs()
    const { wheel, fired } = recordingWheel(clock, 10, 8)
    wheel.schedule("far", t0 + 330, "far")
    clock.advance(5)
    wheel.schedule("near", t0 + 10, "near")
    clock.advance(1_000)
    expect(fired.map((f) => [f.atMs - t0, f.items])).toEqual([
      [10, ["near"]],
      [330, ["far"]],
    ])
  })
})

/**
 * A clock whose timers can run late, as they do after the process was suspended or the event
 * loop was blocked: `jump` moves time without running anything, `runDue` then runs the timers
 * that are overdue, all at the current (late) time. TestClock always runs a timer at its own
 * due time, so it cannot show this case.
 */
class LateClock implements Clock {
  private timers: { id: number; atMs: number; fn: () => void }[] = []
  private nextId = 1
  constructor(private now: number) {}
  nowMs(): number {
    return this.now
  }
  setTimer(delayMs: number, fn: () => void): TimerHandle {
    const timer = { id: this.nextId++, atMs: this.now + Math.max(0, delayMs), fn }
    this.timers.push(timer)
    return { cancel: () => (this.timers = this.timers.filter((t) => t.id !== timer.id)) }
  }
  get pendingTimers(): number {
    return this.timers.length
  }
  jump(ms: number): void {
    this.now += ms
  }
  runDue(): void {
    for (;;) {
      const due = this.timers.filter((t) => t.atMs <= this.now).sort((a, b) => a.atMs - b.atMs)[0]
      if (!due) return
      this.timers = this.timers.filter((t) => t.id !== due.id)
      due.fn()
    }
  }
}

describe("a big jump in time", () => {
  test("a late timer fires every overdue entry once, in due order, and keeps the future ones", () => {
    const t0 = new TestClock().nowMs()
    const clock = new LateClock(t0)
    const { wheel, fired } = recordingWheel(clock, 10, 8)
    // Offsets spread over many revolutions and sharing slots, scheduled out of order.
    const offsets = [700, 15, 95, 5_000, 330, 80, 2_000, 9_999, 10_001, 20_000]
    for (const o of offsets) wheel.schedule(`+${o}`, t0 + o, `+${o}`)
    clock.jump(10_000)
    clock.runDue()
    expect(fired).toEqual([{ atMs: t0 + 10_000, items: ["+15", "+80", "+95", "+330", "+700", "+2000", "+5000", "+9999"] }])
    expect(wheel.size).toBe(2)
    clock.runDue()
    expect(fired).toHaveLength(1)
    clock.jump(20_000)
    clock.runDue()
    expect(fired.slice(1)).toEqual([{ atMs: t0 + 30_000, items: ["+10001", "+20000"] }])
    expect(clock.pendingTimers).toBe(0)
  })

  test("after a jump the wheel re-arms for the next entry at its right time", () => {
    const t0 = new TestClock().nowMs()
    const clock = new LateClock(t0)
    const { wheel, fired } = recordingWheel(clock, 10, 8)
    wheel.schedule("overdue", t0 + 10, "overdue")
    wheel.schedule("next", t0 + 1_234, "next")
    clock.jump(1_000)
    clock.runDue()
    expect(fired.map((f) => f.items)).toEqual([["overdue"]])
    clock.jump(239)
    clock.runDue()
    expect(fired).toHaveLength(1)
    clock.jump(1)
    clock.runDue()
    expect(fired.at(-1)).toEqual({ atMs: t0 + 1_240, items: ["next"] })
  })

  test("with the test clock, one long advance fires each entry once at its own tick", () => {
    const clock = new TestClock()
    const t0 = clock.nowMs()
    const { wheel, fired } = recordingWheel(clock, 10, 8)
    for (let i = 1; i <= 50; i++) wheel.schedule(`k${i}`, t0 + i * 137, `k${i}`)
    clock.advance(100_000)
    const items = fired.flatMap((f) => f.items)
    expect(items).toEqual(Array.from({ length: 50 }, (_, i) => `k${i + 1}`))
    for (const f of fired) expect(f.items).toHaveLength(1)
    expect(fired.map((f) => f.atMs - t0)).toEqual(Array.from({ length: 50 }, (_, i) => Math.ceil(((i + 1) * 137) / 10) * 10))
  })
})

describe("callbacks that schedule", () => {
  test("an entry scheduled from onDue fires later at its own time", () => {
    const clock = new TestClock()
    const t0 = clock.nowMs()
    const fired: Fired[] = []
    const wheel: TimerWheel<string> = new TimerWheel<string>(clock, (items) => {
      fired.push({ atMs: clock.nowMs(), items })
      for (const item of items) if (item.length < 4) wheel.schedule(item + "+", clock.nowMs() + 25, item + "+")
    })
    wheels.push(wheel)
    wheel.schedule("a", t0 + 10, "a")
    clock.advance(1_000)
    expect(fired).toEqual([
      { atMs: t0 + 10, items: ["a"] },
      { atMs: t0 + 40, items: ["a+"] },
      { atMs: t0 + 70, items: ["a++"] },
      { atMs: t0 + 100, items: ["a+++"] },
    ])
  })

  test("onDue may reschedule the key that just fired", () => {
    const clock = new TestClock()
    const t0 = clock.nowMs()
    let count = 0
    const times: number[] = []
    const wheel: TimerWheel<string> = new TimerWheel<string>(clock, () => {
      times.push(clock.nowMs() - t0)
      if (++count < 3) wheel.schedule("tick", clock.nowMs() + 100, "tick")
    })
    wheels.push(wheel)
    wheel.schedule("tick", t0 + 100, "tick")
    clock.advance(10_000)
    expect(times).toEqual([100, 200, 300])
    expect(wheel.size).toBe(0)
  })

  test("an already-due entry scheduled from onDue fires on the next tick, not in the same call", () => {
    const clock = new TestClock()
    const t0 = clock.nowMs()
    const fired: Fired[] = []
    const wheel: TimerWheel<string> = new TimerWheel<string>(clock, (items) => {
      fired.push({ atMs: clock.nowMs(), items })
      if (items.includes("a")) wheel.schedule("b", clock.nowMs() - 1, "b")
    })
    wheels.push(wheel)
    wheel.schedule("a", t0 + 10, "a")
    clock.advance(1_000)
    expect(fired).toEqual([
      { atMs: t0 + 10, items: ["a"] },
      { atMs: t0 + 20, items: ["b"] },
    ])
  })

  test("a throwing onDue does not stop later entries", () => {
    const clock = new TestClock()
    const t0 = clock.nowMs()
    const seen: string[] = []
    const wheel = new TimerWheel<string>(clock, (items) => {
      seen.push(...items)
      if (items.includes("boom")) throw new Error("boom")
    })
    wheels.push(wheel)
    wheel.schedule("boom", t0 + 10, "boom")
    wheel.schedule("after", t0 + 50, "after")
    expect(() => clock.advance(10)).toThrow("boom")
    clock.advance(100)
    expect(seen).toEqual(["boom", "after"])
  })
})

describe("timers and stop", () => {
  test("an idle wheel arms no timer", () => {
    const clock = new TestClock()
    const { wheel } = recordingWheel(clock)
    expect(clock.pendingTimers).toBe(0)
    wheel.schedule("a", clock.nowMs() + 30, "a")
    wheel.schedule("b", clock.nowMs() + 500, "b")
    expect(clock.pendingTimers).toBe(1)
    clock.advance(30)
    expect(clock.pendingTimers).toBe(1)
    clock.advance(1_000)
    expect(wheel.size).toBe(0)
    expect(clock.pendingTimers).toBe(0)
  })

  test("a wheel emptied by cancel arms nothing after its stale timer runs", () => {
    const clock = new TestClock()
    const { wheel, all } = recordingWheel(clock)
    wheel.schedule("a", clock.nowMs() + 30, "a")
    wheel.cancel("a")
    clock.advance(1_000)
    expect(all()).toEqual([])
    expect(clock.pendingTimers).toBe(0)
  })

  test("only one clock timer is armed however many entries wait", () => {
    const clock = new TestClock()
    const { wheel } = recordingWheel(clock)
    for (let i = 0; i < 100; i++) wheel.schedule(`k${i}`, clock.nowMs() + 10 + ((i * 37) % 5_000), `k${i}`)
    expect(clock.pendingTimers).toBe(1)
  })

  test("stop drops every entry, disarms the timer and ignores later schedules", () => {
    const clock = new TestClock()
    const { wheel, all } = recordingWheel(clock)
    wheel.schedule("a", clock.nowMs() + 10, "a")
    wheel.schedule("b", clock.nowMs() + 20_000, "b")
    wheel.stop()
    expect(wheel.size).toBe(0)
    expect(clock.pendingTimers).toBe(0)
    wheel.schedule("c", clock.nowMs() + 10, "c")
    expect(wheel.size).toBe(0)
    clock.advance(60_000)
    expect(all()).toEqual([])
    expect(clock.pendingTimers).toBe(0)
  })
})
