import type { CacheStore } from "@whiskeysockets/baileys"

/*
 * The cache in front of every phone's Signal key store, shared by all phones of a gateway and
 * bounded in entries. Baileys' default is one NodeCache per socket that keeps every key it sees
 * for five minutes and measures the size of each value it stores: a first login stores 812
 * pre-keys, so each pairing phone held them all in memory and spent tens of milliseconds of the
 * event loop sizing them (docs/performance.md § "Where a phone's time goes").
 * A miss only costs a read from SQLite, so the bound trades nothing but speed.
 */

/** The shared cache; `forPhone` gives the view one socket uses. */
export interface SignalKeyCache {
  /**
   * The cache of one phone's keys for one socket. Every call starts an empty view: a new socket
   * never sees what an earlier one cached, so keys wiped in between (a logout, a pairing
   * started over) cannot come back from memory.
   */
  forPhone(phoneId: string): CacheStore
  /** How many entries the cache holds now, all phones together. */
  readonly size: number
}

/** A Map bounded in entries (least recently used out first) that hands out CacheStore views by key prefix. */
export interface SharedCache {
  /** The entries whose keys start with `prefix`, as a Baileys CacheStore. */
  view(prefix: string): CacheStore
  readonly size: number
}

export function createSharedCache(maxEntries: number): SharedCache {
  // Insertion order is recency order: a hit is moved to the end, the oldest entry goes first.
  const entries = new Map<string, unknown>()

  function remember(key: string, value: unknown): void {
    entries.delete(key)
    entries.set(key, value)
    if (entries.size > maxEntries) entries.delete(entries.keys().next().value!)
  }

  return {
    view(prefix: string): CacheStore {
      return {
        get<T>(key: string): T | undefined {
          const full = prefix + key
          const value = entries.get(full)
          if (value !== undefined) remember(full, value)
          return value as T | undefined
        },
        set<T>(key: string, value: T): void {
          remember(prefix + key, value)
        },
        del(key: string): void {
          entries.delete(prefix + key)
        },
        flushAll(): void {
          for (const key of [...entries.keys()]) if (key.startsWith(prefix)) entries.delete(key)
        },
      }
    },
    get size() {
      return entries.size
    },
  }
}

export function createSignalKeyCache(maxEntries: number): SignalKeyCache {
  const shared = createSharedCache(maxEntries)
  // Each view gets its own prefix, so a new view of a phone finds nothing of the old one; the
  // old one's entries age out like any other.
  let views = 0
  return {
    forPhone: (phoneId) => shared.view(`${phoneId}\u0000${++views}\u0000`),
    get size() {
      return shared.size
    },
  }
}
