import { Type, type Static, type TSchema } from "@sinclair/typebox"
import { E164_PATTERN, GROUP_JID_PATTERN } from "../lib/formats"
import { named, Nullable, NullableTimestamp, Timestamp } from "../lib/schema"
import { toIso, toIsoOrNull } from "../lib/time"
import type { InboundRow } from "../store/inbound"
import type { MessageRow } from "../store/messages"
import type { PhoneRow } from "../store/phones"
import type { EventType, MessageEventName, MessageStatus } from "../lib/vocabulary"
import type { MessageState } from "./message-status"
import { PollVoteData } from "./poll-rules"
import { MessageEditedData, MessageRevokedData } from "./inbound-events"
import { CallEndedData, CallReceivedData } from "./call-events"
import { MessageReactionData } from "./reaction-event"
import { GROUP_EVENT_ENTRIES } from "./group-events"
import { CHAT_EVENT_ENTRIES } from "./chat-events"
import { HISTORY_EVENT_ENTRIES } from "./history-events"
import { ConnectionStatusSchema, ErrorCodeSchema, FromUsername, InboundTypeSchema } from "./schemas"

/*
 * The webhook event catalogue: for each event, the schema of its `data` and the one function that
 * builds it. Every emitter calls the builder, the OpenAPI document publishes the schemas under
 * `webhooks`, and the admin API accepts exactly these names (docs/webhooks.md). */

const E164 = Type.String({ pattern: E164_PATTERN, examples: ["+14155550123"] })
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

export const MessageReceivedData = named(
  "MessageReceivedEventData",
  Type.Object(
    {
      messageId: Type.String({ examples: ["inmsg_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
      from: Type.String({ description: "The sender (E.164 when WhatsApp tells the number).", examples: ["+14155550199"] }),
      fromUsername: Type.Optional(FromUsername),
      to: E164,
      content: Type.String({ description: "The text, or the caption of a media message." }),
      type: InboundTypeSchema,
      isGroup: Type.Boolean(),
      groupId: Type.Union([Type.String({ examples: ["120363000000000001@g.us"] }), Type.Null()], {
        description: "The group JID: reply to the group by sending to it.",
      }),
      receivedAt: Timestamp,
    },
    { description: "A message a live phone received, or one the sandbox was made to receive (POST /v1/sandbox/inbound)." },
  ),
)

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

/** Each event's data schema and when it fires. */
export const EVENT_CATALOGUE = {
  "message.sent": { data: MessageSentData, firesWhen: "The message became sent: a sandbox send at once, a live send when WhatsApp's server acknowledged it." },
  "message.delivered": { data: MessageDeliveredData, firesWhen: "The delivery receipt arrived (in a group, the first participant's)." },
  "message.read": { data: MessageReadData, firesWhen: "The read receipt arrived (in a group, the first participant's). It may never come." },
  "message.failed": { data: MessageFailedData, firesWhen: "The message failed; errorCode says why." },
  "message.received": { data: MessageReceivedData, firesWhen: "A live phone received a message; a test key's phone, one POST /v1/sandbox/inbound simulated." },
  "message.reaction": { data: MessageReactionData, firesWhen: "Someone reacted to a message or took a reaction back, our own reactions through the API included." },
  "phone.connected": { data: PhoneConnectedData, firesWhen: "A live phone connected to WhatsApp." },
  "phone.disconnected": { data: PhoneDisconnectedData, firesWhen: "A live phone lost its connection or was logged out." },
  "message.edited": { data: MessageEditedData, firesWhen: "The sender edited an inbound message." },
  "message.revoked": { data: MessageRevokedData, firesWhen: "An inbound message was deleted for everyone." },
  "poll.vote": { data: PollVoteData, firesWhen: "Someone voted on a poll of ours or a contact's, changed their vote or withdrew it." },
  "call.received": { data: CallReceivedData, firesWhen: "Someone called a live phone, or POST /v1/sandbox/calls simulated a call (once per call)." },
  "call.ended": { data: CallEndedData, firesWhen: "An incoming call ended: missed, rejected or answered on another device (once per call)." },
  ...GROUP_EVENT_ENTRIES,
  ...CHAT_EVENT_ENTRIES,
  ...HISTORY_EVENT_ENTRIES,
} as const satisfies Record<EventType, { data: TSchema; firesWhen: string }>

/** Every event name, in catalogue order. */
export const EVENT_NAMES = Object.keys(EVENT_CATALOGUE) as EventType[]

/** The data of one event, as its schema types it. */
export type EventData<E extends EventType> = Static<(typeof EVENT_CATALOGUE)[E]["data"]>

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
export function buildMessageEventData<E extends MessageEventName>(message: MessageRow, state: MessageState, event: E): EventData<E> {
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
  return data as EventData<E>
}

/** The data of `message.received`. */
export function buildMessageReceivedData(row: InboundRow): EventData<"message.received"> {
  return {
    messageId: row.id,
    from: row.fromAddress,
    fromUsername: row.fromUsername,
    to: row.toNumber,
    content: row.content,
    type: row.type,
    isGroup: row.isGroup,
    groupId: row.groupId,
    receivedAt: toIso(row.receivedAtMs),
  }
}

/**
 * The data of `phone.connected` or `phone.disconnected` for a phone in its new state. A connected
 * phone has no reason and nothing to reconnect.
 */
type PhoneEventData = EventData<"phone.connected"> | EventData<"phone.disconnected">
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
