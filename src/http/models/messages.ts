import { Type } from "@sinclair/typebox"
import { E164_PATTERN, GROUP_JID_PATTERN, RECIPIENT_PATTERN } from "../../lib/formats"
import { toIso, toIsoOrNull } from "../../lib/time"
import type { MessageRow } from "../../store/messages"
import { CONTENT_MAX_CODE_POINTS, MEDIA_URLS_MAX } from "../../domain/messages"
import type { MessageErrorCode } from "../../lib/vocabulary"
import { ErrorCodeSchema, MessageStatusSchema, MessageTypeSchema } from "../../domain/schemas"
import {
  CONTACT_EMAIL_MAX,
  CONTACT_NAME_MAX,
  CONTACT_NUMBERS_MAX,
  CONTACT_ORGANIZATION_MAX,
  EMAIL_PATTERN,
  LOCATION_ADDRESS_MAX,
  LOCATION_NAME_MAX,
  MENTIONS_MAX,
  messageTypeOf,
} from "../../domain/send-kinds"
import { MEDIA_URL_MAX_LENGTH } from "../../lib/net-policy"
import { POLL_OPTION_MAX, POLL_OPTIONS_MAX, POLL_OPTIONS_MIN, POLL_QUESTION_MAX } from "../../domain/poll-rules"
import { named, Nullable, withDomainRules } from "../../lib/schema"
import { Environment } from "./admin"
import { NullableTimestamp, PageQueryFields, Timestamp } from "./common"
import { ENVIRONMENT_FROM_KEY, explainUnknownFields } from "../validation"

const IDEMPOTENCY_KEY_PATTERN = "^[\\x21-\\x7E]{1,64}$"
const TO_MESSAGE = "to must be an E.164 number (+ and 8–15 digits), a group JID or a …@lid JID"

const MESSAGE_ID_PATTERN = "^(msg|inmsg)_[0-9A-Za-z]{1,64}$"

/**
 * A location to send. The shape check wants two numbers; their ranges and the text lengths are
 * the domain's, with one message each (the published schema carries them). Not a named
 * component: the request schema stays self-contained, so a proxy can validate with it alone.
 */
export const LocationSchema = Type.Object(
  {
    latitude: withDomainRules(Type.Number({ description: "Degrees, -90 to 90.", examples: [52.520008] }), { minimum: -90, maximum: 90 }),
    longitude: withDomainRules(Type.Number({ description: "Degrees, -180 to 180.", examples: [13.404954] }), { minimum: -180, maximum: 180 }),
    name: Type.Optional(withDomainRules(Type.String({ description: "A place name shown above the map.", examples: ["Our shop"] }), { maxLength: LOCATION_NAME_MAX })),
    address: Type.Optional(
      withDomainRules(Type.String({ description: "The address shown under the name.", examples: ["Alexanderplatz 1, 10178 Berlin"] }), { maxLength: LOCATION_ADDRESS_MAX }),
    ),
  },
  {
    additionalProperties: false,
    description: "A location, sent instead of content/mediaUrls.",
    errorMessage: "location must be an object with numbers latitude and longitude and optional strings name and address",
  },
)

/** A contact card to send; wagate builds the vCard (RFC 6350 escaping). */
export const ContactCardSchema = Type.Object(
  {
    name: withDomainRules(Type.String({ description: "The name the card shows.", examples: ["Acme Support"] }), { pattern: "\\S", maxLength: CONTACT_NAME_MAX }),
    phoneNumbers: withDomainRules(Type.Array(Type.String(), { description: "E.164 numbers, 1 to 5; each becomes a TEL line with its WhatsApp id.", examples: [["+14155550123"]] }), {
      minItems: 1,
      maxItems: CONTACT_NUMBERS_MAX,
      items: { type: "string", pattern: E164_PATTERN },
    }),
    organization: Type.Optional(withDomainRules(Type.String({ examples: ["Acme, Inc."] }), { maxLength: CONTACT_ORGANIZATION_MAX })),
    email: Type.Optional(withDomainRules(Type.String({ examples: ["help@acme.example"] }), { maxLength: CONTACT_EMAIL_MAX, pattern: EMAIL_PATTERN })),
  },
  {
    additionalProperties: false,
    description: "A contact card, sent instead of content/mediaUrls.",
    errorMessage: "contact must be an object with a string name, an array phoneNumbers of E.164 numbers, and optional strings organization and email",
  },
)

