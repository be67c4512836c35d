import { Type } from "@sinclair/typebox"
import { CHAT_SEARCH_MAX } from "../../domain/chats"
import { E164_PATTERN, LID_JID_PATTERN } from "../../lib/formats"
import { named, Nullable, OneOf } from "../../lib/schema"
import { MESSAGE_STATUSES, TIMELINE_ORIGINS } from "../../lib/vocabulary"
import { Timestamp } from "./common"
import { InboundContact, InboundLocation } from "./inbound"
import { ENVIRONMENT_FROM_KEY, explainUnknownFields } from "../validation"

/* Chats, a chat's timeline and contacts (docs/api.md § "Chats and contacts"). */

const FromPhoneId = Type.String({
  minLength: 1,
  maxLength: 64,
  description: "The phone whose chats these are, as its E.164 number (recommended) or its phone id.",
  examples: ["+14155550123"],
  errorMessage: "fromPhoneId must be the phone's E.164 number or id",
})
const Limit = (max: number, fallback: number) =>
  Type.Optional(Type.Integer({ minimum: 1, maximum: max, default: fallback, errorMessage: `limit must be an integer between 1 and ${max}` }))
const Cursor = (name: string) =>
  Type.Optional(Type.String({ minLength: 1, maxLength: 512, description: "The `nextCursor` of the previous page, as given.", errorMessage: `${name} must be a cursor this API gave` }))
const Flag = (name: string, description: string) =>
  Type.Optional(Type.Union([Type.Literal("true"), Type.Literal("false")], { description, errorMessage: `${name} must be true or false` }))

export const ListChatsQuery = explainUnknownFields(
  Type.Object(
    {
      fromPhoneId: FromPhoneId,
      archived: Flag("archived", "true: only archived chats; false: only chats not archived."),
      unread: Flag("unread", "true: only chats with unread messages; false: only chats without."),
      order: Type.Optional(
        OneOf(["activity", "unread"] as const, {
          description: "`activity` (the default): newest activity first; `unread`: chats with unread messages first, then the others, each newest activity first. A cursor pages only the order it was given for.",
          errorMessage: "order must be activity or unread",
        }),
      ),
      search: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: CHAT_SEARCH_MAX,
          description: "Only chats whose name, contact's address-book or push name, number or LID contains this (case-insensitive for A–Z; `%` and `_` match themselves). Digits also match a number however it is spaced.",
          examples: ["giulia"],
          errorMessage: `search must be 1 to ${CHAT_SEARCH_MAX} characters`,
        }),
      ),
      limit: Limit(100, 50),
      cursor: Cursor("cursor"),
    },
    { additionalProperties: false },
  ),
  ENVIRONMENT_FROM_KEY,
)

export const ChatIdParams = Type.Object({
  chatId: Type.String({ description: "E.164 (URL-encode the `+` as `%2B`), a `…@lid` JID or a group JID.", examples: ["+14155550199"] }),
})

