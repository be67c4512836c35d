import type { SQL } from "bun"
import type { ReplyRow } from "../replies"
import type { RepliesQueries } from "../store"
import { toNumber } from "./rows"

/* The messages that quote a message, on PostgreSQL: the statement of src/store/sqlite/replies.ts (both partial indexes serve it). */

export const REPLIES = `SELECT id, 'outbound' AS direction, from_number AS "fromAddress", content, created_at_ms AS "atMs"
  FROM messages WHERE reply_to = $1
UNION ALL
SELECT id, 'inbound' AS direction, from_address AS "fromAddress", content, received_at_ms AS "atMs"
  FROM inbound_messages WHERE reply_to_id = $1
ORDER BY "atMs" LIMIT $2`

/** The reply queries of the seam on `sql` (the pool, or the write's transaction). */
export function pgRepliesQueries(sql: SQL): RepliesQueries {
  return {
    listRepliesTo: async (targetId, limit) =>
      ((await sql.unsafe(REPLIES, [targetId, limit])) as (Omit<ReplyRow, "atMs"> & { atMs: string })[]).map((r) => ({
        id: r.id,
        direction: r.direction,
        fromAddress: r.fromAddress,
        content: r.content,
        atMs: toNumber(r.atMs),
      })),
  }
}
