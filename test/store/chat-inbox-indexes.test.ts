import { SQL } from "bun"
import { afterAll, expect, setDefaultTimeout, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { chatListClauses } from "../../src/store/chat-list-sql"
import type { ChatListQuery } from "../../src/store/chats"
import { migrate, openDatabase } from "../../src/store/sqlite/db"
import { TEST_EPOCH_MS } from "../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { freshMigratedDatabase } from "./contract/stores"

/*
 * The inbox's orders are read through an index (SQLite migration 32, PostgreSQL migration 20,
 * src/store/chat-inbox-indexes.ts): a page of the dashboard's list, pinned first and unread first
 * or not, does not sort all of a phone's chats. The plan is asked of each database for the very
 * statement the store runs.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const INBOX: ChatListQuery[] = [
  { phoneId: "ph_1", env: "live", archived: false, pinnedFirst: true, after: null, limit: 51 },
  { phoneId: "ph_1", env: "live", archived: false, pinnedFirst: true, unreadFirst: true, after: null, limit: 51 },
  { phoneId: "ph_1", env: "live", archived: false, pinnedFirst: true, unreadFirst: true, after: { activityMs: 5, chatId: "+1", pinned: false, unread: true }, limit: 51 },
]

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

test("on SQLite the inbox's pages are read in index order, with no sort of the phone's chats", () => {
  const dir = mkdtempSync(join(tmpdir(), "wagate-inbox-index-"))
  dirs.push(dir)
  const db = openDatabase(join(dir, "wagate.db"))
  migrate(db, TEST_EPOCH_MS)
  for (const q of INBOX) {
    const values: (string | number)[] = []
    const param = (v: unknown) => `?${values.push(typeof v === "boolean" ? (v ? 1 : 0) : (v as string | number))}`
    const { where, orderBy } = chatListClauses(q, { param, like: "LIKE" })
    const plan = db.query<{ detail: string }, (string | number)[]>(`EXPLAIN QUERY PLAN SELECT c.chat_id FROM chats c WHERE ${where.join(" AND ")} ORDER BY ${orderBy} LIMIT ${param(q.limit)}`).all(...values)
    const details = plan.map((p) => p.detail).join(" | ")
    expect(details).toMatch(/USING (COVERING )?INDEX chats_inbox/)
    expect(details).not.toContain("TEMP B-TREE")
  }
  db.close()
})

test("on PostgreSQL the inbox's pages are read through the inbox indexes, not sorted", async () => {
  const sql = new SQL(await freshMigratedDatabase(), { max: 1 })
  try {
    // An empty table is cheaper to scan than to index; the planner is told not to, to show what it can use.
    await sql.unsafe("SET enable_seqscan = off")
    await sql.unsafe("SET enable_sort = off")
    for (const q of INBOX) {
      const params: unknown[] = []
      const param = (v: unknown, type?: string) => `$${params.push(v)}${type ? `::${type}` : ""}`
      const { where, orderBy } = chatListClauses(q, { param, like: "ILIKE" })
      const rows = (await sql.unsafe(`EXPLAIN SELECT c.chat_id FROM chats c WHERE ${where.join(" AND ")} ORDER BY ${orderBy} LIMIT ${param(q.limit)}`, params)) as { "QUERY PLAN": string }[]
      const plan = rows.map((r) => r["QUERY PLAN"]).join("\n")
      expect(plan).toMatch(/Index (Only )?Scan( Backward)? using chats_inbox/)
      expect(plan).not.toMatch(/^\s*(->\s*)?Sort\b/m)
    }
  } finally {
    await sql.close()
  }
})
