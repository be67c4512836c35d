import { Type } from "@sinclair/typebox"
import { CONTENT_MAX_CODE_POINTS } from "../../domain/messages"
import { named, withDomainRules } from "../../lib/schema"
import { ENVIRONMENT_FROM_KEY, explainUnknownFields } from "../validation"

/** The request of `POST /v1/messages/{messageId}/reaction`. */
export const ReactionBody = explainUnknownFields(
  named(
    "ReactionRequest",
    Type.Object(
      {
        emoji: Type.String({
          maxLength: 64,
          description: 'Exactly one emoji (one grapheme: a flag, a skin tone or a ZWJ family counts once), or `""` to remove this phone\'s reaction.',
          examples: ["👍"],
          errorMessage: 'emoji must be a string: one emoji, or "" to remove the reaction',
        }),
      },
      { additionalProperties: false },
    ),
  ),
  ENVIRONMENT_FROM_KEY,
)

/** The answer of a reaction. */
export const Reaction = named(
  "Reaction",
  Type.Object({
    messageId: Type.String({ description: "The message reacted to (`msg_…` or `inmsg_…`).", examples: ["msg_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
    emoji: Type.String({ description: 'The emoji now shown; `""` when the reaction was removed.', examples: ["👍"] }),
  }),
)

/** The request of `PATCH /v1/messages/{messageId}`. */
export const EditMessageBody = explainUnknownFields(
  named(
    "EditMessageRequest",
    Type.Object(
      {
        content: withDomainRules(
          Type.String({
            description: "The new text, or the new caption of a media message. At most 4096 characters (Unicode code points), not blank.",
            examples: ["Your order has shipped (tracking: 1Z999)"],
            errorMessage: "content must be a string of at most 4096 characters",
          }),
          { maxLength: CONTENT_MAX_CODE_POINTS, pattern: "\\S" },
        ),
      },
      { additionalProperties: false },
    ),
  ),
  ENVIRONMENT_FROM_KEY,
)

/** The answer of marking inbound messages read. */
export const ReadReceipt = named(
  "ReadReceipt",
  Type.Object({
    messageId: Type.String({ examples: ["inmsg_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
    markedRead: Type.Integer({
      minimum: 0,
      description: "How many messages of the chat (this one and earlier ones) the receipt newly covered; 0 when they were read already.",
      examples: [3],
    }),
  }),
)
