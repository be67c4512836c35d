import type { ChatListQuery } from "./chats"
import { likePattern } from "./chat-rows"

/*
 * The chat list's WHERE and ORDER BY (src/store/chats.ts, ChatListQuery), written once for both
 * databases. The order is a key of up to four columns: pinned chats first and chats with unread
 * messages first when asked (the dashboard's inbox), then newest activity, then the chat id; a
 * cursor holds the last row's values of that key, and the next page starts strictly after it, so
 * pages neither skip nor repeat a chat however the key is made. The search runs in the query over
 * every chat of the phone, not over one page.
 */

/** The shortest run of digits that also matches a number written with spaces or dashes ("+49 151 …"). */
const MIN_SEARCH_DIGITS = 3

/** What differs between the dialects: how a parameter is written, with its type where PostgreSQL needs one. */
export interface ChatListDialect {
  param: (value: unknown, type?: "boolean" | "int8") => string
  /** SQLite's LIKE is case-insensitive for A–Z; PostgreSQL's LIKE is not, its ILIKE is. */
  like: "LIKE" | "ILIKE"
}

/** Where a search matches: the chat's own name, the contact's address-book and push names, the chat id, number and LID. */
const SEARCHED = ["c.name", "ct.name", "ct.push_name", "c.chat_id", "ct.phone_number", "ct.lid"]

function searchClause(search: string, d: ChatListDialect): string {
  const text = d.param(likePattern(search))
  const matches = SEARCHED.map((column) => `${column} ${d.like} ${text} ESCAPE '\\'`)
  const digits = search.replace(/[^0-9]/g, "")
  // "+49 151 2345" is the number +491512345…: its digits match the E.164 id and number.
  if (digits.length >= MIN_SEARCH_DIGITS && digits !== search) {
    const p = d.param(`%${digits}%`)
    matches.push(`c.chat_id LIKE ${p}`, `ct.phone_number LIKE ${p}`)
  }
  return `(${matches.join(" OR ")})`
}

/** The WHERE conditions and ORDER BY of one page of the chat list. */
export function chatListClauses(q: ChatListQuery, d: ChatListDialect): { where: string[]; orderBy: string } {
  const where = [`c.phone_id = ${d.param(q.phoneId)}`, `c.env = ${d.param(q.env)}`]
  if (q.archived !== undefined) where.push(`c.archived = ${d.param(q.archived, "boolean")}`)
  if (q.unread !== undefined) where.push(q.unread ? "c.unread_count > 0" : "c.unread_count = 0")
  if (q.search) where.push(searchClause(q.search, d))
  const key: string[] = []
  const after: string[] = []
  if (q.pinnedFirst) (key.push("c.pinned"), after.push(d.param(q.after?.pinned ?? false, "boolean")))
  if (q.unreadFirst) (key.push("(c.unread_count > 0)"), after.push(d.param(q.after?.unread ?? false, "boolean")))
  key.push("c.last_activity_ms", "c.chat_id")
  if (q.after) {
    after.push(d.param(q.after.activityMs, "int8"), d.param(q.after.chatId))
    where.push(`(${key.join(", ")}) < (${after.join(", ")})`)
  }
  return { where, orderBy: key.map((k) => `${k} DESC`).join(", ") }
}