/** A location as a message carries it when read back (the request's shape, without its input rules). */
const SentLocation = Type.Object({
  latitude: Type.Number({ examples: [52.520008] }),
  longitude: Type.Number({ examples: [13.404954] }),
  name: Type.Optional(Type.String({ examples: ["Our shop"] })),
  address: Type.Optional(Type.String({ examples: ["Alexanderplatz 1, 10178 Berlin"] })),
})

/** A contact card as a message carries it when read back. */
const SentContactCard = Type.Object({
  name: Type.String({ examples: ["Acme Support"] }),
  phoneNumbers: Type.Array(Type.String({ pattern: E164_PATTERN }), { examples: [["+14155550123"]] }),
  organization: Type.Optional(Type.String({ examples: ["Acme, Inc."] })),
  email: Type.Optional(Type.String({ examples: ["help@acme.example"] })),
})

/** A poll to send (docs/api.md § "Polls"); lengths, counts and distinct options are the domain's rules. */
export const PollSchema = Type.Object(
  {
    question: withDomainRules(Type.String({ description: "The question, 1 to 255 characters.", examples: ["Where shall we meet?"] }), {
      pattern: "\\S",
      maxLength: POLL_QUESTION_MAX,
    }),
    options: withDomainRules(Type.Array(Type.String(), { description: "2 to 12 distinct options, 1 to 100 characters each.", examples: [["Office", "Café"]] }), {
      minItems: POLL_OPTIONS_MIN,
      maxItems: POLL_OPTIONS_MAX,
      uniqueItems: true,
      items: { type: "string", pattern: "\\S", maxLength: POLL_OPTION_MAX },
    }),
    multipleAnswers: Type.Optional(Type.Boolean({ description: "true: a voter may choose several options. Default false." })),
  },
  {
    additionalProperties: false,
    description: "A poll, sent instead of content/mediaUrls.",
    errorMessage: "poll must be an object with a string question, an array options of strings and an optional boolean multipleAnswers",
  },
)

/** A poll as a message carries it when read back. */
const SentPoll = Type.Object({
  question: Type.String({ examples: ["Where shall we meet?"] }),
  options: Type.Array(Type.String(), { examples: [["Office", "Café"]] }),
  multipleAnswers: Type.Boolean(),
})

/** The message statuses, as the list filter accepts them. */
export const MessageStatus = MessageStatusSchema

const SendMessageFields = {
  fromPhoneId: Type.String({
    minLength: 1,
    maxLength: 64,
    description: "Sender phone as its E.164 number (recommended) or its phone id.",
    examples: ["+14155550123"],
    errorMessage: "fromPhoneId must be the sender phone's E.164 number or id",
  }),
  to: Type.String({
    pattern: RECIPIENT_PATTERN,
    description:
      "Recipient E.164 number, a group JID from GET /v1/groups, or a hidden number's `…@lid` JID as an inbound message's `from` names it (live keys reach that chat; test keys treat it as an ordinary recipient).",
    examples: ["+14155550199"],
    errorMessage: TO_MESSAGE,
  }),
  content: Type.Optional(
    withDomainRules(
      Type.String({
        description:
          "Text, or the caption of the first media. At most 4096 characters, counted as Unicode code points (an emoji counts once). Required when mediaUrls is empty.",
        examples: ["Your order has shipped"],
        errorMessage: "content must be a string of at most 4096 characters",
      }),
      { maxLength: CONTENT_MAX_CODE_POINTS },
    ),
  ),
  mediaUrls: Type.Optional(
    Type.Array(withDomainRules(Type.String(), { pattern: "^[Hh][Tt][Tt][Pp][Ss]://", maxLength: MEDIA_URL_MAX_LENGTH }), {
      maxItems: MEDIA_URLS_MAX,
      description:
        "Public https:// URLs (default port, no credentials, a public host), at most 10 of at most 2048 characters each. Required when content is empty.",
      examples: [["https://example.com/invoice.pdf"]],
      errorMessage: "mediaUrls must be an array of at most 10 URL strings",
    }),
  ),
  idempotencyKey: Type.Optional(
    Type.String({
      pattern: IDEMPOTENCY_KEY_PATTERN,
      description: "1–64 printable ASCII characters; reusing it replays the original message.",
      examples: ["order-1234-shipped"],
      errorMessage: "idempotencyKey must be 1–64 printable ASCII characters without spaces",
    }),
  ),
  replyTo: Type.Optional(
    Type.String({
      pattern: MESSAGE_ID_PATTERN,
      description: "A `msg_…` or `inmsg_…` id of this account and environment: the new message quotes it (404 when there is no such message).",
      examples: ["inmsg_01jd0m3k7v5q9z8y6x4w2t0r1p"],
      errorMessage: "replyTo must be a msg_… or inmsg_… message id",
    }),
  ),
  mentions: Type.Optional(
    withDomainRules(
      Type.Array(Type.String(), {
        description: "E.164 numbers mentioned in a group message, at most 50; content should name each as `@<digits>` (not enforced: WhatsApp shows what it gets).",
        examples: [["+14155550199"]],
        errorMessage: "mentions must be an array of E.164 numbers",
      }),
      { maxItems: MENTIONS_MAX, items: { type: "string", pattern: E164_PATTERN } },
    ),
  ),
  location: Type.Optional(LocationSchema),
  contact: Type.Optional(ContactCardSchema),
  poll: Type.Optional(PollSchema),
  voiceNote: Type.Optional(
    Type.Boolean({
      description: "true: the one audio of mediaUrls is sent as a voice note (push-to-talk). It must be Ogg/Opus; other audio fails with media_unsupported_type when downloaded.",
      examples: [true],
      errorMessage: "voiceNote must be true or false",
    }),
  ),
}

