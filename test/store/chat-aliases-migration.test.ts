import { SQL } from "bun"
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { migrate, openDatabase } from "../../src/store/sqlite/db"
import { MIGRATIONS } from "../../src/store/sqlite/migrations"
import { listChats } from "../../src/store/sqlite/chats"
import { migratePostgres, PG_MIGRATIONS } from "../../src/store/postgres/migrations"
import { pgChatsQueries } from "../../src/store/postgres/chats"
import { freshDatabase } from "../helpers/postgres"
import { TEST_EPOCH_MS } from "../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

/*
 * SQLite migration 31 and PostgreSQL migration 19 fold the LID chats of contacts whose number the
 * install already knows, and hide the text of chats' revoked last messages (src/store/chat-sql-aliases.ts).
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const T = TEST_EPOCH_MS
const ALICE = "+14155550166"
const ALICE_LID = "123456789012345@lid"
const BOB = "+14155550177"

/** An install before migration 31: Alice by LID then by number (two chats), her mapping known, Bob's last message revoked. */
const OLD_ROWS = [
  `INSERT INTO inbound_messages (id, account_id, env, seq, phone_id, wa_message_id, from_address, to_number, content, type, is_group, group_id,
    received_at_ms, created_at_ms, read_at_ms, revoked_at_ms) VALUES
    ('inmsg_1', 'acc_1', 'live', 1, 'ph_1', 'W1', '${ALICE_LID}', '+14155550123', 'by lid', 'text', FALSE, NULL, ${T + 1}, ${T + 1}, NULL, NULL),
    ('inmsg_2', 'acc_1', 'live', 2, 'ph_1', 'W2', '${ALICE}', '+14155550123', 'by number', 'text', FALSE, NULL, ${T + 2}, ${T + 2}, NULL, NULL),
    ('inmsg_3', 'acc_1', 'live', 3, 'ph_1', 'W3', '${BOB}', '+14155550123', 'secret', 'text', FALSE, NULL, ${T + 3}, ${T + 3}, NULL, NULL)`,
  `UPDATE inbound_messages SET revoked_at_ms = ${T + 4} WHERE id = 'inmsg_3'`,
  `UPDATE contacts SET phone_number = '${ALICE}' WHERE contact_id = '${ALICE_LID}'`,
]

const EXPECTED = [
  [BOB, 1, "inmsg_3", "revoked", ""],
  [ALICE, 2, "inmsg_2", "text", "by number"],
]

describe("migration 31 / 19 cleans what an install holds", () => {
  test("SQLite migration 31: one chat for Alice under her number, Bob's deleted text gone from his preview", () => {
    const db = openDatabase(":memory:")
    migrate(db, T, MIGRATIONS.filter((m) => m.version < 31))
    for (const row of OLD_ROWS) db.run(row)
    expect(listChats(db, { phoneId: "ph_1", env: "live", after: null, limit: 10 })).toHaveLength(3)
    migrate(db, T)
    const chats = listChats(db, { phoneId: "ph_1", env: "live", after: null, limit: 10 })
    expect(chats.map((c) => [c.chatId, c.unreadCount, c.lastMessage?.id, c.lastMessage?.type, c.lastMessage?.preview])).toEqual(EXPECTED)
  })

  describe("PostgreSQL", () => {
    let sql: SQL | null = null
    afterAll(async () => void (await sql?.close()))

    test("PostgreSQL migration 19: the same chats", async () => {
      sql = new SQL(await freshDatabase(), { max: 1 })
      await migratePostgres(sql, T, PG_MIGRATIONS.filter((m) => m.version < 19))
      for (const row of OLD_ROWS) await sql.unsafe(row)
      await migratePostgres(sql, T)
      const chats = await pgChatsQueries(sql).listChats({ phoneId: "ph_1", env: "live", after: null, limit: 10 })
      expect(chats.map((c) => [c.chatId, c.unreadCount, c.lastMessage?.id, c.lastMessage?.type, c.lastMessage?.preview])).toEqual(EXPECTED)
    })
  })
})
