import type { Clock, TimerHandle } from "./clock"

/** How late the event loop runs now, as seen by whoever paces work by it (the connect gate). */
export interface LagSource {
  /** The recent lag in milliseconds: the latest reading, decaying from earlier spikes. */
  lagMs(): number
  /** How many readings have been taken; a new value means the lag was measured again since. */
  readings(): number
  /**
   * Told whether readings are wanted now: the connect gate needs them only while connects are
   * opening or waiting, so a server with no phone connecting runs no sampling timer at all.
   */
  watch?(wanted: boolean): void
}

export interface EventLoopLagMonitor extends LagSource {
  start(): void
  stop(): void
}

/** How often the monitor's timer asks to run; its lateness is one reading. */
export const LAG_SAMPLE_INTERVAL_MS = 10
/**
 * What one reading keeps of the one before: a spike shows at once and halves every reading, so
 * one 40 ms stretch holds the lag above 20 ms for about one more interval, not for seconds.
 */
const LAG_DECAY_PER_READING = 0.5

/**
 * Measures the event loop's lag: a short timer that re-arms itself, whose lateness (the time it
 * ran minus the time it was due) is how long the loop was busy with something else. The clock's
 * timers are unref'd, so a running monitor never keeps a stopped process alive.
 */
export function createEventLoopLagMonitor(clock: Clock, intervalMs = LAG_SAMPLE_INTERVAL_MS): EventLoopLagMonitor {
  let timer: TimerHandle | null = null
  let lagMs = 0
  let readings = 0

  function arm(): void {
    const dueMs = clock.nowMs() + intervalMs
    timer = clock.setTimer(intervalMs, () => {
      const lateMs = Math.max(0, clock.nowMs() - dueMs)
      lagMs = Math.max(lateMs, lagMs * LAG_DECAY_PER_READING)
      readings++
      arm()
    })
  }

  function start(): void {
    if (timer) return
    arm()
  }

  function stop(): void {
    timer?.cancel()
    timer = null
    lagMs = 0
  }

  return {
    lagMs: () => lagMs,
    readings: () => readings,
    watch: (wanted) => (wanted ? start() : stop()),
    start,
    stop,
  }
}
