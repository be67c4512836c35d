import type { Environment, MessageStatus } from "../lib/vocabulary"

/** A location as a message carries it. */
export interface LocationExtra {
  latitude: number
  longitude: number
  name?: string
  address?: string
}

/** A contact card as a message carries it (the vCard is built from it when sent). */
export interface ContactExtra {
  name: string
  phoneNumbers: string[]
  organization?: string
  email?: string
}

/** A poll as a message carries it (docs/api.md § "Polls"). */
export interface PollExtra {
  question: string
  options: string[]
  multipleAnswers: boolean
}

/**
 * What a message carries besides its text and media (stored as JSON, null when none): whom it
 * mentions, a location or a contact card instead of text, and whether its one audio is a voice note.
 */
export interface MessageExtras {
  mentions?: string[]
  location?: LocationExtra
  contact?: ContactExtra
  voiceNote?: true
  poll?: PollExtra
}

/** An outbound message row. */
export interface MessageRow {
  id: string
  accountId: string
  env: Environment
  seq: number
  phoneId: string
  apiKeyId: string
  fromNumber: string
  toAddress: string
  isGroup: boolean
  content: string
  mediaUrls: string[]
  status: MessageStatus
  idempotencyKey: string | null
  requestFingerprint: string
  createdAtMs: number
  sentAtMs: number | null
  deliveredAtMs: number | null
  readAtMs: number | null
  failedAtMs: number | null
  errorCode: string | null
  errorMessage: string | null
  updatedAtMs: number
  /** When the sandbox marks it delivered; null once applied, or if it never will (docs/sandbox.md). */
  sandboxDeliveredDueMs: number | null
  /** When the sandbox marks it read; null once applied, or if it never will. */
  sandboxReadDueMs: number | null
  /** The msg_ or inmsg_ id this message quotes, or null. */
  replyTo: string | null
  extras: MessageExtras | null
  /** When its text or caption was last edited (MessageActionsQueries in src/store/store.ts); null if never. */
  editedAtMs: number | null
  /** When it was revoked for everyone; null if it was not. The row stays. */
  revokedAtMs: number | null
}

/** What a new message row needs: everything but its sequence; the sandbox due times default to none. */
export type NewMessageRow = Omit<MessageRow, "seq" | "sandboxDeliveredDueMs" | "sandboxReadDueMs" | "replyTo" | "extras" | "editedAtMs" | "revokedAtMs"> &
  Partial<Pick<MessageRow, "sandboxDeliveredDueMs" | "sandboxReadDueMs" | "replyTo" | "extras">>

/** The fields a status change may set (the sandbox's due times are cleared as their changes apply). */
export type MessageStatusPatch = Pick<
  MessageRow,
  | "status" | "sentAtMs" | "deliveredAtMs" | "readAtMs" | "failedAtMs" | "errorCode" | "errorMessage"
  | "sandboxDeliveredDueMs" | "sandboxReadDueMs"
>

/**
 * Thrown by `insertMessage` when another message of the account and environment already holds
 * the row's idempotency key. With one SQLite writer that cannot happen after the caller's
 * `findMessageByIdempotencyKey` in the same write; on PostgreSQL two nodes can both find nothing
 * and insert, and the unique index makes the later one lose. Either way nothing of the insert is
 * left behind and the write may go on: reading the key again finds the winner.
 */
export class IdempotencyKeyTaken extends Error {
  constructor(
    readonly accountId: string,
    readonly env: Environment,
    readonly idempotencyKey: string,
  ) {
    super("another message of the account and environment already holds this idempotency key")
    this.name = "IdempotencyKeyTaken"
  }
}

/** Filters of the message list. */
export interface MessageListQuery {
  accountId: string
  env: Environment
  phoneId?: string
  status?: MessageStatus
  limit: number
  offset: number
}

/** A keyset page of messages for the operator's list: newest first, below `beforeSeq`. */
export interface MessageWindowQuery {
  accountId: string
  env: Environment
  status?: MessageStatus
  phoneId?: string
  /** Exact recipient; searched only among the `recipientScanLimit` newest messages. */
  toAddress?: string
  recipientScanLimit: number
  /** Only messages with a smaller seq (the previous page's last); null for the newest. */
  beforeSeq: number | null
  limit: number
}
