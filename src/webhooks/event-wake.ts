/**
 * Wakes the event streams of an account and environment when new events of theirs are committed
 * (docs/webhooks.md § "Streams"). On one node the outbox rings it after each commit; a store shared
 * by several nodes can ring the same port from a database notification. A wake-up is a hint: a
 * stream reads the log itself, and also rescans on a timer, so a lost ring only delays it.
 */
export interface EventWake {
  /** Rings every listener of this account and environment. */
  ring(accountId: string, env: string): void
  /** Calls `fn` on each ring for this account and environment; returns the unsubscribe. */
  listen(accountId: string, env: string, fn: () => void): () => void
}

export function createEventWake(): EventWake {
  const listeners = new Map<string, Set<() => void>>()
  return {
    ring(accountId, env) {
      const set = listeners.get(`${accountId}|${env}`)
      if (set) for (const fn of set) fn()
    },
    listen(accountId, env, fn) {
      const key = `${accountId}|${env}`
      let set = listeners.get(key)
      if (!set) listeners.set(key, (set = new Set()))
      set.add(fn)
      return () => {
        set.delete(fn)
        if (set.size === 0) listeners.delete(key)
      }
    },
  }
}
