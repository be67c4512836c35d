import { Type } from "@sinclair/typebox"
import { InboundTypeSchema } from "../../domain/schemas"
import { E164_PATTERN } from "../../lib/formats"
import { named } from "../../lib/schema"
import { toIso } from "../../lib/time"
import type { InboundRow } from "../../store/inbound"
import { PageQueryFields, Timestamp } from "./common"
import { ENVIRONMENT_FROM_KEY, explainUnknownFields } from "../validation"

export const InboundMessage = named(
  "InboundMessage",
  Type.Object({
    id: Type.String({ examples: ["inmsg_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
    from: Type.String({ description: "The sender (E.164 when WhatsApp tells the number).", examples: ["+14155550199"] }),
    to: Type.String({ pattern: E164_PATTERN, description: "The receiving phone's number.", examples: ["+14155550123"] }),
    content: Type.String({ description: "The text, or the caption of a media message." }),
    type: InboundTypeSchema,
    isGroup: Type.Boolean(),
    // From WhatsApp, not checked by wagate: described rather than held to a pattern.
    groupId: Type.Union([Type.String({ description: "The group JID.", examples: ["120363000000000001@g.us"] }), Type.Null()]),
    receivedAt: Timestamp,
    createdAt: Timestamp,
  }),
)
export type InboundMessage = typeof InboundMessage.static

/** The API's view of an inbound message. */
export function toInboundMessage(row: InboundRow): InboundMessage {
  return {
    id: row.id,
    from: row.fromAddress,
    to: row.toNumber,
    content: row.content,
    type: row.type,
    isGroup: row.isGroup,
    groupId: row.groupId,
    receivedAt: toIso(row.receivedAtMs),
    createdAt: toIso(row.createdAtMs),
  }
}

export const ListInboundQuery = explainUnknownFields(
  Type.Object(
    {
      phoneNumberId: Type.Optional(
        Type.String({ minLength: 1, maxLength: 64, description: "Receiving phone id (or E.164).", errorMessage: "phoneNumberId must be a phone id" }),
      ),
      ...PageQueryFields,
    },
    { additionalProperties: false },
  ),
  ENVIRONMENT_FROM_KEY,
)
