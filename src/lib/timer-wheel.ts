import type { Clock, TimerHandle } from "./clock"

interface Entry<T> {
  key: string
  dueMs: number
  dueTick: number
  item: T
}

/**
 * A hashed timer wheel: `slotCount` buckets of `tickMs` each. Scheduling and cancelling are
 * O(1); one clock timer is armed, for the next tick that holds work, so an idle wheel costs
 * nothing. Entries further away than one revolution wait in their slot until their tick comes
 * round. Due entries are handed to `onDue` in due order, one call per tick.
 */
export class TimerWheel<T> {
  private readonly slots: Map<string, Entry<T>>[]
  private readonly byKey = new Map<string, Entry<T>>()
  private currentTick: number
  private timer: TimerHandle | null = null
  private armedTick = Number.POSITIVE_INFINITY
  private advancing = false
  private stopped = false

  constructor(
    private readonly clock: Clock,
    private readonly onDue: (items: T[]) => void,
    private readonly tickMs = 10,
    private readonly slotCount = 1024,
  ) {
    this.slots = Array.from({ length: slotCount }, () => new Map())
    this.currentTick = Math.floor(clock.nowMs() / tickMs)
  }

  /** Number of scheduled entries. */
  get size(): number {
    return this.byKey.size
  }

  /** Schedules (or reschedules) `key` to fire at `dueMs`. */
  schedule(key: string, dueMs: number, item: T): void {
    if (this.stopped) return
    this.cancel(key)
    // Round up so an entry never fires before its due time.
    const dueTick = Math.max(Math.ceil(dueMs / this.tickMs), this.currentTick + 1)
    const entry: Entry<T> = { key, dueMs, dueTick, item }
    this.slots[dueTick % this.slotCount]!.set(key, entry)
    this.byKey.set(key, entry)
    // While advancing, armNext() picks the nearest tick once the due entries have run.
    if (!this.advancing && dueTick < this.armedTick) this.arm(dueTick)
  }

  /** Removes `key` if it is scheduled. */
  cancel(key: string): void {
    const entry = this.byKey.get(key)
    if (!entry) return
    this.byKey.delete(key)
    this.slots[entry.dueTick % this.slotCount]!.delete(key)
  }

  /** Drops every entry and disarms the timer; the wheel accepts nothing afterwards. */
  stop(): void {
    this.stopped = true
    this.timer?.cancel()
    this.timer = null
    this.byKey.clear()
    for (const slot of this.slots) slot.clear()
  }

  private arm(tick: number): void {
    this.timer?.cancel()
    this.armedTick = tick
    this.timer = this.clock.setTimer(tick * this.tickMs - this.clock.nowMs(), () => this.advance())
  }

  private advance(): void {
    this.timer = null
    this.armedTick = Number.POSITIVE_INFINITY
    const nowTick = Math.floor(this.clock.nowMs() / this.tickMs)
    const due: Entry<T>[] = []
    // Past one revolution every slot is visited once; otherwise only the ticks that elapsed.
    const steps = Math.min(nowTick - this.currentTick, this.slotCount)
    for (let i = 1; i <= steps; i++) {
      const slot = this.slots[(this.currentTick + i) % this.slotCount]!
      for (const entry of slot.values()) {
        if (entry.dueTick <= nowTick) due.push(entry)
      }
    }
    this.currentTick = Math.max(this.currentTick, nowTick)
    for (const entry of due) this.cancel(entry.key)
    this.advancing = true
    try {
      if (due.length > 0) {
        due.sort((a, b) => a.dueMs - b.dueMs)
        this.onDue(due.map((e) => e.item))
      }
    } finally {
      this.advancing = false
      this.armNext()
    }
  }

  private armNext(): void {
    if (this.stopped || this.byKey.size === 0) return
    let next = Number.POSITIVE_INFINITY
    for (let i = 1; i <= this.slotCount; i++) {
      const slot = this.slots[(this.currentTick + i) % this.slotCount]!
      for (const entry of slot.values()) {
        if (entry.dueTick < next) next = entry.dueTick
      }
      // The first non-empty slot within this revolution holds the nearest tick unless all of
      // its entries belong to later revolutions; keep scanning only in that case.
      if (next <= this.currentTick + i) break
    }
    this.arm(next)
  }
}
