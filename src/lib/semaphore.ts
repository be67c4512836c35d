/** Gives a slot back; calling it more than once gives back only one. */
export type Release = () => void

/**
 * A counting semaphore with first-come-first-served waiters. `acquire` calls `onGranted`
 * synchronously when a slot is free, so a caller under the limit is not delayed by a microtask,
 * and otherwise when an earlier holder releases.
 */
export interface Semaphore {
  acquire(onGranted: (release: Release) => void): void
  /** Slots currently held. */
  readonly active: number
  /** Callers waiting for a slot. */
  readonly waiting: number
  readonly limit: number
}

export function createSemaphore(limit: number): Semaphore {
  if (!Number.isInteger(limit) || limit < 1) throw new Error(`a semaphore needs a positive integer limit, got ${limit}`)
  let active = 0
  const queue: Array<(release: Release) => void> = []

  function grant(onGranted: (release: Release) => void): void {
    active++
    let released = false
    onGranted(() => {
      if (released) return
      released = true
      active--
      const next = queue.shift()
      if (next) grant(next)
    })
  }

  return {
    acquire(onGranted) {
      if (active < limit) grant(onGranted)
      else queue.push(onGranted)
    },
    get active() {
      return active
    },
    get waiting() {
      return queue.length
    },
    limit,
  }
}
