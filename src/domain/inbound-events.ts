import { Type } from "@sinclair/typebox"
import { named, Timestamp } from "../lib/schema"
import { toIso } from "../lib/time"
import type { InboundRow } from "../store/inbound"
import { E164, FromUsername, InboundTypeSchema } from "./schemas"

/*
 * The data of the events a contact's message, edit or deletion emits (docs/webhooks.md §
 * "Reactions, edits and deletions" for the last two). The event catalogue publishes these schemas; the builders below are the only way
 * the domain makes their data. A reaction's event is `message.reaction` (reaction-event.ts), the
 * same for a contact's reactions and for ours.
 */

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

const From = Type.String({ description: "Who acted (E.164 when WhatsApp tells the number, else the `…@lid` JID).", examples: ["+14155550199"] })

export const MessageEditedData = named(
  "MessageEditedEventData",
  Type.Object(
    {
      messageId: Type.String({ description: "The inbound message (`inmsg_…`).", examples: ["inmsg_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
      from: From,
      content: Type.String({ description: "The new text, or the new caption." }),
      editedAt: Timestamp,
    },
    { description: "The sender edited an inbound message; GET /v1/messages/inbound/{messageId} shows the new text." },
  ),
)

export const MessageRevokedData = named(
  "MessageRevokedEventData",
  Type.Object(
    {
      messageId: Type.String({ description: "The inbound message (`inmsg_…`).", examples: ["inmsg_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
      from: From,
      revokedAt: Timestamp,
    },
    { description: "An inbound message was deleted for everyone (by its sender, or in a group by an admin)." },
  ),
)

export function buildEditedData(a: { messageId: string; from: string; content: string; atMs: number }): typeof MessageEditedData.static {
  return { messageId: a.messageId, from: a.from, content: a.content, editedAt: toIso(a.atMs) }
}

export function buildRevokedData(a: { messageId: string; from: string; atMs: number }): typeof MessageRevokedData.static {
  return { messageId: a.messageId, from: a.from, revokedAt: toIso(a.atMs) }
}

/** The data of `message.received`. */
export function buildMessageReceivedData(row: InboundRow): typeof MessageReceivedData.static {
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

/** The catalogue's entries for what contacts send (event-catalogue.ts composes every area's). */
export const INBOUND_EVENT_ENTRIES = {
  "message.received": { data: MessageReceivedData, firesWhen: "A live phone received a message; a test key's phone, one POST /v1/sandbox/inbound simulated." },
  "message.edited": { data: MessageEditedData, firesWhen: "The sender edited an inbound message." },
  "message.revoked": { data: MessageRevokedData, firesWhen: "An inbound message was deleted for everyone." },
} as const
