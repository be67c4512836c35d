import type { Environment, InboundType, MessageStatus } from "../lib/vocabulary"
import type { StoredContact, StoredInboundMedia, StoredLocation } from "./inbound"
import type { InboundRow } from "./inbound"
import type { MessageRow, PollExtra } from "./messages"

/*
 * Chats, the merged timeline and contacts (docs/api.md § "Chats and contacts"). A chat is kept per
 * phone, environment and chat id (E.164, `…@lid` or `…@g.us`): test keys see what the sandbox
 * recorded, live keys what WhatsApp did. The `chats` row is maintained by the database itself
 * (triggers of SQLite migration 28 and PostgreSQL migration 16) whenever an API send, an inbound
 * message or an echo/history message is inserted, so no insert path can forget it and the hot
 * send path pays no extra round trip. What the phone itself sent (`origin: "phone"`) and what
 * history sync brought (`origin: "history"`) live in `chat_messages`, deduplicated per phone on
 * the WhatsApp id (also against the API's own parts and the inbound rows).
 */

/** The newest message of a chat, as its list row shows it. */
export interface ChatLastMessage {
  id: string
  direction: "in" | "out"
  type: string
  /** The first 100 characters of its text or caption. */
  preview: string
  atMs: number
}

/** One chat of a phone. */
export interface ChatRow {
  phoneId: string
  env: Environment
  chatId: string
  /** A name set from app state (or a group subject), else the contact's address-book or push name; null when none is known. */
  name: string | null
  isGroup: boolean
  unreadCount: number
  /** When the newest message (or, for a chat with none, the chat) was recorded: the list's order. */
  lastActivityMs: number
  lastMessage: ChatLastMessage | null
  archived: boolean
  pinned: boolean
  mutedUntilMs: number | null
  labels: string[]
  updatedAtMs: number
}

/** Where a page of the chat list starts: after the chat with these values of the list's order (newest first). */
export interface ChatCursor {
  activityMs: number
  chatId: string
  /** The last chat's pinned flag, when the list puts pinned chats first. */
  pinned?: boolean
  /** Whether the last chat had unread messages, when the list puts those first. */
  unread?: boolean
}

export interface ChatListQuery {
  phoneId: string
  env: Environment
  archived?: boolean
  /** true: only chats with unread messages; false: only read ones. */
  unread?: boolean
  /** Pinned chats before the others, as WhatsApp's own list shows them. */
  pinnedFirst?: boolean
  /** Chats with unread messages before the others (the dashboard's "Unread first"); each part newest activity first. */
  unreadFirst?: boolean
  /**
   * A substring of the chat's name, the contact's address-book or push name, the chat id, number
   * or LID (case-insensitive for A–Z; `%`, `_` and `\` match themselves). A number written with
   * spaces or dashes also matches by its digits.
   */
  search?: string
  after: ChatCursor | null
  limit: number
}

/**
 * A change to a chat, from the API (PATCH) or from the phone's app state. Only the fields named
 * change; `unread: false` clears the count, `unread: true` marks the chat unread (at least one).
 */
export interface ChatChange {
  archived?: boolean
  pinned?: boolean
  mutedUntilMs?: number | null
  unread?: boolean
  labels?: string[]
  name?: string | null
}

/** A message of `chat_messages`: what the phone sent itself (echo) or what history sync brought. */
export interface ChatMessageRow {
  /** wagate's id for it (`wamsg_…`). */
  id: string
  accountId: string
  env: Environment
  phoneId: string
  waMessageId: string
  chatId: string
  origin: "phone" | "history"
  direction: "in" | "out"
  /** The sender: the phone's own number for `out`, the contact (E.164 or `…@lid`) for `in`. */
  fromAddress: string
  type: InboundType
  content: string
  media: StoredInboundMedia | null
  location: StoredLocation | null
  contact: StoredContact | null
  poll: PollExtra | null
  /** The msg_/inmsg_/wamsg_ id it quotes when wagate knows it. */
  replyToId: string | null
  /** For `out`: how far WhatsApp says it got; null when unknown. */
  status: MessageStatus | null
  editedAtMs: number | null
  revokedAtMs: number | null
  /** When it was sent (WhatsApp's timestamp). */
  atMs: number
  createdAtMs: number
}

