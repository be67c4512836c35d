import { Type } from "@sinclair/typebox"
import { ConnectionFailureCode, type LastError as DomainLastError } from "../../domain/connection-errors"
import type { PairingState as DomainPairingState } from "../../domain/sessions"
import { lastErrorView } from "../../domain/api-views"
import { named, OneOf } from "../../lib/schema"
import { PAIRING_METHODS } from "../../lib/vocabulary"
import { toIso, toIsoOrNull } from "../../lib/time"
import { Timestamp } from "./common"
import { ConnectionStatus } from "./phones"

export const ConnectBody = named("ConnectPhoneRequest", Type.Object(
  {
    method: Type.Optional(
      OneOf(PAIRING_METHODS, {
        description: "qr (default): scan a QR code in WhatsApp › Linked devices; code: type an 8-character code instead.",
        errorMessage: `method must be ${PAIRING_METHODS.join(" or ")}`,
      }),
    ),
  },
  { additionalProperties: false },
))

export const LastError = named(
  "PhoneLastError",
  Type.Union(
    [
      Type.Object({
        code: ConnectionFailureCode,
        message: Type.String({ description: "One sentence: what failed and what to do about it." }),
        at: Timestamp,
      }),
      Type.Null(),
    ],
    { description: "Why the last connect or pairing attempt failed; null once the phone connects or is asked to connect again." },
  ),
)

/** The API's view of a last error. */
export function toLastError(error: DomainLastError | null): typeof LastError.static {
  return lastErrorView(error)
}

export const PairingState = named("PairingState", Type.Object({
  connectionStatus: ConnectionStatus,
  qr: Type.Union([Type.String(), Type.Null()], { description: "The raw QR string to render, while waiting for a scan." }),
  pairingCode: Type.Union([Type.String(), Type.Null()], { description: "The code to type on the phone, while waiting." }),
  lastError: LastError,
  waVersion: Type.Union([Type.String(), Type.Null()], {
    description: "The WhatsApp Web version the phone's last connect announced (WAGATE_WA_VERSION); null before its first connect.",
    examples: ["2.3000.1023456789"],
  }),
  offlineWatchdogAt: Type.Union([Timestamp, Type.Null()], {
    description:
      "When wagate last released the inbound messages held after a login because WhatsApp's end-of-offline-queue marker had not come within WAGATE_WA_OFFLINE_MARKER_WAIT_MS (see Receiving stalls in docs/live-whatsapp.md); null when never.",
  }),
  clientExpiresAt: Type.Union([Timestamp, Type.Null()], {
    description:
      "When WhatsApp said it stops accepting that version (<ib><client_expiration>): upgrade wagate or set WAGATE_WA_VERSION before then. Null when WhatsApp did not say.",
  }),
  updatedAt: Timestamp,
}))

/** The API's view of a pairing state. */
export function toPairingState(state: DomainPairingState): typeof PairingState.static {
  return {
    connectionStatus: state.connectionStatus,
    qr: state.qr,
    pairingCode: state.pairingCode,
    lastError: toLastError(state.lastError),
    waVersion: state.waVersion,
    offlineWatchdogAt: toIsoOrNull(state.offlineWatchdogAtMs),
    clientExpiresAt: toIsoOrNull(state.clientExpiresAtMs),
    updatedAt: toIso(state.updatedAtMs),
  }
}
