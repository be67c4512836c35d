import type { ConnectionStatus } from "../lib/vocabulary"

/** A phone row. */
export interface PhoneRow {
  id: string
  accountId: string
  phoneNumber: string
  displayName: string
  connectionStatus: ConnectionStatus
  lastConnectedAtMs: number | null
  lastDisconnectedAtMs: number | null
  createdAtMs: number
  updatedAtMs: number
  /** Why the last connect or pairing attempt failed: a code of the closed set, or null. */
  lastErrorCode: string | null
  lastErrorMessage: string | null
  lastErrorAtMs: number | null
  /**
   * When the offline-marker watchdog last released the phone's held inbound events because
   * WhatsApp's `<ib><offline>` marker had not come (docs/live-whatsapp.md § "Receiving stalls"); null when never.
   */
  offlineWatchdogAtMs: number | null
  /** The WhatsApp Web version the phone's last connect announced (x.y.z), or null before one. */
  waVersion: string | null
  /** When WhatsApp said it stops accepting that version (`<ib><client_expiration>`), or null. */
  clientExpiresAtMs: number | null
}

/** A failed attempt as stored on the phone. */
export interface StoredPhoneError {
  code: string
  message: string
  atMs: number
}
