import { Type } from "@sinclair/typebox"
import { toIso } from "../../lib/time"
import type { InboundRow } from "../../store/inbound"
import { PageQueryFields, Timestamp } from "./common"
import { ENVIRONMENT_FROM_KEY, explainUnknownFields } from "../validation"

export const InboundMessage = Type.Object({
  id: Type.String({ examples: ["inmsg_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
  from: Type.String({ examples: ["+14155550199"] }),
  to: Type.String({ examples: ["+14155550123"] }),
  content: Type.String(),
  type: Type.Union(
    ["text", "image", "video", "audio", "document", "sticker", "location", "contact", "other"].map((s) => Type.Literal(s)),
  ),
  isGroup: Type.Boolean(),
  groupId: Type.Union([Type.String(), Type.Null()]),
  receivedAt: Timestamp,
  createdAt: Timestamp,
})
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
