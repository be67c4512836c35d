/** A cancellable timer handle returned by a clock. */
export interface TimerHandle {
  cancel(): void
}

/**
 * The only source of time in wagate. Everything that reads the time or waits goes through a
 * Clock, so tests drive time explicitly and never sleep.
 */
export interface Clock {
  /** Milliseconds since the Unix epoch. */
  nowMs(): number
  /** Runs `fn` once after `delayMs` (clamped to ≥ 0). */
  setTimer(delayMs: number, fn: () => void): TimerHandle
}

/** The real clock: wall time and event-loop timers. */
export function systemClock(): Clock {
  return {
    nowMs: () => Date.now(),
    setTimer(delayMs, fn) {
      const timer = setTimeout(fn, Math.max(0, delayMs))
      // A pending wagate timer must never keep a finished CLI command or a stopped server alive.
      timer.unref?.()
      return { cancel: () => clearTimeout(timer) }
    },
  }
}
