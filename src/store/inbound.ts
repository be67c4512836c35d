import type { Environment, InboundType } from "../lib/vocabulary"

/** An inbound attachment as stored: what the API shows, and the adapter's descriptor to fetch it. */
export interface StoredInboundMedia {
  mimetype: string
  sizeBytes: number
  fileName: string | null
  capKind: "image" | "video" | "audio" | "document"
  descriptor: string
}

/** A location as stored (the shape sends use). */
export interface StoredLocation {
  latitude: number
  longitude: number
  name?: string
  address?: string
}

/** A contact card as stored (the shape sends use). */
export interface StoredContact {
  name: string
  phoneNumbers: string[]
  organization?: string
  email?: string
}

/** An inbound message row. */
export interface InboundRow {
  id: string
  accountId: string
  env: Environment
  seq: number
  phoneId: string
  waMessageId: string
  fromAddress: string
  /** The sender's WhatsApp username when the stanza carried one (bounded, validated), else null. */
  fromUsername: string | null
  toNumber: string
  content: string
  type: InboundType
  isGroup: boolean
  groupId: string | null
  receivedAtMs: number
  createdAtMs: number
  /** The msg_ or inmsg_ id it quotes, when wagate knows that message. */
  replyToId: string | null
  media: StoredInboundMedia | null
  /** Set once WhatsApp no longer has the media (after one re-upload request). */
  mediaGoneAtMs: number | null
  location: StoredLocation | null
  contact: StoredContact | null
  editedAtMs: number | null
  revokedAtMs: number | null
}

/** Filters of the inbound list. */
export interface InboundListQuery {
  accountId: string
  env: Environment
  phoneId?: string
  limit: number
  offset: number
}