/** Where a timeline page starts: strictly older than this message (newest first). */
export interface TimelineCursor {
  atMs: number
  id: string
}

export interface TimelineQuery {
  phoneId: string
  env: Environment
  chatId: string
  before: TimelineCursor | null
  limit: number
}

/** One entry of a chat's merged timeline, from whichever table holds it. */
export type TimelineEntry =
  | { kind: "api"; atMs: number; row: MessageRow }
  | { kind: "received"; atMs: number; row: InboundRow }
  | { kind: "chat"; atMs: number; row: ChatMessageRow }

/** One contact of a phone. */
export interface ContactRow {
  phoneId: string
  env: Environment
  /** E.164 when the number is known, else the `…@lid` JID. */
  contactId: string
  phoneNumber: string | null
  lid: string | null
  /** From the phone's address book (app state). */
  name: string | null
  pushName: string | null
  isBusiness: boolean
  blocked: boolean
  updatedAtMs: number
}

/** What an adapter learned of a contact; null or absent fields keep what is stored. */
export type ContactUpsert = Pick<ContactRow, "phoneId" | "env" | "contactId" | "updatedAtMs"> &
  Partial<Pick<ContactRow, "phoneNumber" | "lid" | "name" | "pushName" | "isBusiness" | "blocked">>

export interface ContactListQuery {
  phoneId: string
  env: Environment
  /** Case-insensitive substring of the id, number, LID, name or push name. */
  search?: string
  afterContactId: string | null
  limit: number
}

/** src/store/sqlite/chats.ts and src/store/postgres/chats.ts */
export interface ChatsQueries {
  /** One page of a phone's chats, newest activity first (pinned or unread ones first when asked). */
  listChats(q: ChatListQuery): Promise<ChatRow[]>
  /** One chat, or null when the phone has none under this id in this environment. */
  findChat(phoneId: string, env: Environment, chatId: string): Promise<ChatRow | null>
  /**
   * Applies a change (PATCH, or the phone's app state) and returns the chat; a chat not known
   * yet is created with `atMs` as its activity (app state can name a chat before any message).
   */
  applyChatChange(phoneId: string, env: Environment, chatId: string, change: ChatChange, atMs: number): Promise<ChatRow>
  /** Records a message the phone sent itself; null (nothing written) when its WhatsApp id is already recorded for the phone. */
  recordEchoMessage(row: ChatMessageRow): Promise<ChatMessageRow | null>
  /**
   * Records a chunk of history in one statement per 200 rows; rows whose WhatsApp id the phone
   * already has (in any table) are skipped. Returns how many were inserted. Run it in one write.
   */
  recordHistoryBatch(rows: readonly ChatMessageRow[]): Promise<number>
  /** A page of a chat's timeline, newest first: API sends, inbound and chat_messages merged. */
  listTimeline(q: TimelineQuery): Promise<TimelineEntry[]>
  /** The reactions to these messages (any kind of id), oldest first. */
  listReactionsFor(targetIds: readonly string[]): Promise<{ targetId: string; fromAddress: string; emoji: string; atMs: number }[]>
  /** Merges what an adapter learned of contacts (app state's address book, push names, business flags). */
  upsertContacts(rows: readonly ContactUpsert[]): Promise<void>
  /** One page of a phone's contacts, by id. */
  listContacts(q: ContactListQuery): Promise<ContactRow[]>
  /**
   * Deletes at most `limit` echo/history messages sent (WhatsApp's timestamp) before `cutoffMs`,
   * oldest first; returns how many. Their chats keep their rows (WAGATE_HISTORY_RETENTION_DAYS).
   */
  pruneChatMessages(cutoffMs: number, limit: number): Promise<number>
  /** One echo/history message by wagate's id (`wamsg_…`), or null. */
  findChatMessage(id: string): Promise<ChatMessageRow | null>
}
