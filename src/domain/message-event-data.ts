import { Type, type Static } from "@sinclair/typebox"
import { E164_PATTERN, GROUP_JID_PATTERN } from "../lib/formats"
import { named, Nullable, NullableTimestamp, Timestamp } from "../lib/schema"
import { toIsoOrNull } from "../lib/time"
import type { MessageEventName, MessageStatus } from "../lib/vocabulary"
import type { MessageRow } from "../store/messages"
import type { MessageState } from "./message-status"
import { E164, ErrorCodeSchema } from "./schemas"

/*
 * The events of an API send's life (docs/webhooks.md § "Events"): `message.sent`, `.delivered`,
 * `.read` and `.failed`. Each carries the message as it stood at that step; the builder below is
 * the only way the domain makes their data.
 */

const Recipient = Type.String({
  pattern: `(${E164_PATTERN})|(${GROUP_JID_PATTERN})`,
  description: "E.164 number, a group JID, or a hidden number's `…@lid` JID.",
  examples: ["+14155550199"],
})
const GroupJid = Type.String({ pattern: GROUP_JID_PATTERN, examples: ["120363000000000001@g.us"] })

/** The fields of every message.* event; each event narrows `status` and its timestamps. */
const MessageEventFields = {
  messageId: Type.String({ examples: ["msg_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
  from: E164,
  to: Recipient,
  isGroup: Type.Boolean(),
  groupId: Nullable(GroupJid),
  sentAt: NullableTimestamp,
  deliveredAt: Type.Null(),
  readAt: Type.Null(),
  failedAt: Type.Null(),
  errorCode: Type.Null(),
  errorMessage: Type.Null(),
}

export const MessageSentData = named(
  "MessageSentEventData",
  Type.Object(
    { ...MessageEventFields, status: Type.Literal("sent"), sentAt: Timestamp },
    { description: "The message as it stood when it became sent (deliveredAt is null even when a receipt came at the same moment)." },
  ),
)
export const MessageDeliveredData = named(
  "MessageDeliveredEventData",
  Type.Object(
    { ...MessageEventFields, status: Type.Literal("delivered"), deliveredAt: Timestamp },
    { description: "The message as it stood when it was delivered (in a group: to the first participant)." },
  ),
)
export const MessageReadData = named(
  "MessageReadEventData",
  Type.Object(
    { ...MessageEventFields, status: Type.Literal("read"), deliveredAt: NullableTimestamp, readAt: Timestamp },
    { description: "The message as it stood when it was read; deliveredAt is null when no delivery receipt came first." },
  ),
)
export const MessageFailedData = named(
  "MessageFailedEventData",
  Type.Object(
    {
      ...MessageEventFields,
      status: Type.Literal("failed"),
      failedAt: Timestamp,
      errorCode: ErrorCodeSchema,
      errorMessage: Type.String({ examples: ["+12025550101 is not on WhatsApp"] }),
    },
    { description: "The message as it stood when it failed." },
  ),
)

/** The catalogue's entries for an API send's life (event-catalogue.ts composes every area's). */
export const MESSAGE_STATUS_EVENT_ENTRIES = {
  "message.sent": { data: MessageSentData, firesWhen: "The message became sent: a sandbox send at once, a live send when WhatsApp's server acknowledged it." },
  "message.delivered": { data: MessageDeliveredData, firesWhen: "The delivery receipt arrived (in a group, the first participant's)." },
  "message.read": { data: MessageReadData, firesWhen: "The read receipt arrived (in a group, the first participant's). It may never come." },
  "message.failed": { data: MessageFailedData, firesWhen: "The message failed; errorCode says why." },
} as const

type MessageEventData<E extends MessageEventName> = Static<(typeof MESSAGE_STATUS_EVENT_ENTRIES)[E]["data"]>

const STATUS_OF: Record<MessageEventName, MessageStatus> = {
  "message.sent": "sent",
  "message.delivered": "delivered",
  "message.read": "read",
  "message.failed": "failed",
}

/**
 * The data of a message.* event, as the message stood at that event: when one signal implies
 * two steps (a receipt before the ack), `message.sent` still reports `sent`.
 */
export function buildMessageEventData<E extends MessageEventName>(message: MessageRow, state: MessageState, event: E): MessageEventData<E> {
  const status = STATUS_OF[event]
  const reached = (s: MessageStatus) => status === s || (s === "delivered" && status === "read")
  const data = {
    messageId: message.id,
    from: message.fromNumber,
    to: message.toAddress,
    isGroup: message.isGroup,
    groupId: message.isGroup ? message.toAddress : null,
    status,
    sentAt: toIsoOrNull(state.sentAtMs),
    deliveredAt: reached("delivered") ? toIsoOrNull(state.deliveredAtMs) : null,
    readAt: status === "read" ? toIsoOrNull(state.readAtMs) : null,
    failedAt: status === "failed" ? toIsoOrNull(state.failedAtMs) : null,
    errorCode: status === "failed" ? state.errorCode : null,
    errorMessage: status === "failed" ? state.errorMessage : null,
  }
  // The status machine fills the timestamp of the step an event announces, and an error code
  // from the closed set on failure, so the data has the narrow shape of its event.
  return data as MessageEventData<E>
}
