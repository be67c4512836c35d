import { Type } from "@sinclair/typebox"
import { phoneView } from "../../domain/api-views"
import { ConnectionStatusSchema } from "../../domain/schemas"
import { E164_PATTERN } from "../../lib/formats"
import { named } from "../../lib/schema"
import type { PhoneRow } from "../../store/phones"
import { NullableTimestamp, Timestamp } from "./common"

export const ConnectionStatus = ConnectionStatusSchema

export const PhoneNumber = named(
  "PhoneNumber",
  Type.Object({
    id: Type.String({ examples: ["ph_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
    phoneNumber: Type.String({ pattern: E164_PATTERN, examples: ["+14155550123"] }),
    displayName: Type.String({ examples: ["Support line"] }),
    connectionStatus: ConnectionStatus,
    lastConnectedAt: NullableTimestamp,
    lastDisconnectedAt: NullableTimestamp,
    createdAt: Timestamp,
    updatedAt: Timestamp,
  }),
)
export type PhoneNumber = typeof PhoneNumber.static

export const PhoneStatus = named(
  "PhoneNumberStatus",
  Type.Object({
    id: Type.String({ examples: ["ph_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
    phoneNumber: Type.String({ pattern: E164_PATTERN, examples: ["+14155550123"] }),
    connectionStatus: ConnectionStatus,
    lastConnectedAt: NullableTimestamp,
    lastDisconnectedAt: NullableTimestamp,
    updatedAt: Timestamp,
  }),
)

/** The API's view of a phone. */
export function toPhoneNumber(row: PhoneRow): PhoneNumber {
  return phoneView(row)
}

/** The status subset of a phone (spec: no displayName, no createdAt). */
export function toPhoneStatus(row: PhoneRow): typeof PhoneStatus.static {
  const { displayName: _name, createdAt: _created, ...status } = toPhoneNumber(row)
  return status
}

export const PhoneIdParams = Type.Object({
  id: Type.String({ description: "Phone id, or its E.164 number URL-encoded (%2B14155550123)." }),
})
