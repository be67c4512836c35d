import type { SQL } from "bun"
import type { UnreadInbound } from "../message-actions"
import type { MessageActionsQueries } from "../store"
import { toNumberOrNull } from "./rows"

/*
 * What acting on a message writes, on PostgreSQL: the statements of src/store/sqlite/message-actions.ts.
 * The chat look-up and the read marks name the expression and WHERE term of the partial index
 * inbound_unread_chat, as on SQLite, so both seek it.
 */

const SET_EDITED = "UPDATE messages SET content = $2, edited_at_ms = $3, updated_at_ms = $3 WHERE id = $1"
const SET_REVOKED = "UPDATE messages SET revoked_at_ms = $2, updated_at_ms = $2 WHERE id = $1 AND revoked_at_ms IS NULL"
export const SELECT_UNREAD_IN_CHAT = `SELECT id, wa_message_id AS "waMessageId", from_address AS "fromAddress", group_id AS "groupId"
  FROM inbound_messages WHERE phone_id = $1 AND COALESCE(group_id, from_address) = $2 AND seq <= $3 AND read_at_ms IS NULL
  ORDER BY seq DESC LIMIT $4`
export const SET_READ = `UPDATE inbound_messages SET read_at_ms = $4
  WHERE phone_id = $1 AND COALESCE(group_id, from_address) = $2 AND seq <= $3 AND read_at_ms IS NULL`
const SELECT_READ_AT = `SELECT read_at_ms AS "readAtMs" FROM inbound_messages WHERE id = $1`

/** The message action queries of the seam on `sql` (the pool, or the write's transaction). */
export function pgMessageActionsQueries(sql: SQL): MessageActionsQueries {
  return {
    markMessageEdited: async (messageId, content, editedAtMs) => void (await sql.unsafe(SET_EDITED, [messageId, content, editedAtMs])),
    markMessageRevoked: async (messageId, revokedAtMs) => void (await sql.unsafe(SET_REVOKED, [messageId, revokedAtMs])),
    listUnreadInChat: async (phoneId, chat, throughSeq, limit) => [...((await sql.unsafe(SELECT_UNREAD_IN_CHAT, [phoneId, chat, throughSeq, limit])) as UnreadInbound[])],
    markChatReadThrough: async (phoneId, chat, throughSeq, readAtMs) => (await sql.unsafe(SET_READ, [phoneId, chat, throughSeq, readAtMs])).count as number,
    inboundReadAtMs: async (inboundId) => {
      const [r] = (await sql.unsafe(SELECT_READ_AT, [inboundId])) as { readAtMs: string | null }[]
      return r === undefined ? null : toNumberOrNull(r.readAtMs)
    },
  }
}
