import type { SQL } from "bun"
import type { MessageStatus } from "../../lib/vocabulary"
import type { MessageListQuery, MessageRow, MessageWindowQuery } from "../messages"
import type { MessagesQueries } from "../store"
import { toNumber } from "./rows"
import { MESSAGE_COLUMNS, messageFromPg, type PgMessage } from "./message-rows"

/*
 * The message lists and counts on PostgreSQL. Totals are sums over the sharded counters, never
 * COUNT(*). seq is not dense here (src/store/postgres/schema-1.ts), so where SQLite seeks
 * "seq <= total - offset" for the unfiltered page, this pages with OFFSET over the same index
 * (account_id, env, seq): the rows are the same, but a deep page walks the rows before it. The
 * keyset windows (listMessagesWindow) seek at any depth on both.
 */

type Row = PgMessage

const TOTAL = `SELECT COALESCE(SUM(n), 0) AS n FROM message_counts WHERE account_id = $1 AND env = $2
  AND ($3::text IS NULL OR phone_id = $3) AND ($4::text IS NULL OR status = $4)`
const PAGE_ALL = `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE account_id = $1 AND env = $2 ORDER BY seq DESC LIMIT $3 OFFSET $4`
const PAGE_FILTERED = `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE account_id = $1 AND env = $2
  AND ($3::text IS NULL OR phone_id = $3) AND ($4::text IS NULL OR status = $4) ORDER BY seq DESC LIMIT $5 OFFSET $6`

async function listMessages(sql: SQL, q: MessageListQuery): Promise<{ rows: MessageRow[]; total: number }> {
  const phoneId = q.phoneId ?? null
  const status = q.status ?? null
  const [t] = (await sql.unsafe(TOTAL, [q.accountId, q.env, phoneId, status])) as { n: string }[]
  const total = toNumber(t!.n)
  if (q.offset >= total) return { rows: [], total }
  const rows: Row[] =
    phoneId === null && status === null
      ? await sql.unsafe(PAGE_ALL, [q.accountId, q.env, q.limit, q.offset])
      : await sql.unsafe(PAGE_FILTERED, [q.accountId, q.env, phoneId, status, q.limit, q.offset])
  return { rows: rows.map(messageFromPg), total }
}

const COUNT = "SELECT COALESCE(SUM(n), 0) AS n FROM message_counts WHERE account_id = $1 AND ($2::text IS NULL OR env = $2)"
const COUNT_SINCE = `SELECT status, COALESCE(SUM(n), 0) AS n FROM message_daily_counts
  WHERE account_id = $1 AND env = $2 AND day_ms >= $3 GROUP BY status`
// One row per day and status that has a counter, as SQLite's one row per key (zero sums included).
const DAILY = `SELECT day_ms AS "dayMs", status, SUM(n) AS n FROM message_daily_counts
  WHERE account_id = $1 AND env = $2 AND day_ms >= $3 GROUP BY day_ms, status ORDER BY day_ms, status`

// The lower bound of a recipient search: the seq just below the newest `recipientScanLimit`
// messages (SQLite subtracts from its dense last seq; here the index counts them off).
const RECIPIENT_FLOOR = `COALESCE((SELECT seq FROM messages WHERE account_id = $1 AND env = $2 ORDER BY seq DESC
  OFFSET $3 LIMIT 1), 0)`

async function listMessagesWindow(sql: SQL, q: MessageWindowQuery): Promise<MessageRow[]> {
  const params: unknown[] = [q.accountId, q.env]
  const where = ["account_id = $1", "env = $2"]
  const param = (value: unknown) => `$${params.push(value)}`
  if (q.toAddress !== undefined) {
    // $3 is the floor's OFFSET; a limit below 1 searches nothing, as SQLite's "seq > last seq" does.
    params.push(Math.max(0, q.recipientScanLimit))
    where.push(`seq > ${RECIPIENT_FLOOR}`, `to_address = ${param(q.toAddress)}`)
  }
  if (q.beforeSeq !== null) where.push(`seq < ${param(q.beforeSeq)}`)
  if (q.status !== undefined) where.push(`status = ${param(q.status)}`)
  if (q.phoneId !== undefined) where.push(`phone_id = ${param(q.phoneId)}`)
  const text = `SELECT ${MESSAGE_COLUMNS} FROM messages WHERE ${where.join(" AND ")} ORDER BY seq DESC LIMIT ${param(q.limit)}`
  return ((await sql.unsafe(text, params)) as Row[]).map(messageFromPg)
}

/** The list and count queries of MessagesQueries. */
export function pgMessageListQueries(sql: SQL): Pick<MessagesQueries, "listMessages" | "countMessages" | "countMessagesSince" | "listMessagesWindow" | "dailyMessageCounts"> {
  return {
    listMessages: (q) => listMessages(sql, q),
    countMessages: async (accountId, env) => toNumber(((await sql.unsafe(COUNT, [accountId, env ?? null])) as { n: string }[])[0]!.n),
    countMessagesSince: async (accountId, env, fromDayMs) => {
      const out: Record<MessageStatus, number> = { pending: 0, sent: 0, delivered: 0, read: 0, failed: 0 }
      for (const r of (await sql.unsafe(COUNT_SINCE, [accountId, env, fromDayMs])) as { status: MessageStatus; n: string }[]) out[r.status] = toNumber(r.n)
      return out
    },
    listMessagesWindow: (q) => listMessagesWindow(sql, q),
    dailyMessageCounts: async (accountId, env, fromDayMs) =>
      ((await sql.unsafe(DAILY, [accountId, env, fromDayMs])) as { dayMs: string; status: MessageStatus; n: string }[]).map((r) => ({
        dayMs: toNumber(r.dayMs),
        status: r.status,
        n: toNumber(r.n),
      })),
  }
}
