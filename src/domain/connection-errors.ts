import type { Logger } from "../lib/logger"
import { toIso } from "../lib/time"
import type { PhoneRow } from "../store/phones"
import { CONNECTION_FAILURE_CODES, ConnectionFailureCode, type ConnectionFailure } from "../whatsapp/failures"

export { CONNECTION_FAILURE_CODES, ConnectionFailureCode, type ConnectionFailure }

/** Why the phone's last connect or pairing attempt failed, as the operator sees it. */
export interface LastError {
  code: ConnectionFailureCode
  /** One sentence that says what to do. */
  message: string
  atMs: number
}

/** The setting an operator changes when WhatsApp refuses the client version. */
const WA_VERSION_SETTING = "WAGATE_WA_VERSION"

/**
 * The operator's sentence for a failure: what happened, then what to do about it. The list
 * with every code is in docs/live-whatsapp.md; keep both in step.
 */
export function describeFailure(failure: ConnectionFailure): string {
  const { host, cause } = failure
  switch (failure.code) {
    case "dns_failed":
      return `Could not resolve ${hostName(host)}: check DNS on this host.`
    case "connection_refused":
      return `${host} refused the connection: check the firewall or proxy between this host and WhatsApp, and WAGATE_WA_WS_URL.`
    case "connection_reset":
      return `The connection to ${host} was cut while opening: a firewall, proxy or unstable network in between is the usual cause.`
    case "network_unreachable":
      return `No network route to ${host}: check this host's internet connection.`
    case "tls_failed":
      return `The TLS connection to ${host} failed (${cause}): check for a proxy that intercepts HTTPS and that the system clock is right.`
    case "handshake_timeout":
      return `${host} did not complete the connection in time: check that this host can reach it (firewall, proxy, network).`
    case "upgrade_refused":
      return `${host} answered the WebSocket upgrade with HTTP ${failure.httpStatus ?? "error"}: ${
        failure.httpStatus !== null && failure.httpStatus >= 500
          ? "WhatsApp or a proxy in between is unavailable, and wagate retries"
          : "a proxy in between may be blocking WebSockets"
      }.`
    case "stream_error":
      return `WhatsApp ended the connection with an error (${cause}); wagate retries, and if it keeps happening log the phone out and pair it again.`
    case "logged_out":
      return "The device was unlinked on the phone or its credentials were refused: pair the phone again."
    case "outdated_version":
      return `WhatsApp refused client version ${failure.waVersion ?? "(unknown)"}: set ${WA_VERSION_SETTING}=auto or a current version.`
    case "pairing_expired":
      return "The QR code or pairing code expired without being used: start the pairing again and complete it on the phone within a minute."
    case "passkey_required":
      return "WhatsApp asked for a passkey check on the phone to link this device, which wagate cannot answer: cancel it on the phone and try pairing again later (a pairing code meets the same check, and deleting the passkey on the phone does not lift it)."
    case "account_mismatch":
      return `The phone was linked with another WhatsApp account (${cause}): pair it again from the phone that has this number.`
    case "replaced":
      return "Another program connected with this phone's credentials and took over: stop the other instance, then connect this one again."
    case "forbidden":
      return "WhatsApp refuses this account: check WhatsApp on the phone for a ban or restriction notice."
    case "multidevice_mismatch":
      return "WhatsApp says this account cannot use linked devices: update WhatsApp on the phone, then pair again."
    case "connection_lost":
      return `The connection to WhatsApp dropped (${cause}); wagate reconnects by itself.`
  }
}

/** `web.whatsapp.com` of `web.whatsapp.com:443`. */
function hostName(host: string): string {
  return host.replace(/:\d+$/, "")
}

/** The failure as stored on the phone, dated now. */
export function toLastError(failure: ConnectionFailure, atMs: number): LastError {
  return { code: failure.code, message: describeFailure(failure), atMs }
}

const KNOWN_CODES: ReadonlySet<string> = new Set(CONNECTION_FAILURE_CODES)

/** The phone's last error; a code this version does not know (a newer binary wrote it) reads as none. */
export function lastErrorOf(row: PhoneRow): LastError | null {
  const { lastErrorCode: code, lastErrorMessage: message, lastErrorAtMs: atMs } = row
  if (code === null || message === null || atMs === null || !KNOWN_CODES.has(code)) return null
  return { code: code as ConnectionFailureCode, message, atMs }
}

/**
 * Logs a failed attempt once, at warn: the operator's sentence, the phone, the code, the
 * underlying cause and when the next attempt comes (or that none will).
 */
export function logFailure(
  logger: Logger,
  phone: Pick<PhoneRow, "id" | "phoneNumber">,
  failure: ConnectionFailure,
  lastError: LastError,
  nextAttemptAtMs: number | null,
): void {
  logger.warn(`WhatsApp connection of ${phone.phoneNumber} failed: ${lastError.message}`, {
    phoneId: phone.id,
    phoneNumber: phone.phoneNumber,
    code: failure.code,
    cause: failure.cause,
    nextAttempt: nextAttemptAtMs === null ? "not retrying" : toIso(nextAttemptAtMs),
  })
}
