import { decodeCursor, encodeCursor } from "../lib/cursor"
import { errors } from "../lib/errors"
import { toIso, toIsoOrNull } from "../lib/time"
import type { ChatCursor, ChatRow, ContactRow, TimelineCursor, TimelineEntry } from "../store/chats"
import { messageTypeOf } from "./send-kinds"

/*
 * How chats, timeline entries and contacts look to API clients (docs/api.md § "Chats and
 * contacts"), and the cursors of their pages. The HTTP models declare the same shapes in TypeBox.
 */

/** A chat as `GET /v1/chats` lists it. */
export function chatView(row: ChatRow) {
  const last = row.lastMessage
  return {
    id: row.chatId,
    name: row.name,
    isGroup: row.isGroup,
    unreadCount: row.unreadCount,
    lastMessage: last === null ? null : { id: last.id, direction: last.direction, type: last.type, preview: last.preview, at: toIso(last.atMs) },
    archived: row.archived,
    pinned: row.pinned,
    mutedUntil: toIsoOrNull(row.mutedUntilMs),
    labels: row.labels,
  }
}

export type Reaction = { targetId: string; fromAddress: string; emoji: string; atMs: number }

const MEDIA_NONE = null

/** One timeline entry, whichever table holds it, with its reactions. */
export function timelineView(entry: TimelineEntry, reactions: readonly Reaction[]) {
  const shown = reactions.filter((r) => r.targetId === entry.row.id).map((r) => ({ from: r.fromAddress, emoji: r.emoji, at: toIso(r.atMs) }))
  const common = { id: entry.row.id, reactions: shown, editedAt: toIsoOrNull(entry.row.editedAtMs), revokedAt: toIsoOrNull(entry.row.revokedAtMs), at: toIso(entry.atMs) }
  if (entry.kind === "api") {
    const m = entry.row
    const media = m.mediaUrls.length > 0 ? { mimetype: null, size: null, fileName: null, urls: m.mediaUrls } : MEDIA_NONE
    const extras = m.extras ?? {}
    return { ...common, direction: "out" as const, origin: "api" as const, from: m.fromNumber, type: messageTypeOf(m), content: m.content, media, location: extras.location ?? null, contact: extras.contact ?? null, poll: extras.poll ?? null, replyTo: m.replyTo, status: m.status }
  }
  const r = entry.row
  const media = r.media ? { mimetype: r.media.mimetype, size: r.media.sizeBytes, fileName: r.media.fileName, urls: [] } : MEDIA_NONE
  const base = { ...common, from: r.fromAddress, type: r.type, content: r.content, media, location: r.location, contact: r.contact, replyTo: r.replyToId }
  if (entry.kind === "received") return { ...base, direction: "in" as const, origin: "received" as const, poll: null, status: null }
  const c = entry.row
  return { ...base, direction: c.direction, origin: c.origin, poll: c.poll, status: c.direction === "out" ? c.status : null }
}

/** A contact as `GET /v1/contacts` lists it. */
export function contactView(row: ContactRow, blocked: boolean) {
  return { id: row.contactId, phoneNumber: row.phoneNumber, lid: row.lid, name: row.name, pushName: row.pushName, isBusiness: row.isBusiness, blocked }
}

const badCursor = (name: string) => errors.validation([`${name} is not a cursor this API gave; start again without it`])

/** Which keys a chat list's order puts before its activity (src/store/chat-list-sql.ts). */
export interface ChatOrder {
  pinnedFirst: boolean
  unreadFirst: boolean
}

/** The position of a chat-list cursor (400 when it is not one this API gave for this order). */
export function chatCursorOf(cursor: string | undefined, order: ChatOrder = { pinnedFirst: false, unreadFirst: false }): ChatCursor | null {
  if (cursor === undefined) return null
  const p = decodeCursor(cursor) as { a?: unknown; c?: unknown; p?: unknown; u?: unknown } | null
  if (!p || typeof p.a !== "number" || !Number.isSafeInteger(p.a) || typeof p.c !== "string") throw badCursor("cursor")
  // A cursor of another order would start the page at the wrong place: it is refused, not guessed.
  if (order.pinnedFirst !== (typeof p.p === "boolean") || order.unreadFirst !== (typeof p.u === "boolean")) throw badCursor("cursor")
  return { activityMs: p.a, chatId: p.c, ...(typeof p.p === "boolean" ? { pinned: p.p } : {}), ...(typeof p.u === "boolean" ? { unread: p.u } : {}) }
}

export const chatCursor = (row: ChatRow, order: ChatOrder = { pinnedFirst: false, unreadFirst: false }) =>
  encodeCursor({ a: row.lastActivityMs, c: row.chatId, ...(order.pinnedFirst ? { p: row.pinned } : {}), ...(order.unreadFirst ? { u: row.unreadCount > 0 } : {}) })

/** The position of a timeline cursor (`before`). */
export function timelineCursorOf(cursor: string | undefined): TimelineCursor | null {
  if (cursor === undefined) return null
  const p = decodeCursor(cursor) as { t?: unknown; i?: unknown } | null
  if (!p || typeof p.t !== "number" || !Number.isSafeInteger(p.t) || typeof p.i !== "string") throw badCursor("before")
  return { atMs: p.t, id: p.i }
}

export const timelineCursor = (entry: TimelineEntry) => encodeCursor({ t: entry.atMs, i: entry.row.id })

/** The position of a contacts cursor. */
export function contactCursorOf(cursor: string | undefined): string | null {
  if (cursor === undefined) return null
  const p = decodeCursor(cursor) as { k?: unknown } | null
  if (!p || typeof p.k !== "string") throw badCursor("cursor")
  return p.k
}

export const contactCursor = (row: ContactRow) => encodeCursor({ k: row.contactId })
