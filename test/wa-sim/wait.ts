/**
 * Waiting on conditions without fixed sleeps. Whoever changes the observed state calls
 * `notify()`; a waiter re-checks its probe on every notification and gives up at its deadline,
 * naming what it waited for so a failing test says what never happened.
 */
export class ChangeSignal {
  private readonly listeners = new Set<() => void>()

  /** Wakes every waiter so it re-checks its condition. */
  notify(): void {
    for (const listener of [...this.listeners]) listener()
  }

  /**
   * Resolves with the first value `probe` returns that is not `undefined`. The probe runs at once
   * and after each `notify()`. Rejects after `timeoutMs` with an error naming `what`.
   */
  waitFor<T>(probe: () => T | undefined, options: { timeoutMs: number; what: string }): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      let timer: ReturnType<typeof setTimeout> | undefined
      const finish = (): void => {
        this.listeners.delete(check)
        if (timer !== undefined) clearTimeout(timer)
      }
      const check = (): void => {
        let value: T | undefined
        try {
          value = probe()
        } catch (error) {
          finish()
          reject(error)
          return
        }
        if (value === undefined) return
        finish()
        resolve(value)
      }
      this.listeners.add(check)
      timer = setTimeout(() => {
        finish()
        reject(new Error(`timed out after ${options.timeoutMs} ms waiting for ${options.what}`))
      }, options.timeoutMs)
      check()
    })
  }
}

/** Rejects with an error naming `what` when `promise` has not settled within `timeoutMs`. */
export async function withDeadline<T>(promise: Promise<T>, options: { timeoutMs: number; what: string }): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${options.timeoutMs} ms waiting for ${options.what}`)), options.timeoutMs)
  })
  try {
    return await Promise.race([promise, deadline])
  } finally {
    clearTimeout(timer)
  }
}
