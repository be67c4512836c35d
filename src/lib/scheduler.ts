import type { Clock } from "./clock"
import { TimerWheel } from "./timer-wheel"

/** Handles the keys of one kind of job that fell due, in due order. */
export type JobHandler = (keys: string[]) => void

/**
 * The process's one timer wheel, shared by every kind of timed work (sandbox transitions,
 * webhook attempts, …). Each kind registers a handler; jobs are identified by kind and key, so
 * scheduling a key again moves it instead of duplicating it.
 */
export interface Scheduler {
  on(kind: string, handler: JobHandler): void
  schedule(kind: string, key: string, dueMs: number): void
  cancel(kind: string, key: string): void
  /** Number of scheduled jobs of every kind. */
  readonly size: number
  stop(): void
}

export function createScheduler(clock: Clock, tickMs = 10): Scheduler {
  const handlers = new Map<string, JobHandler>()
  const wheel = new TimerWheel<{ kind: string; key: string }>(
    clock,
    (due) => {
      const byKind = new Map<string, string[]>()
      for (const job of due) {
        const keys = byKind.get(job.kind)
        if (keys) keys.push(job.key)
        else byKind.set(job.kind, [job.key])
      }
      for (const [kind, keys] of byKind) handlers.get(kind)?.(keys)
    },
    tickMs,
  )
  return {
    on: (kind, handler) => void handlers.set(kind, handler),
    schedule: (kind, key, dueMs) => wheel.schedule(`${kind}:${key}`, dueMs, { kind, key }),
    cancel: (kind, key) => wheel.cancel(`${kind}:${key}`),
    get size() {
      return wheel.size
    },
    stop: () => wheel.stop(),
  }
}
