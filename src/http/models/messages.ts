import { Type } from "@sinclair/typebox"
import { E164_PATTERN, GROUP_JID_PATTERN, RECIPIENT_PATTERN } from "../../lib/formats"
import { toIso, toIsoOrNull } from "../../lib/time"
import type { MessageRow } from "../../store/messages"
import { CONTENT_MAX_CODE_POINTS, MEDIA_URLS_MAX } from "../../domain/messages"
import type { MessageErrorCode } from "../../lib/vocabulary"
import { ErrorCodeSchema, MessageStatusSchema } from "../../domain/schemas"
import { MEDIA_URL_MAX_LENGTH } from "../../lib/net-policy"
import { named, Nullable, withDomainRules } from "../../lib/schema"
import { Environment } from "./admin"
import { NullableTimestamp, PageQueryFields, Timestamp } from "./common"
import { ENVIRONMENT_FROM_KEY, explainUnknownFields } from "../validation"

const IDEMPOTENCY_KEY_PATTERN = "^[\\x21-\\x7E]{1,64}$"
const TO_MESSAGE = "to must be an E.164 number (+ and 8–15 digits), a group JID or a …@lid JID"

/** The message statuses, as the list filter accepts them. */
export const MessageStatus = MessageStatusSchema

const SendMessageFields = {
  fromPhoneId: Type.String({
    minLength: 1,
    maxLength: 64,
    description: "Sender phone as its E.164 number (recommended) or its phone id.",
    examples: ["+14155550123"],
    errorMessage: "fromPhoneId must be the sender phone's E.164 number or id",
  }),
  to: Type.String({
    pattern: RECIPIENT_PATTERN,
    description:
      "Recipient E.164 number, a group JID from GET /v1/groups, or a hidden number's `…@lid` JID as an inbound message's `from` names it (live keys reach that chat; test keys treat it as an ordinary recipient).",
    examples: ["+14155550199"],
    errorMessage: TO_MESSAGE,
  }),
  content: Type.Optional(
    withDomainRules(
      Type.String({
        description:
          "Text, or the caption of the first media. At most 4096 characters, counted as Unicode code points (an emoji counts once). Required when mediaUrls is empty.",
        examples: ["Your order has shipped"],
        errorMessage: "content must be a string of at most 4096 characters",
      }),
      { maxLength: CONTENT_MAX_CODE_POINTS },
    ),
  ),
  mediaUrls: Type.Optional(
    Type.Array(withDomainRules(Type.String(), { pattern: "^[Hh][Tt][Tt][Pp][Ss]://", maxLength: MEDIA_URL_MAX_LENGTH }), {
      maxItems: MEDIA_URLS_MAX,
      description:
        "Public https:// URLs (default port, no credentials, a public host), at most 10 of at most 2048 characters each. Required when content is empty.",
      examples: [["https://example.com/invoice.pdf"]],
      errorMessage: "mediaUrls must be an array of at most 10 URL strings",
    }),
  ),
  idempotencyKey: Type.Optional(
    Type.String({
      pattern: IDEMPOTENCY_KEY_PATTERN,
      description: "1–64 printable ASCII characters; reusing it replays the original message.",
      examples: ["order-1234-shipped"],
      errorMessage: "idempotencyKey must be 1–64 printable ASCII characters without spaces",
    }),
  ),
}

/**
 * Text with something other than white space, or at least one media URL. Wrapped in `allOf` so
 * that client generators combine it with the fields (an `anyOf` beside them becomes a union).
 */
const CONTENT_OR_MEDIA = {
  allOf: [
    {
      anyOf: [
        { required: ["content"], properties: { content: { type: "string", pattern: "\\S" } } },
        { required: ["mediaUrls"], properties: { mediaUrls: { type: "array", items: { type: "string" }, minItems: 1 } } },
      ],
    },
  ],
}

/**
 * The send request. The shape check covers each field on its own; the domain checks what spans
 * fields or needs more than a schema, with its own messages (content length in code points,
 * https media URLs, content or media), and the published schema carries those rules too.
 */
