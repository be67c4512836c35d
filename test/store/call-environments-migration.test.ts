import { describe, expect, test } from "bun:test"
import { migrate, openDatabase } from "../../src/store/sqlite/db"
import { MIGRATIONS } from "../../src/store/sqlite/migrations"
import { claimCallReply, findCall } from "../../src/store/sqlite/calls"
import { TEST_EPOCH_MS } from "../helpers/test-clock"

const T = TEST_EPOCH_MS
const HOUR = 60 * 60 * 1000

describe("SQLite migration 27: calls and call replies by environment", () => {
  test("calls and reply windows recorded before are the live environment's, and a sandbox claim is kept apart from them", () => {
    const db = openDatabase(":memory:")
    migrate(db, T, MIGRATIONS.filter((m) => m.version < 27))
    db.run("INSERT INTO accounts (id, name, email, created_at_ms, updated_at_ms) VALUES ('acc_1', 'A', 'a@example.com', ?, ?)", [T, T])
    db.run("INSERT INTO phones (id, account_id, phone_number, display_name, created_at_ms, updated_at_ms) VALUES ('ph_1', 'acc_1', '+14155550123', 'P', ?, ?)", [T, T])
    db.run("INSERT INTO calls (phone_id, call_id, caller, caller_jid, is_video, is_group, offered_at_ms) VALUES ('ph_1', 'CALL1', '+14155550166', '14155550166@s.whatsapp.net', 0, 0, ?)", [T])
    db.run("INSERT INTO call_replies (phone_id, caller, replied_at_ms) VALUES ('ph_1', '+14155550166', ?)", [T])

    migrate(db, T)

    expect(findCall(db, "ph_1", "live", "CALL1")).toMatchObject({ env: "live", caller: "+14155550166" })
    expect(findCall(db, "ph_1", "test", "CALL1")).toBeNull()
    expect(claimCallReply(db, "ph_1", "live", "+14155550166", T + 1, HOUR)).toBe(false)
    expect(claimCallReply(db, "ph_1", "test", "+14155550166", T + 1, HOUR)).toBe(true)
    db.run("DELETE FROM phones WHERE id = 'ph_1'")
    expect(db.query("SELECT COUNT(*) AS n FROM call_replies").get()).toEqual({ n: 0 })
  })
})
