import { Type, type Static } from "@sinclair/typebox"

/*
 * Why a connect or pairing attempt failed, in wagate's own words: the closed set an operator sees
 * as `lastError.code` (docs/live-whatsapp.md lists each with what to do). The adapter translates
 * WhatsApp's close codes and the socket's network errors into these; nothing past the port ever
 * sees a WhatsApp status number or a Node error code.
 */
export const CONNECTION_FAILURE_CODES = [
  /** The WhatsApp host name did not resolve (ENOTFOUND, EAI_AGAIN). */
  "dns_failed",
  /** The host refused the TCP connection (ECONNREFUSED). */
  "connection_refused",
  /** The connection was cut while it was being opened (ECONNRESET, socket hang up). */
  "connection_reset",
  /** No route to the host (ENETUNREACH, EHOSTUNREACH). */
  "network_unreachable",
  /** TLS failed: an untrusted or invalid certificate, or not TLS at all. */
  "tls_failed",
  /** The connection or WhatsApp's handshake did not complete within the connect timeout. */
  "handshake_timeout",
  /** An HTTP server (WhatsApp's edge or a proxy) answered the WebSocket upgrade with an error status. */
  "upgrade_refused",
  /** WhatsApp ended the stream with an error it may recover from. */
  "stream_error",
  /** The device was unlinked, or WhatsApp refused its credentials. */
  "logged_out",
  /** WhatsApp refused the client version wagate announced. */
  "outdated_version",
  /** The QR codes or the pairing code went unused until they expired. */
  "pairing_expired",
  /** WhatsApp asked for a passkey check to link the device, which a headless client cannot answer. */
  "passkey_required",
  /** The phone was paired with another WhatsApp account than its number. */
  "account_mismatch",
  /** The same credentials connected elsewhere and took over. */
  "replaced",
  /** WhatsApp refuses this account. */
  "forbidden",
  /** WhatsApp says the account cannot use linked devices. */
  "multidevice_mismatch",
  /** An established connection dropped (network, server, keepalive). */
  "connection_lost",
] as const

export const ConnectionFailureCode = Type.Union(
  CONNECTION_FAILURE_CODES.map((code) => Type.Literal(code)),
  { description: "Why the last connect or pairing attempt failed (docs/live-whatsapp.md lists every code)." },
)
export type ConnectionFailureCode = Static<typeof ConnectionFailureCode>

/** A failed attempt as the adapter reports it; the domain turns it into the operator's message. */
export interface ConnectionFailure {
  code: ConnectionFailureCode
  /** The underlying error in technical words, for the log ("connect ECONNREFUSED 127.0.0.1:443"). */
  cause: string
  /** The host wagate tried to reach (from the WebSocket URL). */
  host: string
  /** The HTTP status of a refused WebSocket upgrade; null otherwise. */
  httpStatus: number | null
  /** The WhatsApp Web version the attempt announced, as x.y.z; null when none was chosen yet. */
  waVersion: string | null
}