export const SendMessageBody = explainUnknownFields(
  named("SendMessageRequest", withDomainRules(Type.Object(SendMessageFields, { additionalProperties: false }), CONTENT_OR_MEDIA)),
  ENVIRONMENT_FROM_KEY,
)
export type SendMessageBody = typeof SendMessageBody.static

/** The headers a send reads: the idempotency key may come as a header, as Stripe takes it. */
export const SendMessageHeaders = Type.Object({
  "Idempotency-Key": Type.Optional(
    Type.String({
      pattern: IDEMPOTENCY_KEY_PATTERN,
      description: "The idempotencyKey, as a header instead of a body field; sent in both places, the two must be equal.",
      examples: ["order-1234-shipped"],
    }),
  ),
})

export const Message = named(
  "Message",
  Type.Object({
    id: Type.String({ examples: ["msg_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
    from: Type.String({ pattern: E164_PATTERN, description: "The sender phone's E.164 number.", examples: ["+14155550123"] }),
    to: Type.String({ pattern: RECIPIENT_PATTERN, description: "E.164 number, group JID, or a hidden number's `…@lid` JID.", examples: ["+14155550199"] }),
    isGroup: Type.Boolean(),
    groupId: Nullable(Type.String({ pattern: GROUP_JID_PATTERN, examples: ["120363000000000001@g.us"] })),
    content: Type.String(),
    mediaUrls: Type.Array(Type.String()),
    environment: Environment,
    status: MessageStatusSchema,
    createdAt: Timestamp,
    sentAt: NullableTimestamp,
    deliveredAt: NullableTimestamp,
    readAt: NullableTimestamp,
    failedAt: NullableTimestamp,
    errorCode: Type.Union([ErrorCodeSchema, Type.Null()], { description: "Set only when status is failed." }),
    errorMessage: Type.Union([Type.String(), Type.Null()], { description: "Set only when status is failed." }),
    // Beyond the seed (docs/api.md § "Act on a message"): optional, so a client of the seed's contract sees no change.
    editedAt: Type.Optional(Type.Union([Timestamp, Type.Null()], { description: "When the text or caption was last edited (PATCH); null if never." })),
    revokedAt: Type.Optional(Type.Union([Timestamp, Type.Null()], { description: "When it was deleted for everyone (DELETE); null if it was not. The message stays." })),
  }),
)
export type Message = typeof Message.static

/** The API's view of a message: every spec field, environment included, times as ISO. */
export function toMessage(row: MessageRow): Message {
  return {
    id: row.id,
    from: row.fromNumber,
    to: row.toAddress,
    isGroup: row.isGroup,
    groupId: row.isGroup ? row.toAddress : null,
    content: row.content,
    mediaUrls: row.mediaUrls,
    environment: row.env,
    status: row.status,
    createdAt: toIso(row.createdAtMs),
    sentAt: toIsoOrNull(row.sentAtMs),
    deliveredAt: toIsoOrNull(row.deliveredAtMs),
    readAt: toIsoOrNull(row.readAtMs),
    failedAt: toIsoOrNull(row.failedAtMs),
    // Only the status machine writes a code, and only one of the closed set.
    errorCode: row.errorCode as MessageErrorCode | null,
    errorMessage: row.errorMessage,
    editedAt: toIsoOrNull(row.editedAtMs),
    revokedAt: toIsoOrNull(row.revokedAtMs),
  }
}

export const ListMessagesQuery = explainUnknownFields(
  Type.Object(
    {
      phoneNumberId: Type.Optional(
        Type.String({ minLength: 1, maxLength: 64, description: "Sender phone id (or E.164).", errorMessage: "phoneNumberId must be a phone id" }),
      ),
      status: Type.Optional(MessageStatus),
      ...PageQueryFields,
    },
    { additionalProperties: false },
  ),
  ENVIRONMENT_FROM_KEY,
)

export const MessageIdParams = Type.Object({ messageId: Type.String({ examples: ["msg_01jd0m3k7v5q9z8y6x4w2t0r1p"] }) })