/**
 * Text with something other than white space, at least one media URL, a location or a contact.
 * That only one of them may carry the message is the domain's rule alone: client generators
 * (openapi-typescript) read a `not: {required}` as a requirement and would refuse valid sends. Wrapped in `allOf` so
 * that client generators combine it with the fields (an `anyOf` beside them becomes a union).
 */
const TEXT_OR_MEDIA = [
  { required: ["content"], properties: { content: { type: "string", pattern: "\\S" } } },
  { required: ["mediaUrls"], properties: { mediaUrls: { type: "array", items: { type: "string" }, minItems: 1 } } },
]
const CONTENT_OR_MEDIA = {
  allOf: [
    {
      anyOf: [
        ...TEXT_OR_MEDIA,
        { required: ["location"], properties: { location: {} } },
        { required: ["contact"], properties: { contact: {} } },
        { required: ["poll"], properties: { poll: {} } },
      ],
    },
  ],
}

/**
 * The send request. The shape check covers each field on its own; the domain checks what spans
 * fields or needs more than a schema, with its own messages (content length in code points,
 * https media URLs, content or media), and the published schema carries those rules too.
 */
export const SendMessageBody = explainUnknownFields(
  named("SendMessageRequest", withDomainRules(Type.Object(SendMessageFields, { additionalProperties: false }), CONTENT_OR_MEDIA)),
  ENVIRONMENT_FROM_KEY,
)
export type SendMessageBody = typeof SendMessageBody.static

const FROM_TO = { fromPhoneId: "+14155550123", to: "+14155550199" }

/** One example request per kind of message, published with the send operation. */
export const SEND_EXAMPLES = {
  text: { summary: "A text", value: { ...FROM_TO, content: "Your order has shipped", idempotencyKey: "order-1234-shipped" } },
  media: { summary: "A document with a caption", value: { ...FROM_TO, content: "Your invoice", mediaUrls: ["https://files.example.com/invoice.pdf"] } },
  reply: { summary: "A reply to a customer's message", value: { ...FROM_TO, content: "It ships today", replyTo: "inmsg_01jd0m3k7v5q9z8y6x4w2t0r1p" } },
  mentions: {
    summary: "A group message mentioning someone",
    value: { fromPhoneId: "+14155550123", to: "120363000000000001@g.us", content: "@14155550199 please check", mentions: ["+14155550199"] },
  },
  location: {
    summary: "A location",
    value: { ...FROM_TO, location: { latitude: 52.520008, longitude: 13.404954, name: "Our shop", address: "Alexanderplatz 1, 10178 Berlin" } },
  },
  contact: {
    summary: "A contact card",
    value: { ...FROM_TO, contact: { name: "Acme Support", phoneNumbers: ["+14155550123"], organization: "Acme, Inc.", email: "help@acme.example" } },
  },
  poll: { summary: "A poll", value: { ...FROM_TO, poll: { question: "Where shall we meet?", options: ["Office", "Café"], multipleAnswers: false } } },
  voiceNote: { summary: "A voice note (Ogg/Opus)", value: { ...FROM_TO, mediaUrls: ["https://files.example.com/note.ogg"], voiceNote: true } },
} as const