export const Chat = named(
  "Chat",
  Type.Object({
    id: Type.String({ description: "E.164, a `…@lid` JID, or a group JID.", examples: ["+14155550199"] }),
    name: Nullable(Type.String({ description: "The name the phone shows: set on the phone, the address book's or the contact's own; null when unknown." })),
    isGroup: Type.Boolean(),
    unreadCount: Type.Integer({ minimum: 0 }),
    lastMessage: Nullable(
      Type.Object({
        id: Type.String({ examples: ["inmsg_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
        direction: OneOf(["in", "out"] as const),
        type: Type.String({ examples: ["text"] }),
        preview: Type.String({ description: "The first 100 characters of its text or caption." }),
        at: Timestamp,
      }),
    ),
    archived: Type.Boolean(),
    pinned: Type.Boolean(),
    mutedUntil: Nullable(Timestamp),
    labels: Type.Array(Type.String(), { description: "Label ids (WhatsApp Business)." }),
  }),
)

export const ChatList = named("ChatList", Type.Object({ chats: Type.Array(Chat), nextCursor: Nullable(Type.String({ description: "Pass as `cursor` for the next page; null on the last." })) }))

/** GET /v1/chats/{chatId}/messages/{messageId}/media */
export const ChatMessageParams = Type.Object({
  chatId: ChatIdParams.properties.chatId,
  messageId: Type.String({ description: "A timeline entry's id: `wamsg_…` (the phone's own or history) or `inmsg_…`.", examples: ["wamsg_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
})
export const ChatMediaQuery = explainUnknownFields(Type.Object({ fromPhoneId: FromPhoneId }, { additionalProperties: false }), ENVIRONMENT_FROM_KEY)

export const TimelineQuery = explainUnknownFields(
  Type.Object({ fromPhoneId: FromPhoneId, before: Cursor("before"), limit: Limit(100, 50) }, { additionalProperties: false }),
  ENVIRONMENT_FROM_KEY,
)

const TimelineMedia = Type.Object(
  {
    mimetype: Nullable(Type.String({ examples: ["image/jpeg"] })),
    size: Nullable(Type.Integer({ minimum: 0 })),
    fileName: Nullable(Type.String()),
    urls: Type.Array(Type.String(), {
      description: "An API send's mediaUrls; empty for any other message, whose bytes GET /v1/chats/{chatId}/messages/{messageId}/media serves.",
    }),
  },
  { description: "The attachment, or null." },
)

const TimelinePoll = Type.Object({ question: Type.String(), options: Type.Array(Type.String()), multipleAnswers: Type.Boolean() })

export const TimelineMessage = named(
  "TimelineMessage",
  Type.Object({
    id: Type.String({ description: "`msg_…` (an API send), `inmsg_…` (received) or `wamsg_…` (sent by the phone, or from history).", examples: ["msg_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
    direction: OneOf(["in", "out"] as const),
    origin: OneOf(TIMELINE_ORIGINS, { description: "`api`: sent through this API; `received`: received live; `phone`: sent by the phone itself; `history`: from history sync." }),
    from: Type.String({ examples: ["+14155550199"] }),
    type: Type.String({ examples: ["text"] }),
    content: Type.String(),
    media: Nullable(TimelineMedia),
    location: Nullable(InboundLocation),
    contact: Nullable(InboundContact),
    poll: Nullable(TimelinePoll),
    replyTo: Nullable(Type.String({ description: "The message it quotes, when wagate knows it." })),
    reactions: Type.Array(Type.Object({ from: Type.String(), emoji: Type.String(), at: Timestamp })),
    status: Nullable(OneOf(MESSAGE_STATUSES, { description: "How far an outbound message got; null for received ones (and history without it)." })),
    editedAt: Nullable(Timestamp),
    revokedAt: Nullable(Timestamp),
    at: Timestamp,
  }),
)

export const Timeline = named("ChatTimeline", Type.Object({ messages: Type.Array(TimelineMessage), nextCursor: Nullable(Type.String({ description: "Pass as `before` for older messages; null at the start of the chat." })) }))

export const UpdateChatBody = explainUnknownFields(
  named(
    "UpdateChatRequest",
    Type.Object(
      {
        fromPhoneId: FromPhoneId,
        archived: Type.Optional(Type.Boolean({ errorMessage: "archived must be true or false" })),
        pinned: Type.Optional(Type.Boolean({ errorMessage: "pinned must be true or false" })),
        mutedUntil: Type.Optional(Nullable(Type.String({ format: "date-time", description: "Muted until then; null unmutes.", errorMessage: "mutedUntil must be an ISO 8601 date-time or null" }))),
        unread: Type.Optional(Type.Boolean({ description: "false marks the chat read, true unread.", errorMessage: "unread must be true or false" })),
      },
      { additionalProperties: false },
    ),
  ),
  ENVIRONMENT_FROM_KEY,
)

export const ListContactsQuery = explainUnknownFields(
  Type.Object(
    {
      fromPhoneId: FromPhoneId,
      search: Type.Optional(Type.String({ maxLength: 100, description: "Part of the number, LID, name or push name (case-insensitive).", errorMessage: "search must be at most 100 characters" })),
      limit: Limit(100, 50),
      cursor: Cursor("cursor"),
    },
    { additionalProperties: false },
  ),
  ENVIRONMENT_FROM_KEY,
)

export const Contact = named(
  "Contact",
  Type.Object({
    id: Type.String({ description: "E.164 when the number is known, else the `…@lid` JID.", examples: ["+14155550199"] }),
    phoneNumber: Nullable(Type.String({ pattern: E164_PATTERN })),
    lid: Nullable(Type.String({ pattern: LID_JID_PATTERN })),
    name: Nullable(Type.String({ description: "From the phone's address book." })),
    pushName: Nullable(Type.String({ description: "The name the contact gave itself." })),
    isBusiness: Type.Boolean(),
    blocked: Type.Boolean(),
  }),
)

export const ContactList = named("ContactList", Type.Object({ contacts: Type.Array(Contact), nextCursor: Nullable(Type.String()) }))

/** A query flag as a boolean, or undefined when absent. */
export const flagOf = (value: "true" | "false" | undefined): boolean | undefined => (value === undefined ? undefined : value === "true")

export const ListLabelsQuery = explainUnknownFields(Type.Object({ fromPhoneId: FromPhoneId }, { additionalProperties: false }), ENVIRONMENT_FROM_KEY)

export const Label = named(
  "Label",
  Type.Object({
    id: Type.String({ description: "WhatsApp's label id; a chat's `labels` name these.", examples: ["4"] }),
    name: Type.String({ examples: ["Paid"] }),
    color: Type.Integer({ minimum: 0, maximum: 19, description: "WhatsApp's label palette index." }),
  }),
)

export const LabelList = named("LabelList", Type.Object({ labels: Type.Array(Label) }))
