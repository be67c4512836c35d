import { describe, expect, test } from "bun:test"
import { migrate, openDatabase } from "../../src/store/sqlite/db"
import { MIGRATIONS } from "../../src/store/sqlite/migrations"
import { findMessage, nextSandboxDueMs } from "../../src/store/sqlite/messages"
import { TEST_EPOCH_MS } from "../helpers/test-clock"

const T = TEST_EPOCH_MS

function insertSentMessage(db: ReturnType<typeof openDatabase>, id: string, seq: number): void {
  db.query(
    `INSERT INTO messages (id, account_id, env, seq, phone_id, api_key_id, from_number, to_address, is_group, content, media_urls,
      status, request_fingerprint, created_at_ms, sent_at_ms, updated_at_ms)
     VALUES (?1, 'acc_1', 'test', ?2, 'ph_1', 'key_1', '+14155550123', '+14155550199', 0, 'x', '[]', 'sent', 'fp', ?3, ?3, ?3)`,
  ).run(id, seq, T)
}

describe("migration 9: sandbox due times move onto the message row", () => {
  test("pending transition rows become the message's due times, and the old table is gone", () => {
    const db = openDatabase(":memory:")
    migrate(db, T, MIGRATIONS.filter((m) => m.version < 9))
    insertSentMessage(db, "msg_both", 1)
    insertSentMessage(db, "msg_read_left", 2)
    insertSentMessage(db, "msg_none", 3)
    const transition = db.query("INSERT INTO sandbox_transitions (message_id, status, due_at_ms) VALUES (?, ?, ?)")
    transition.run("msg_both", "delivered", T + 1_000)
    transition.run("msg_both", "read", T + 3_000)
    transition.run("msg_read_left", "read", T + 2_000)

    migrate(db, T)

    expect(findMessage(db, "msg_both")).toMatchObject({ sandboxDeliveredDueMs: T + 1_000, sandboxReadDueMs: T + 3_000 })
    expect(findMessage(db, "msg_read_left")).toMatchObject({ sandboxDeliveredDueMs: null, sandboxReadDueMs: T + 2_000 })
    expect(findMessage(db, "msg_none")).toMatchObject({ sandboxDeliveredDueMs: null, sandboxReadDueMs: null })
    expect(nextSandboxDueMs(db)).toBe(T + 1_000)
    expect(db.query("SELECT name FROM sqlite_master WHERE name = 'sandbox_transitions'").get()).toBeNull()
  })

  test("the sweep's queries seek the due index instead of scanning messages", () => {
    const db = openDatabase(":memory:")
    migrate(db, T)
    const due = "COALESCE(sandbox_delivered_due_ms, sandbox_read_due_ms)"
    for (const sql of [
      `SELECT id FROM messages WHERE ${due} IS NOT NULL AND ${due} <= 1 ORDER BY ${due} LIMIT 10`,
      `SELECT ${due} FROM messages WHERE ${due} IS NOT NULL ORDER BY ${due} LIMIT 1`,
    ]) {
      const plan = db.query(`EXPLAIN QUERY PLAN ${sql}`).all().map((r: any) => r.detail as string)
      expect(plan.join(" ")).toContain("messages_sandbox_due")
    }
  })
})
