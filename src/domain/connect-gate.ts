import type { Clock, TimerHandle } from "../lib/clock"
import type { LagSource } from "../lib/event-loop-lag"
import type { Release } from "../lib/semaphore"
import { DEFAULT_CONNECT_CONCURRENCY } from "../whatsapp/gateway"

/**
 * Paces how phones open their WhatsApp sockets (docs/live-whatsapp.md § "How connects are paced").
 * Opening a socket costs CPU in long synchronous stretches (the handshake's signature checks, a
 * first login's pre-keys); with several sockets in that phase at once the event loop stops
 * answering HTTP. The gate admits the next connect only while the event loop is not lagging, with
 * the concurrency limit as an upper bound, so connects that wait on the network (real WhatsApp's
 * round trips) still overlap up to the limit.
 */

export { DEFAULT_CONNECT_CONCURRENCY }
/** Boot spreads first connects over this much time per paired phone, up to the cap. */
export const BOOT_STAGGER_PER_PHONE_MS = 10
export const BOOT_STAGGER_MAX_MS = 10_000
/** The next connect waits while the event loop's recent lag is at or above this. */
export const CONNECT_MAX_LAG_MS = 20
/**
 * Under lag that does not go away, the next connect is still admitted this long after the one
 * before (or after it started waiting), whatever else is opening, so no phone waits for ever.
 */
export const CONNECT_MAX_WAIT_MS = 250
/** How often a gate with waiters looks at the lag again when nothing releases a slot. */
const RECHECK_INTERVAL_MS = 5

/**
 * The window boot spreads `phones` first connects over: none while they fit in the connect slots
 * (a small box boots as fast as before), else 10 ms per phone up to 10 s (1,000 phones and more).
 */
export function bootStaggerWindowMs(phones: number, concurrency: number): number {
  if (phones <= concurrency) return 0
  return Math.min(BOOT_STAGGER_MAX_MS, BOOT_STAGGER_PER_PHONE_MS * phones)
}

/** Whoever holds a slot while its socket opens (a phone's runtime). */
export interface SlotHolder {
  releaseSlot: Release | null
}

export interface ConnectGate {
  /**
   * Runs `open` once a slot is free and the event loop is calm, and keeps the slot on `holder`
   * until `release(holder)`. A holder that already holds a slot (a phone just past its QR scan)
   * opens at once on it. When `stillWanted()` is false by the time the slot comes (the session
   * was replaced or closed while it waited), the socket is never opened.
   */
  whenFree(holder: SlotHolder, stillWanted: () => boolean, open: () => void): void
  /**
   * Takes a slot for a phone whose CPU-heavy phase has begun without a connect (its QR was just
   * scanned): when one is free it is taken whatever the lag, since the work runs anyway and
   * counting it holds other connects back. Kept until `release(holder)`.
   */
  hold(holder: SlotHolder): void
  /** Gives back the holder's slot, if it holds one. */
  release(holder: SlotHolder): void
  /** Sockets opening now and phones waiting for a slot. */
  readonly opening: number
  readonly waiting: number
}

export interface ConnectGateOptions {
  concurrency?: number
  /** Without a lag source the gate only bounds concurrency (short CLI commands, most tests). */
  lag?: LagSource
  clock?: Clock
  maxLagMs?: number
  maxWaitMs?: number
}

interface Waiter {
  holder: SlotHolder
  stillWanted: () => boolean
  open: () => void
  sinceMs: number
}

export function createConnectGate(options: ConnectGateOptions = {}): ConnectGate {
  const concurrency = options.concurrency ?? DEFAULT_CONNECT_CONCURRENCY
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new Error(`the connect gate needs a positive integer concurrency, got ${concurrency}`)
  const { lag, clock } = options
  if (lag && !clock) throw new Error("a lag-aware connect gate needs a clock")
  const maxLagMs = options.maxLagMs ?? CONNECT_MAX_LAG_MS
  const maxWaitMs = options.maxWaitMs ?? CONNECT_MAX_WAIT_MS
  const queue: Waiter[] = []
  let active = 0
  let lastAdmitMs = Number.NEGATIVE_INFINITY
  let readingAtLastAdmit = Number.NaN
  /**
   * How many connects may be opening at once right now, between 1 and the limit: it grows by one
   * with each connect that finishes while the loop is calm and halves on a lagging reading. The
   * lag shows a connect's CPU only after its network round trips, by when a pace based on the lag
   * alone would have let several more in; a window reacts to what is already in flight.
   */
  let window = lag ? 1 : concurrency
  let readingAtLastCut = Number.NaN
  let recheck: TimerHandle | null = null

  /** Readings are wanted only while a connect is opening or waiting. */
  function watchLag(): void {
    lag?.watch?.(active > 0 || queue.length > 0)
  }

  function take(holder: SlotHolder): void {
    active++
    watchLag()
    let released = false
    holder.releaseSlot = () => {
      if (released) return
      released = true
      active--
      if (lag && lag.lagMs() < maxLagMs) window = Math.min(concurrency, window + 1)
      admitWaiters()
    }
  }

  /**
   * Whether the queue's head may open now: always under the limit while nothing is opening (so
   * a lag from elsewhere never starves connects), else only within the window and on a fresh,
   * calm lag reading (one admission per reading, so connects admitted in one turn cannot land
   * their CPU together), or once the head has waited `maxWaitMs`.
   */
  function mayAdmit(head: Waiter): boolean {
    if (active >= concurrency) return false
    if (active === 0 || !lag || !clock) return true
    const calm = lag.lagMs() < maxLagMs
    if (!calm && lag.readings() !== readingAtLastCut) {
      readingAtLastCut = lag.readings()
      window = Math.max(1, window / 2)
    }
    if (clock.nowMs() - Math.max(lastAdmitMs, head.sinceMs) >= maxWaitMs) return true
    return calm && active < Math.floor(window) && lag.readings() !== readingAtLastAdmit
  }

  function admitWaiters(): void {
    while (queue.length > 0) {
      const head = queue[0]!
      if (!head.stillWanted()) {
        queue.shift()
        continue
      }
      if (!mayAdmit(head)) break
      queue.shift()
      admit(head)
    }
    armRecheck()
    watchLag()
  }

  function admit(waiter: Waiter): void {
    if (clock) lastAdmitMs = clock.nowMs()
    if (lag) readingAtLastAdmit = lag.readings()
    take(waiter.holder)
    waiter.open()
  }

  /** Waiters held back by lag (not by the limit) are looked at again shortly. */
  function armRecheck(): void {
    if (recheck || !clock || queue.length === 0 || active >= concurrency) return
    recheck = clock.setTimer(RECHECK_INTERVAL_MS, () => {
      recheck = null
      admitWaiters()
    })
  }

  return {
    whenFree(holder, stillWanted, open) {
      if (!stillWanted()) return
      if (holder.releaseSlot) return open()
      const waiter = { holder, stillWanted, open, sinceMs: clock?.nowMs() ?? 0 }
      if (queue.length === 0 && mayAdmit(waiter)) return admit(waiter)
      queue.push(waiter)
      armRecheck()
      watchLag()
    },
    hold(holder) {
      if (holder.releaseSlot || active >= concurrency) return
      take(holder)
    },
    release(holder) {
      const release = holder.releaseSlot
      holder.releaseSlot = null
      release?.()
    },
    get opening() {
      return active
    },
    get waiting() {
      return queue.length
    },
  }
}
