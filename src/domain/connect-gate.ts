import { createSemaphore, type Release } from "../lib/semaphore"
import { DEFAULT_CONNECT_CONCURRENCY } from "../whatsapp/gateway"

/**
 * Bounds how many phones open their WhatsApp socket at once and spreads boot's first connects
 * (docs/live-whatsapp.md § "Connect concurrency and boot stagger"). Opening a socket costs CPU
 * (noise handshake, key-store work); with hundreds of phones pairing or reconnecting at once the
 * event loop would stop answering HTTP.
 */

export { DEFAULT_CONNECT_CONCURRENCY }
/** Boot spreads first connects over this much time per paired phone, up to the cap. */
export const BOOT_STAGGER_PER_PHONE_MS = 10
export const BOOT_STAGGER_MAX_MS = 10_000

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
   * Runs `open` once a slot is free, and keeps the slot on `holder` until `release(holder)`.
   * When `stillWanted()` is false by the time the slot comes (the session was replaced or closed
   * while it waited), the socket is never opened and the slot goes straight back.
   */
  whenFree(holder: SlotHolder, stillWanted: () => boolean, open: () => void): void
  /** Gives back the holder's slot, if it holds one. */
  release(holder: SlotHolder): void
  /** Sockets opening now and phones waiting for a slot. */
  readonly opening: number
  readonly waiting: number
}

export function createConnectGate(concurrency = DEFAULT_CONNECT_CONCURRENCY): ConnectGate {
  const slots = createSemaphore(concurrency)
  return {
    whenFree(holder, stillWanted, open) {
      slots.acquire((release) => {
        if (!stillWanted()) return release()
        holder.releaseSlot = release
        open()
      })
    },
    release(holder) {
      const release = holder.releaseSlot
      holder.releaseSlot = null
      release?.()
    },
    get opening() {
      return slots.active
    },
    get waiting() {
      return slots.waiting
    },
  }
}
