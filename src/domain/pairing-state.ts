import type { ConnectionStatus } from "../lib/vocabulary"
import type { PhoneRow } from "../store/phones"
import { lastErrorOf, type LastError } from "./connection-errors"

/** What the admin API shows of a phone's pairing (docs/admin.md § "Pair a phone"). */
export interface PairingState {
  connectionStatus: ConnectionStatus
  /** The raw QR string to render, while a QR pairing waits for a scan. */
  qr: string | null
  /** The code to type on the phone, while a code pairing waits. */
  pairingCode: string | null
  /** Why the last connect or pairing attempt failed; null once connected or asked to connect again. */
  lastError: LastError | null
  /** The WhatsApp Web version the phone's last connect announced (x.y.z); null before one. */
  waVersion: string | null
  /**
   * When the offline-marker watchdog last released the inbound messages Baileys held after a login
   * because WhatsApp's end-of-offline-queue marker had not come (docs/live-whatsapp.md § "Receiving stalls"); null when never.
   */
  offlineWatchdogAtMs: number | null
  /** When WhatsApp said it stops accepting that version (`<ib><client_expiration>`); null when it did not say. */
  clientExpiresAtMs: number | null
  updatedAtMs: number
}

/** What only the node with the phone's socket knows of its pairing: the rest is in the phone's row. */
export interface PairingExtras {
  /** The status these extras were seen with: a QR or code belongs to that status only. */
  connectionStatus: ConnectionStatus
  qr: string | null
  pairingCode: string | null
  waVersion: string | null
}

/**
 * A phone's pairing state from its row and what its socket's node knows: the lifecycle's runtime
 * there (no status: it is the truth), or what that node relayed to this one. A relayed QR or code
 * seen with another status than the row's is stale (a relayed change was missed): not shown.
 */
export function stateOf(phone: PhoneRow, extras: (Omit<PairingExtras, "connectionStatus"> & { connectionStatus?: ConnectionStatus }) | undefined | null): PairingState {
  const current = extras !== undefined && extras !== null && (extras.connectionStatus === undefined || extras.connectionStatus === phone.connectionStatus)
  return {
    connectionStatus: phone.connectionStatus,
    qr: current ? extras.qr : null,
    pairingCode: current ? extras.pairingCode : null,
    lastError: lastErrorOf(phone),
    // The socket's node knows the version being announced now; the row keeps the last one across restarts.
    waVersion: extras?.waVersion ?? phone.waVersion,
    clientExpiresAtMs: phone.clientExpiresAtMs,
    offlineWatchdogAtMs: phone.offlineWatchdogAtMs,
    updatedAtMs: phone.updatedAtMs,
  }
}
