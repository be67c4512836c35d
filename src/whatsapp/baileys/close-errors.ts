import type { ConnectionFailure, ConnectionFailureCode } from "../failures"
import type { DisconnectReason } from "../gateway"

/*
 * Translates how a Baileys socket ended (its `lastDisconnect.error`: a Boom whose `data` holds
 * the WebSocket's Node error, the stream-error stanza or a stack) into the operator's failure
 * codes. Pure, like mapping.ts: the shapes are the ones Baileys 7.0.0-rc14 on Bun produces, and
 * test/unit/close-errors.test.ts produces most of them for real.
 */

/** The reasons that are their own failure code. */
const REASON_CODES: Partial<Record<DisconnectReason, ConnectionFailureCode>> = {
  logged_out: "logged_out",
  replaced: "replaced",
  forbidden: "forbidden",
  outdated_version: "outdated_version",
  multidevice_mismatch: "multidevice_mismatch",
  pairing_expired: "pairing_expired",
  passkey_required: "passkey_required",
}

/** Node's network error codes, as the WebSocket reports them in the Boom's `data.code`. */
const NODE_ERROR_CODES: ReadonlyMap<string, ConnectionFailureCode> = new Map<string, ConnectionFailureCode>([
  ["ENOTFOUND", "dns_failed"],
  ["EAI_AGAIN", "dns_failed"],
  ["EAI_FAIL", "dns_failed"],
  ["EAI_NODATA", "dns_failed"],
  ["EAI_NONAME", "dns_failed"],
  ["ECONNREFUSED", "connection_refused"],
  ["ECONNRESET", "connection_reset"],
  ["EPIPE", "connection_reset"],
  ["ECONNABORTED", "connection_reset"],
  ["ENETUNREACH", "network_unreachable"],
  ["EHOSTUNREACH", "network_unreachable"],
  ["ENETDOWN", "network_unreachable"],
  ["EHOSTDOWN", "network_unreachable"],
  ["EADDRNOTAVAIL", "network_unreachable"],
  ["ETIMEDOUT", "handshake_timeout"],
  // OpenSSL's protocol errors: not TLS on the other end, or a TLS version neither side shares.
  ["EPROTO", "tls_failed"],
])

/** Certificate verification codes (DEPTH_ZERO_SELF_SIGNED_CERT, CERT_HAS_EXPIRED, ERR_TLS_CERT_ALTNAME_INVALID, …). */
const TLS_ERROR_CODE = /CERT|SELF_SIGNED|UNABLE_TO_(GET|VERIFY)|^ERR_(TLS|SSL)_|HOSTNAME_MISMATCH/
/** A refused upgrade, as `ws` words it ("Unexpected server response: 503"). */
const UPGRADE_REFUSED = /Unexpected server response: (\d{3})/
/** The WebSocket's opening handshake, or WhatsApp's Noise handshake ("Timed Out"), ran out of time. */
const HANDSHAKE_TIMEOUT = /handshake has timed out|^Timed Out$/i
/** WhatsApp ended the stream (`<stream:error>` or `<failure>`). */
const STREAM_ENDED = /^(Stream Errored|Connection Failure)\b/

/** The refusal the session raises itself when the upgrade is answered with an HTTP error status. */
export function upgradeRefusedError(httpStatus: number): Error {
  return new Error(`Unexpected server response: ${httpStatus}`)
}

interface ErrorShape {
  message?: unknown
  code?: unknown
  output?: { statusCode?: unknown }
  data?: { message?: unknown; code?: unknown } | null
}

/** The error's words for the log: the underlying error's message when the Boom wraps one, else its own with its status. */
export function failureCause(error: unknown): string {
  const e = (error ?? {}) as ErrorShape
  const inner = typeof e.data?.message === "string" ? e.data.message : null
  const outer = typeof e.message === "string" ? e.message : null
  // With an underlying error, the Boom's status is Baileys' guess; without one it is WhatsApp's.
  if (inner) return outer && !outer.includes(inner) ? `${outer}: ${inner}` : inner
  const status = typeof e.output?.statusCode === "number" ? ` (status ${e.output.statusCode})` : ""
  return `${outer ?? String(error ?? "no error given")}${status}`
}

/** The failure code the error's shape says, for a close that is not one of the named reasons. */
function codeOfShape(error: unknown): { code: ConnectionFailureCode; httpStatus: number | null } {
  const e = (error ?? {}) as ErrorShape
  const messages = [e.message, e.data?.message].filter((m): m is string => typeof m === "string")
  for (const m of messages) {
    const upgrade = UPGRADE_REFUSED.exec(m)
    if (upgrade) return { code: "upgrade_refused", httpStatus: Number(upgrade[1]) }
  }
  const nodeCode = [e.data?.code, e.code].find((c): c is string => typeof c === "string")
  if (nodeCode) {
    const code = NODE_ERROR_CODES.get(nodeCode) ?? (TLS_ERROR_CODE.test(nodeCode) ? "tls_failed" : null)
    if (code) return { code, httpStatus: null }
  }
  if (messages.some((m) => HANDSHAKE_TIMEOUT.test(m))) return { code: "handshake_timeout", httpStatus: null }
  if (messages.some((m) => STREAM_ENDED.test(m))) return { code: "stream_error", httpStatus: null }
  if (messages.some((m) => /\b(SSL|TLS)\b|certificate/i.test(m))) return { code: "tls_failed", httpStatus: null }
  return { code: "connection_lost", httpStatus: null }
}

/**
 * The failure behind a close: null when nothing failed (we closed it, or WhatsApp asked for a
 * fresh socket), the reason itself when it names one, else what the error's shape says.
 */
export function failureOf(
  error: unknown,
  context: { reason: DisconnectReason; host: string; waVersion: string | null },
): ConnectionFailure | null {
  const { reason, host, waVersion } = context
  if (reason === "closed_by_us" || reason === "restart_required") return null
  const named = REASON_CODES[reason]
  const { code, httpStatus } = named ? { code: named, httpStatus: null } : codeOfShape(error)
  return { code, cause: failureCause(error), host, httpStatus, waVersion }
}
