import { Type } from "@sinclair/typebox"
import { E164_PATTERN } from "../lib/formats"
import { named, OneOf } from "../lib/schema"
import { CONNECTION_STATUSES, INBOUND_TYPES, MESSAGE_ERROR_CODES, MESSAGE_STATUSES, MESSAGE_TYPES } from "../lib/vocabulary"
import { USERNAME_MAX_CHARS, USERNAME_PATTERN } from "../lib/wa-username"

/**
 * The domain's closed sets as TypeBox schemas, shared by the API models and the webhook event
 * payloads so that both publish the same names and values. The lists themselves are declared
 * once, in src/lib/vocabulary.ts.
 */

export const MessageStatusSchema = named(
  "MessageStatus",
  OneOf(MESSAGE_STATUSES, {
    description: "pending → sent → delivered → read, or failed.",
    errorMessage: `status must be one of ${MESSAGE_STATUSES.join(", ")}`,
  }),
)

export const ConnectionStatusSchema = named("ConnectionStatus", OneOf(CONNECTION_STATUSES))

export const InboundTypeSchema = named("InboundMessageType", OneOf(INBOUND_TYPES))

export const ErrorCodeSchema = named("ErrorCode", OneOf(MESSAGE_ERROR_CODES, { description: "Why a message failed (a closed set)." }))

export const MessageTypeSchema = named(
  "MessageType",
  OneOf(MESSAGE_TYPES, { description: "What the message carries: text, media (with an optional caption), a location or a contact card." }),
)

/** A sender's WhatsApp username, as src/lib/wa-username.ts keeps it (shared by the API model and `message.received`). */
export const FromUsername = named(
  "SenderUsername",
  Type.Union([Type.String({ minLength: 1, maxLength: USERNAME_MAX_CHARS, pattern: USERNAME_PATTERN, examples: ["ada.lovelace"] }), Type.Null()], {
    description: "The sender's WhatsApp username when WhatsApp sent one with the message (senders with a username may hide their number), else null.",
  }),
)

/** A phone number in E.164, as events and models publish it. */
export const E164 = Type.String({ pattern: E164_PATTERN, examples: ["+14155550123"] })
