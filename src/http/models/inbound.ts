import { Type } from "@sinclair/typebox"
import { InboundTypeSchema } from "../../domain/schemas"
import { E164_PATTERN } from "../../lib/formats"
import { named } from "../../lib/schema"
import { toIso } from "../../lib/time"
import type { InboundRow } from "../../store/inbound"
import { FromUsername } from "../../domain/schemas"
import { PageQueryFields, Timestamp } from "./common"
import { ENVIRONMENT_FROM_KEY, explainUnknownFields } from "../validation"

const E164 = Type.String({ pattern: E164_PATTERN, examples: ["+14155550123"] })

export const InboundMedia = named(
  "InboundMedia",
  Type.Object(
    {
      mimetype: Type.String({ examples: ["image/jpeg"] }),
      size: Type.Integer({ minimum: 0, description: "Bytes, as the sender's phone declared them.", examples: [48213] }),
      fileName: Type.Union([Type.String({ examples: ["invoice.pdf"] }), Type.Null()], { description: "A document's name (made safe), else null." }),
    },
    { description: "The attachment; GET /v1/messages/inbound/{messageId}/media serves its bytes." },
  ),
)

export const InboundLocation = named(
  "InboundLocation",
  Type.Object(
    {
      latitude: Type.Number({ minimum: -90, maximum: 90, examples: [52.52] }),
      longitude: Type.Number({ minimum: -180, maximum: 180, examples: [13.405] }),
      name: Type.Optional(Type.String({ maxLength: 256, examples: ["Brandenburg Gate"] })),
      address: Type.Optional(Type.String({ maxLength: 512, examples: ["Pariser Platz, 10117 Berlin"] })),
    },
    { description: "The place a location message shares (the shape sends use)." },
  ),
)

export const InboundContact = named(
  "InboundContact",
  Type.Object(
    {
      name: Type.String({ maxLength: 256, examples: ["Ada Lovelace"] }),
      phoneNumbers: Type.Array(E164, { maxItems: 5, description: "The card's numbers that are E.164 (others are left out)." }),
      organization: Type.Optional(Type.String({ maxLength: 256, examples: ["Analytical Engines Ltd"] })),
      email: Type.Optional(Type.String({ maxLength: 320, examples: ["ada@example.com"] })),
    },
    { description: "The contact card a contact message shares, read from its vCard (the shape sends use)." },
  ),
)

export const InboundMessage = named(
  "InboundMessage",
  Type.Object({
    id: Type.String({ examples: ["inmsg_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
    from: Type.String({ description: "The sender (E.164 when WhatsApp tells the number).", examples: ["+14155550199"] }),
    fromUsername: Type.Optional(FromUsername),
    to: Type.String({ pattern: E164_PATTERN, description: "The receiving phone's number.", examples: ["+14155550123"] }),
    content: Type.String({ description: "The text, or the caption of a media message." }),
    type: InboundTypeSchema,
    isGroup: Type.Boolean(),
    // From WhatsApp, not checked by wagate: described rather than held to a pattern.
    groupId: Type.Union([Type.String({ description: "The group JID.", examples: ["120363000000000001@g.us"] }), Type.Null()]),
    receivedAt: Timestamp,
    createdAt: Timestamp,
    media: Type.Optional(Type.Union([InboundMedia, Type.Null()])),
    replyTo: Type.Optional(
      Type.Union([Type.String({ examples: ["msg_01jd0m3k7v5q9z8y6x4w2t0r1p"] }), Type.Null()], {
        description: "The message this one quotes (`msg_…` or `inmsg_…`) when wagate knows it, else null.",
      }),
    ),
    location: Type.Optional(Type.Union([InboundLocation, Type.Null()])),
    contact: Type.Optional(Type.Union([InboundContact, Type.Null()])),
  }),
)
export type InboundMessage = typeof InboundMessage.static

/** The API's view of an inbound message. */
export function toInboundMessage(row: InboundRow): InboundMessage {
  return {
    id: row.id,
    from: row.fromAddress,
    fromUsername: row.fromUsername,
    to: row.toNumber,
    content: row.content,
    type: row.type,
    isGroup: row.isGroup,
    groupId: row.groupId,
    receivedAt: toIso(row.receivedAtMs),
    createdAt: toIso(row.createdAtMs),
    media: row.media ? { mimetype: row.media.mimetype, size: row.media.sizeBytes, fileName: row.media.fileName } : null,
    replyTo: row.replyToId,
    location: row.location,
    contact: row.contact,
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