/** The headers a send reads: the idempotency key may come as a header, as Stripe takes it. */
export const SendMessageHeaders = Type.Object({
  "Idempotency-Key": Type.Optional(
    Type.String({
      pattern: IDEMPOTENCY_KEY_PATTERN,
      description: "The idempotencyKey, as a header instead of a body field; sent in both places, the two must be equal.",
      examples: ["order-1234-shipped"],
    }),
  ),
})

export const Message = named(
  "Message",
  Type.Object({
    id: Type.String({ examples: ["msg_01jd0m3k7v5q9z8y6x4w2t0r1p"] }),
    from: Type.String({ pattern: E164_PATTERN, description: "The sender phone's E.164 number.", examples: ["+14155550123"] }),
    to: Type.String({ pattern: RECIPIENT_PATTERN, description: "E.164 number, group JID, or a hidden number's `…@lid` JID.", examples: ["+14155550199"] }),
    isGroup: Type.Boolean(),
    groupId: Nullable(Type.String({ pattern: GROUP_JID_PATTERN, examples: ["120363000000000001@g.us"] })),
    content: Type.String(),
    mediaUrls: Type.Array(Type.String()),
    environment: Environment,
    status: MessageStatusSchema,
    createdAt: Timestamp,
    sentAt: NullableTimestamp,
    deliveredAt: NullableTimestamp,
    readAt: NullableTimestamp,
    failedAt: NullableTimestamp,
    errorCode: Type.Union([ErrorCodeSchema, Type.Null()], { description: "Set only when status is failed." }),
    errorMessage: Type.Union([Type.String(), Type.Null()], { description: "Set only when status is failed." }),
    type: Type.Optional(MessageTypeSchema),
    replyTo: Type.Optional(Nullable(Type.String({ pattern: MESSAGE_ID_PATTERN, description: "The msg_ or inmsg_ id this message quotes, or null.", examples: ["inmsg_01jd0m3k7v5q9z8y6x4w2t0r1p"] }))),
    // Beyond the seed (docs/api.md § "Act on a message"): optional, so a client of the seed's contract sees no change.
    editedAt: Type.Optional(Type.Union([Timestamp, Type.Null()], { description: "When the text or caption was last edited (PATCH); null if never." })),
    revokedAt: Type.Optional(Type.Union([Timestamp, Type.Null()], { description: "When it was deleted for everyone (DELETE); null if it was not. The message stays." })),
    // What the send carried besides content and mediaUrls, read back as sent (docs/api.md § "Reading back what was sent"); null when absent.
    location: Type.Optional(Nullable(SentLocation)),
    contact: Type.Optional(Nullable(SentContactCard)),
    mentions: Type.Optional(Nullable(Type.Array(Type.String({ pattern: E164_PATTERN }), { description: "The E.164 numbers the message mentions, as sent; null when it mentions no one." }))),
    voiceNote: Type.Optional(Nullable(Type.Boolean({ description: "true when the one audio was sent as a voice note; null otherwise." }))),
    poll: Type.Optional(Nullable(SentPoll)),
  }),
)
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
    // Only the status machine writes a code, and only one of the closed set.
    errorCode: row.errorCode as MessageErrorCode | null,
    errorMessage: row.errorMessage,
    type: messageTypeOf(row),
    replyTo: row.replyTo,
    editedAt: toIsoOrNull(row.editedAtMs),
    revokedAt: toIsoOrNull(row.revokedAtMs),
    location: row.extras?.location ?? null,
    contact: row.extras?.contact ?? null,
    mentions: row.extras?.mentions ?? null,
    voiceNote: row.extras?.voiceNote ?? null,
    poll: row.extras?.poll ?? null,
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
