import { Type } from "@sinclair/typebox"
import { E164_PATTERN, GROUP_JID_PATTERN } from "../../lib/formats"
import { toIso, toIsoOrNull } from "../../lib/time"
import { ENVIRONMENTS, MESSAGE_STATUSES } from "../../lib/vocabulary"
import type { MessageRow } from "../../store/messages"
import { NullableTimestamp, PageQueryFields, Timestamp } from "./common"
import { ENVIRONMENT_FROM_KEY, explainUnknownFields } from "../validation"

const TO_MESSAGE = "to must be an E.164 number (+ and 8–15 digits) or a group JID"

export const MessageStatus = Type.Union(
  MESSAGE_STATUSES.map((s) => Type.Literal(s)),
  { errorMessage: `status must be one of ${MESSAGE_STATUSES.join(", ")}` },
)

export const SendMessageBody = explainUnknownFields(
  Type.Object(
    {
      fromPhoneId: Type.String({
        minLength: 1,
        maxLength: 64,
        description: "Sender phone as its E.164 number (recommended) or its phone id.",
        examples: ["+14155550123"],
        errorMessage: "fromPhoneId must be the sender phone's E.164 number or id",
      }),
      to: Type.String({
        pattern: `(${E164_PATTERN})|(${GROUP_JID_PATTERN})`,
        description: "Recipient E.164 number, or a group JID from GET /v1/groups.",
        examples: ["+14155550199"],
        errorMessage: TO_MESSAGE,
      }),
      content: Type.Optional(
        Type.String({
          description: "Text, or the caption of the first media. At most 4096 Unicode characters. Required when mediaUrls is empty.",
          examples: ["Your order has shipped"],
          errorMessage: "content must be a string of at most 4096 characters",
        }),
      ),
      mediaUrls: Type.Optional(
        Type.Array(Type.String(), {
          maxItems: 10,
          description: "Public HTTPS URLs, at most 10. Required when content is empty.",
          examples: [["https://example.com/invoice.pdf"]],
          errorMessage: "mediaUrls must be an array of at most 10 URL strings",
        }),
      ),
      idempotencyKey: Type.Optional(
        Type.String({
          pattern: "^[\\x21-\\x7E]{1,64}$",
          description: "1–64 printable ASCII characters; reusing it replays the original message.",
          examples: ["order-1234-shipped"],
          errorMessage: "idempotencyKey must be 1–64 printable ASCII characters without spaces",
        }),
      ),
    },
    { additionalProperties: false },
  ),
  ENVIRONMENT_FROM_KEY,
)
export type SendMessageBody = typeof SendMessageBody.static

export const Message = Type.Object({
  id: Type.String({ examples: ["msg_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
  from: Type.String({ examples: ["+14155550123"] }),
  to: Type.String({ examples: ["+14155550199"] }),
  isGroup: Type.Boolean(),
  groupId: Type.Union([Type.String(), Type.Null()]),
  content: Type.String(),
  mediaUrls: Type.Array(Type.String()),
  environment: Type.Union(ENVIRONMENTS.map((e) => Type.Literal(e))),
  status: MessageStatus,
  createdAt: Timestamp,
  sentAt: NullableTimestamp,
  deliveredAt: NullableTimestamp,
  readAt: NullableTimestamp,
  failedAt: NullableTimestamp,
  errorCode: Type.Union([Type.String(), Type.Null()]),
  errorMessage: Type.Union([Type.String(), Type.Null()]),
})
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
    errorCode: row.errorCode,
    errorMessage: row.errorMessage,
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
