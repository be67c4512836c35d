import type { Database } from "bun:sqlite"
import type { UnreadInbound } from "../message-actions"

/*
 * What acting on a message writes: the edit or revoke of one of our messages, and the read marks
 * of inbound messages (docs/api.md § "Act on a message"). The status counters do not move: an edit
 * or a revoke changes no status.
 */

const SET_EDITED = "UPDATE messages SET content = ?2, edited_at_ms = ?3, updated_at_ms = ?3 WHERE id = ?1"

/** Replaces a message's text (or caption) and records when. */
export function markMessageEdited(db: Database, messageId: string, content: string, editedAtMs: number): void {
  db.query(SET_EDITED).run(messageId, content, editedAtMs)
}

const SET_REVOKED = "UPDATE messages SET revoked_at_ms = ?2, updated_at_ms = ?2 WHERE id = ?1 AND revoked_at_ms IS NULL"

/** Records that a message was revoked for everyone; a second call keeps the first time. */
export function markMessageRevoked(db: Database, messageId: string, revokedAtMs: number): void {
  db.query(SET_REVOKED).run(messageId, revokedAtMs)
}

// Names the partial index's expression and WHERE term verbatim, so SQLite seeks inbound_unread_chat.
const SELECT_UNREAD_IN_CHAT = `SELECT id, wa_message_id AS waMessageId, from_address AS fromAddress, group_id AS groupId
  FROM inbound_messages WHERE phone_id = ?1 AND COALESCE(group_id, from_address) = ?2 AND seq <= ?3 AND read_at_ms IS NULL
  ORDER BY seq DESC LIMIT ?4`

/**
 * The unread inbound messages of one chat of a phone up to and including `throughSeq`, newest
 * first, at most `limit`. A chat is its group, or for a 1:1 chat the sender's address.
 */
export function listUnreadInChat(db: Database, phoneId: string, chat: string, throughSeq: number, limit: number): UnreadInbound[] {
  return db.query<UnreadInbound, [string, string, number, number]>(SELECT_UNREAD_IN_CHAT).all(phoneId, chat, throughSeq, limit)
}

const SET_READ = `UPDATE inbound_messages SET read_at_ms = ?4
  WHERE phone_id = ?1 AND COALESCE(group_id, from_address) = ?2 AND seq <= ?3 AND read_at_ms IS NULL`

/** Marks every unread inbound message of the chat up to `throughSeq` read; returns how many. */
export function markChatReadThrough(db: Database, phoneId: string, chat: string, throughSeq: number, readAtMs: number): number {
  return db.query(SET_READ).run(phoneId, chat, throughSeq, readAtMs).changes
}

const SELECT_READ_AT = "SELECT read_at_ms AS readAtMs FROM inbound_messages WHERE id = ?"

/** When a read receipt covered an inbound message, or null. */
export function inboundReadAtMs(db: Database, inboundId: string): number | null {
  return db.query<{ readAtMs: number | null }, [string]>(SELECT_READ_AT).get(inboundId)?.readAtMs ?? null
}
