import { Type } from "@sinclair/typebox"
import { named, Timestamp } from "../lib/schema"
import { toIso } from "../lib/time"

/*
 * The data of the events a contact's edit or deletion emits (docs/webhooks.md §
 * "Reactions, edits and deletions"). The event catalogue publishes these schemas; the builders below are the only way
 * the domain makes their data. A reaction's event is `message.reaction` (reaction-event.ts), the
 * same for a contact's reactions and for ours.
 */

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
