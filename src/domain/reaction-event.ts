import { Type } from "@sinclair/typebox"
import { named, Timestamp } from "../lib/schema"
import { toIso } from "../lib/time"

/*
 * The `message.reaction` event (docs/webhooks.md § "Events"): someone reacted to one of our
 * messages or to an inbound message in a chat of ours. Reactions sent through
 * `POST /v1/messages/{messageId}/reaction` emit it too, with the sending phone as `from`, in both
 * environments, so a receiver can be built against the sandbox.
 */

export const MessageReactionData = named(
  "MessageReactionEventData",
  Type.Object(
    {
      messageId: Type.String({ description: "The message reacted to: `msg_…` (ours) or `inmsg_…` (received).", examples: ["msg_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
      from: Type.String({ description: "Who reacted: E.164 (our phone for our own reactions), or a `…@lid` JID when WhatsApp hides the number.", examples: ["+14155550123"] }),
      emoji: Type.String({ description: 'The emoji; `""` when the reaction was removed.', examples: ["👍"] }),
      removed: Type.Boolean({ description: "True when `from` took its reaction back." }),
      at: Timestamp,
    },
    { description: "Someone reacted to a message, or took a reaction back." },
  ),
)

/** The data of `message.reaction`. */
export function buildReactionData(reaction: { messageId: string; from: string; emoji: string; atMs: number }) {
  return { messageId: reaction.messageId, from: reaction.from, emoji: reaction.emoji, removed: reaction.emoji === "", at: toIso(reaction.atMs) }
}

/** The catalogue's entry for reactions (event-catalogue.ts composes every area's). */
export const REACTION_EVENT_ENTRIES = {
  "message.reaction": { data: MessageReactionData, firesWhen: "Someone reacted to a message or took a reaction back, our own reactions through the API included." },
} as const
