import { Type, type Static } from "@sinclair/typebox"
import { named, NullableTimestamp } from "../lib/schema"
import { toIsoOrNull } from "../lib/time"
import type { PhoneRow } from "../store/phones"
import { ConnectionStatusSchema, E164 } from "./schemas"

/* `phone.connected` and `phone.disconnected` (docs/webhooks.md § "Events"): a live phone's connection. */

const PhoneEventFields = {
  phoneId: Type.String({ examples: ["ph_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
  phoneNumber: E164,
  lastConnectedAt: NullableTimestamp,
  lastDisconnectedAt: NullableTimestamp,
}

export const PhoneConnectedData = named(
  "PhoneConnectedEventData",
  Type.Object(
    { ...PhoneEventFields, connectionStatus: Type.Literal("connected"), reason: Type.Null(), willReconnect: Type.Literal(false) },
    { description: "A live phone connected to WhatsApp." },
  ),
)

export const PhoneDisconnectedData = named(
  "PhoneDisconnectedEventData",
  Type.Object(
    {
      ...PhoneEventFields,
      connectionStatus: ConnectionStatusSchema,
      reason: Type.Union([Type.String(), Type.Null()], {
        description: "Why, for example connection_lost, logged_out, replaced, disconnected_by_operator, server_stopped.",
        examples: ["connection_lost"],
      }),
      willReconnect: Type.Boolean({ description: "True when wagate reconnects by itself." }),
    },
    { description: "A live phone lost its connection, was disconnected or was logged out." },
  ),
)

/** The catalogue's entries for a phone's connection (event-catalogue.ts composes every area's). */
export const PHONE_EVENT_ENTRIES = {
  "phone.connected": { data: PhoneConnectedData, firesWhen: "A live phone connected to WhatsApp." },
  "phone.disconnected": { data: PhoneDisconnectedData, firesWhen: "A live phone lost its connection or was logged out." },
} as const

/**
 * The data of `phone.connected` or `phone.disconnected` for a phone in its new state. A connected
 * phone has no reason and nothing to reconnect.
 */
type PhoneEventData = Static<typeof PhoneConnectedData> | Static<typeof PhoneDisconnectedData>
export function buildPhoneEventData(phone: PhoneRow, change: { reason?: string; willReconnect?: boolean }): PhoneEventData {
  const common = {
    phoneId: phone.id,
    phoneNumber: phone.phoneNumber,
    lastConnectedAt: toIsoOrNull(phone.lastConnectedAtMs),
    lastDisconnectedAt: toIsoOrNull(phone.lastDisconnectedAtMs),
  }
  if (phone.connectionStatus === "connected") return { ...common, connectionStatus: "connected", reason: null, willReconnect: false }
  return { ...common, connectionStatus: phone.connectionStatus, reason: change.reason ?? null, willReconnect: change.willReconnect ?? false }
}
