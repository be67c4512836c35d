import { ERROR_CODES } from "./message-status"
import { named, OneOf } from "../lib/schema"
import type { InboundType } from "../store/inbound"
import type { MessageStatus } from "../store/messages"
import type { ConnectionStatus } from "../store/phones"

/**
 * The domain's closed sets as TypeBox schemas, shared by the API models and the webhook event
 * payloads so that both publish the same names and values.
 */

/** True only when `Values` lists every member of `Union`: a new member breaks the build here. */
type Exhaustive<Union extends string, Values extends readonly Union[]> = Exclude<Union, Values[number]> extends never ? Values : never

const MESSAGE_STATUSES = ["pending", "sent", "delivered", "read", "failed"] as const
const CONNECTION_STATUSES = ["unpaired", "pairing", "connecting", "connected", "disconnected", "logged_out"] as const
const INBOUND_TYPES = ["text", "image", "video", "audio", "document", "sticker", "location", "contact", "other"] as const

export const MessageStatusSchema = named(
  "MessageStatus",
  OneOf(MESSAGE_STATUSES satisfies Exhaustive<MessageStatus, typeof MESSAGE_STATUSES>, {
    description: "pending → sent → delivered → read, or failed.",
    errorMessage: "status must be one of pending, sent, delivered, read, failed",
  }),
)

export const ConnectionStatusSchema = named(
  "ConnectionStatus",
  OneOf(CONNECTION_STATUSES satisfies Exhaustive<ConnectionStatus, typeof CONNECTION_STATUSES>),
)

export const InboundTypeSchema = named("InboundMessageType", OneOf(INBOUND_TYPES satisfies Exhaustive<InboundType, typeof INBOUND_TYPES>))

export const ErrorCodeSchema = named(
  "ErrorCode",
  OneOf(ERROR_CODES, { description: "Why a message failed (a closed set)." }),
)
