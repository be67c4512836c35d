import type { Clock } from "./clock"

/** Prefixes of every id wagate issues; the prefix says what an id names. */
export type IdPrefix = "msg" | "inmsg" | "wamsg" | "acc" | "key" | "ph" | "evt" | "whd" | "wh" | "job"

/** Issues time-ordered ids: sorting ids sorts them by creation. */
export interface IdGenerator {
  newId(prefix: IdPrefix): string
}

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz"
const RANDOM_CHARS = 16 // 80 bits

/**
 * ULID-shaped ids (48-bit millisecond time + 80 random bits, Crockford base32, lower case).
 * Within one millisecond the random part is incremented, so ids stay strictly increasing even
 * for a burst of sends in the same millisecond, and time-ordered ids keep B-tree inserts
 * append-only (about 2× faster than random ids at 1M rows in our measurements).
 */
export function ulidGenerator(clock: Clock, randomBytes: (n: number) => Uint8Array = cryptoRandomBytes): IdGenerator {
  let lastMs = -1
  let lastRandom: number[] = []

  function nextRandom(ms: number): number[] {
    if (ms > lastMs) {
      const bytes = randomBytes(RANDOM_CHARS)
      lastRandom = Array.from(bytes, (b) => b & 31)
      lastMs = ms
      return lastRandom
    }
    // Same (or earlier, if the wall clock stepped back) millisecond: keep the last time and
    // increment the random part so the id still sorts after the previous one.
    const next = lastRandom.slice()
    let carried = true
    for (let i = next.length - 1; i >= 0 && carried; i--) {
      carried = next[i] === 31
      next[i] = carried ? 0 : next[i]! + 1
    }
    // The random part wrapped round to zero: borrow the next millisecond so the id still sorts
    // after the previous one.
    if (carried) lastMs += 1
    lastRandom = next
    return next
  }

  return {
    newId(prefix) {
      const random = nextRandom(Math.max(clock.nowMs(), lastMs))
      let time = ""
      // nextRandom may have moved lastMs past the clock (overflow), so encode lastMs.
      let t = lastMs
      for (let i = 0; i < 10; i++) {
        time = CROCKFORD[t % 32] + time
        t = Math.floor(t / 32)
      }
      return `${prefix}_${time}${random.map((d) => CROCKFORD[d]).join("")}`
    },
  }
}

function cryptoRandomBytes(n: number): Uint8Array {
  return crypto.getRandomValues(new Uint8Array(n))
}
