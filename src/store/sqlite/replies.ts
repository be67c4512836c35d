import type { Database } from "bun:sqlite"
import type { ReplyRow } from "../replies"

const REPLIES = `SELECT id, 'outbound' AS direction, from_number AS fromAddress, content, created_at_ms AS atMs
  FROM messages WHERE reply_to = ?1
UNION ALL
SELECT id, 'inbound' AS direction, from_address AS fromAddress, content, received_at_ms AS atMs
  FROM inbound_messages WHERE reply_to_id = ?1
ORDER BY atMs LIMIT ?2`

/** The messages that quote `targetId`, oldest first, at most `limit` (both partial indexes serve it). */
export function listRepliesTo(db: Database, targetId: string, limit: number): ReplyRow[] {
  return db.query<ReplyRow, [string, number]>(REPLIES).all(targetId, limit)
}
