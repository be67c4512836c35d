import type { Clock, TimerHandle } from "../../lib/clock"

/*
 * After login Baileys holds every inbound event in its buffer until WhatsApp sends `<ib><offline>`,
 * the marker that the offline queue is drained (WhiskeySockets/Baileys#2810). Reports from
 * September 2026 show connections on which the marker never comes; Baileys 7.0.0-rc14 then
 * releases the buffer only after its own 30 s timeout, and a message or receipt arriving in that
 * window waits for it. The watchdog bounds that wait (docs/live-whatsapp.md § "Receiving stalls").
 */

export interface OfflineWatchdogDeps {
  clock: Clock
  waitMs: number
  /** Releases Baileys' held events (`sock.ev.flush()`); true when anything was held. */
  release(): boolean
  /** Runs once, when the marker had not come in time and the watchdog released the buffer. */
  onReleased(info: { atMs: number; held: boolean }): void
}

/** The watchdog of one socket: armed when it opens, disarmed by the marker or the close. */
export interface OfflineWatchdog {
  /** The connection opened: the wait for the marker starts (once per socket). */
  opened(): void
  /** `<ib><offline>` arrived (Baileys' `receivedPendingNotifications`): nothing to do any more. */
  markerArrived(): void
  /** The socket closed. */
  stop(): void
}

export function createOfflineWatchdog(deps: OfflineWatchdogDeps): OfflineWatchdog {
  let state: "idle" | "waiting" | "done" = "idle"
  let timer: TimerHandle | null = null
  const disarm = () => {
    state = "done"
    timer?.cancel()
    timer = null
  }
  return {
    opened() {
      if (state !== "idle") return
      state = "waiting"
      timer = deps.clock.setTimer(deps.waitMs, () => {
        if (state !== "waiting") return
        disarm()
        const held = deps.release()
        deps.onReleased({ atMs: deps.clock.nowMs(), held })
      })
    },
    markerArrived: disarm,
    stop: disarm,
  }
}
