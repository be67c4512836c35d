/*
 * wagate's shared vocabulary, declared once: every layer imports these lists and the types
 * derived from them, the HTTP layer builds its TypeBox unions from them, and the store types its
 * columns with them. Adding a status or an event starts here (and in the spec, docs/api.md).
 */

/** The two environments: a `sk_test_…` key works on the sandbox, a `sk_live_…` key on WhatsApp. */
export const ENVIRONMENTS = ["test", "live"] as const
export type Environment = (typeof ENVIRONMENTS)[number]

/** A message's lifecycle: pending → sent → delivered → read, or failed from any of them. */
export const MESSAGE_STATUSES = ["pending", "sent", "delivered", "read", "failed"] as const
export type MessageStatus = (typeof MESSAGE_STATUSES)[number]

/** How a phone is paired: by scanning a QR code, or by typing a code on the phone. */
export const PAIRING_METHODS = ["qr", "code"] as const
export type PairingMethod = (typeof PAIRING_METHODS)[number]

/**
 * The credentials whose failed attempts are throttled per client address, each with its own budget
 * (docs/api.md § "Rate limits"): `/v1` API keys, and the admin token (admin API, `/metrics`, the
 * dashboard's sign-in, and requests signed by another node).
 */
export const CREDENTIAL_KINDS = ["api_key", "admin_token"] as const
export type CredentialKind = (typeof CREDENTIAL_KINDS)[number]

/** A phone's connection to WhatsApp, as the API reports it. */
export const CONNECTION_STATUSES = ["unpaired", "pairing", "connecting", "connected", "disconnected", "logged_out"] as const
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number]

/** What an inbound message is. */
export const INBOUND_TYPES = ["text", "image", "video", "audio", "document", "sticker", "location", "contact", "poll", "other"] as const
export type InboundType = (typeof INBOUND_TYPES)[number]

/**
 * What an outbound message carries, additive to the seed's Message
 * (docs/api.md § "Replies, mentions, locations, contact cards and voice notes").
 */
export const MESSAGE_TYPES = ["text", "media", "location", "contact", "poll"] as const
export type MessageType = (typeof MESSAGE_TYPES)[number]

/** Why a message failed: the closed set of `errorCode` values (docs/api.md lists each). */
export const MESSAGE_ERROR_CODES = [
  "recipient_not_on_whatsapp",
  "group_not_allowed",
  "media_url_blocked",
  "media_fetch_failed",
  "media_too_large",
  "media_unsupported_type",
  "phone_disconnected",
  "account_restricted",
  "privacy_token_missing",
  "whatsapp_rejected",
  "send_timeout",
  "internal_error",
] as const
export type MessageErrorCode = (typeof MESSAGE_ERROR_CODES)[number]

/** How much of its chats' past a phone asks WhatsApp for when paired (docs/admin.md § "History on pairing"). */
export const HISTORY_SYNC_MODES = ["none", "recent", "full"] as const
export type HistorySync = (typeof HISTORY_SYNC_MODES)[number]

/** Every event wagate emits (spec, Events). */
export const EVENT_TYPES = [
  "message.sent",
  "message.delivered",
  "message.read",
  "message.failed",
  "message.received",
  "message.reaction",
  "phone.connected",
  "phone.disconnected",
  "message.edited",
  "message.revoked",
  "poll.vote",
  "call.received",
  "call.ended",
  // Groups (docs/webhooks.md § "Group events").
  "group.joined",
  "group.participants",
  "group.updated",
  // Chats (docs/webhooks.md § "Chat events").
  "chat.updated",
  // Messages the phone sent itself, and history sync (docs/webhooks.md § "Chat events").
  "message.echo",
  "history.synced",
] as const
export type EventType = (typeof EVENT_TYPES)[number]

