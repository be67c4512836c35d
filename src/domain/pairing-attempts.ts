/*
 * How long a pairing keeps trying before it gives up until an operator asks again
 * (docs/live-whatsapp.md § "Pairing give-up rules"). A paired phone never gives up: it reconnects
 * with backoff for as long as it is wanted online.
 */

/** QR codes shown without a scan, across the pairing's sockets, before it ends as pairing_expired. */
export const PAIRING_MAX_QR_CODES = 6
/** Pairing codes shown without being typed (each socket asks for one) before it ends as pairing_expired. */
export const PAIRING_MAX_CODES = 3
/** Connect attempts in a row that fail before any QR or code is shown, before the pairing gives up. */
export const PAIRING_MAX_FAILED_CONNECTS = 5

/** What the session manager does next. */
export type PairingVerdict = "continue" | "give_up"

/** The counters of one pairing, from the operator's request until it connects or gives up. */
export class PairingAttempts {
  private qrCodes = 0
  private codes = 0
  private failedConnects = 0

  /** A QR code was shown: the connection works, so failed connects count from zero again. */
  qrShown(): PairingVerdict {
    this.failedConnects = 0
    return ++this.qrCodes > PAIRING_MAX_QR_CODES ? "give_up" : "continue"
  }

  /** A pairing code was shown. */
  codeShown(): PairingVerdict {
    this.failedConnects = 0
    return ++this.codes > PAIRING_MAX_CODES ? "give_up" : "continue"
  }

  /** A connect attempt failed with a reason retrying may fix. */
  connectFailed(): PairingVerdict {
    return ++this.failedConnects >= PAIRING_MAX_FAILED_CONNECTS ? "give_up" : "continue"
  }

  /** How many connects failed in a row, for the log. */
  get failedInARow(): number {
    return this.failedConnects
  }
}
