import { Type } from "@sinclair/typebox"
import type { PairingState as DomainPairingState } from "../../domain/sessions"
import { named } from "../../lib/schema"
import { toIso } from "../../lib/time"
import { Timestamp } from "./common"
import { ConnectionStatus } from "./phones"

export const ConnectBody = named("ConnectPhoneRequest", Type.Object(
  {
    method: Type.Optional(
      Type.Union([Type.Literal("qr"), Type.Literal("code")], {
        description: "qr (default): scan a QR code in WhatsApp › Linked devices; code: type an 8-character code instead.",
        errorMessage: "method must be qr or code",
      }),
    ),
  },
  { additionalProperties: false },
))

export const PairingState = named("PairingState", Type.Object({
  connectionStatus: ConnectionStatus,
  qr: Type.Union([Type.String(), Type.Null()], { description: "The raw QR string to render, while waiting for a scan." }),
  pairingCode: Type.Union([Type.String(), Type.Null()], { description: "The code to type on the phone, while waiting." }),
  updatedAt: Timestamp,
}))

/** The API's view of a pairing state. */
export function toPairingState(state: DomainPairingState): typeof PairingState.static {
  return { connectionStatus: state.connectionStatus, qr: state.qr, pairingCode: state.pairingCode, updatedAt: toIso(state.updatedAtMs) }
}