/** Where a chat timeline's message came from: sent through the API, received live, sent by the phone itself, or brought by history sync (docs/api.md § "Chats and contacts"). */
export const TIMELINE_ORIGINS = ["api", "received", "phone", "history"] as const
export type TimelineOrigin = (typeof TIMELINE_ORIGINS)[number]

/** How an incoming call ended (`call.ended`): nobody answered, it was rejected (here, by the policy or on the phone), or another device took it. */
export const CALL_OUTCOMES = ["missed", "rejected", "answered_elsewhere"] as const
export type CallOutcome = (typeof CALL_OUTCOMES)[number]

/** What a `group.participants` event says happened to its participants (docs/webhooks.md § "Group events"). */
export const GROUP_CHANGE_ACTIONS = ["added", "removed", "left", "promoted", "demoted", "requested"] as const
export type GroupChangeAction = (typeof GROUP_CHANGE_ACTIONS)[number]

/** What a recipient's receipt says of a message (a read implies the delivery). */
export type ReceiptKind = Extract<MessageStatus, "delivered" | "read">

/** The events a message's status change emits (the status machine's output). */
export type MessageEventName = Extract<EventType, "message.sent" | "message.delivered" | "message.read" | "message.failed">

/** A webhook delivery's state. */
export const DELIVERY_STATUSES = ["pending", "succeeded", "failed"] as const
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number]

/** What a phone shows in a chat (`POST /v1/presence`): typing, recording a voice note, or neither. */
export const PRESENCE_STATES = ["typing", "recording", "paused"] as const
export type PresenceState = (typeof PRESENCE_STATES)[number]

/** What `POST /v1/groups/{groupId}/participants` does to the participants it names (docs/api.md § "Run groups: create, detail, settings, participants, invites, join, leave"). */
export const GROUP_PARTICIPANT_ACTIONS = ["add", "remove", "promote", "demote", "approve", "reject"] as const
export type GroupParticipantAction = (typeof GROUP_PARTICIPANT_ACTIONS)[number]

/** What became of one participant of a group create or participants action. */
export const GROUP_PARTICIPANT_RESULTS = ["added", "removed", "promoted", "demoted", "approved", "rejected", "invited", "not_on_whatsapp", "not_in_group", "failed"] as const
export type GroupParticipantResult = (typeof GROUP_PARTICIPANT_RESULTS)[number]

/** Who may add members to a group. */
export const GROUP_MEMBER_ADD_MODES = ["admins", "all"] as const
export type GroupMemberAddMode = (typeof GROUP_MEMBER_ADD_MODES)[number]

/** The disappearing-message timers WhatsApp offers for a group, in seconds (0: off; 24 hours, 7 days, 90 days). */
export const GROUP_EPHEMERAL_SECONDS = [0, 86_400, 604_800, 7_776_000] as const
export type GroupEphemeralSeconds = (typeof GROUP_EPHEMERAL_SECONDS)[number]

/** Every scope a key can carry, aliases included (docs/decisions.md § "API keys and scopes"); the CLI lists them in its help. */
export const ALL_SCOPES = [
  "messages:send",
  "messages:write",
  "messages:read",
  "groups:read",
  "phone_numbers:read",
  "phone-numbers:read",
  "account:read",
  "groups:write",
  "contacts:read",
  "contacts:write",
  "phone_numbers:write",
  // Event streams (docs/webhooks.md § "Streams").
  "events:read",
] as const
export type Scope = (typeof ALL_SCOPES)[number]

/** The canonical scopes, which together allow every endpoint; the sandbox key gets these. */
export const CANONICAL_SCOPES: readonly Scope[] = [
  "messages:send",
  "messages:read",
  "groups:read",
  "phone_numbers:read",
  "account:read",
  "groups:write",
  "contacts:read",
  "contacts:write",
  "phone_numbers:write",
  "events:read",
]

/** A page of rows and the total they are a page of. */
export interface Page<T> {
  rows: T[]
  total: number
  page: number
  limit: number
}
