import type { Store } from "../store/store"

/**
 * Wakes the event streams of an account and environment when new events of theirs are committed
 * (docs/webhooks.md § "Streams"). The outbox sends the `events` signal in the transaction that
 * writes them; the store delivers it after the commit to every node sharing the database (a
 * PostgreSQL NOTIFY; in-process on SQLite), and `listenForEvents` rings this port from it. A
 * wake-up is a hint: a stream reads the log itself, and also rescans on a timer, so a lost ring
 * only delays it.
 */
export interface EventWake {
  /** Rings every listener of this account and environment. */
  ring(accountId: string, env: string): void
  /** Rings every listener (the signals may have been missed: they are read again from the log). */
  ringAll(): void
  /** Calls `fn` on each ring for this account and environment; returns the unsubscribe. */
  listen(accountId: string, env: string, fn: () => void): () => void
}

/** The payload of the `events` signal: whose events were committed. */
export const eventsSignal = (accountId: string, env: string) => `${accountId}|${env}`

export function createEventWake(): EventWake {
  const listeners = new Map<string, Set<() => void>>()
  const ringKey = (key: string) => {
    const set = listeners.get(key)
    if (set) for (const fn of set) fn()
  }
  return {
    ring: (accountId, env) => ringKey(eventsSignal(accountId, env)),
    ringAll() {
      for (const key of [...listeners.keys()]) ringKey(key)
    },
    listen(accountId, env, fn) {
      const key = eventsSignal(accountId, env)
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

/**
 * Rings `wake` from the store's `events` signals, this node's commits and every other node's;
 * when the listening connection comes back after a drop, rings every stream, since signals sent
 * meanwhile were lost. Resolves with the unsubscribe once listening.
 */
export function listenForEvents(store: Pick<Store, "listen">, wake: EventWake): Promise<() => Promise<void>> {
  return store.listen(
    "events",
    (payload) => {
      const bar = payload.lastIndexOf("|")
      if (bar > 0) wake.ring(payload.slice(0, bar), payload.slice(bar + 1))
    },
    () => wake.ringAll(),
  )
}
