import { SQL } from "bun"
import { afterAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { migrate, openDatabase } from "../../src/store/sqlite/db"
import { MIGRATIONS } from "../../src/store/sqlite/migrations"
import { listChats, listContacts } from "../../src/store/sqlite/chats"
import { migratePostgres, PG_MIGRATIONS } from "../../src/store/postgres/migrations"
import { pgChatsQueries } from "../../src/store/postgres/chats"
import { freshDatabase } from "../helpers/postgres"
import { TEST_EPOCH_MS } from "../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

/*
 * SQLite migration 28 and PostgreSQL migration 16 give an upgraded install its chats and contacts
 * from the sends and inbound messages it already holds (docs/api.md § "Chats and contacts").
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const T = TEST_EPOCH_MS
const ALICE = "+14155550166"
const GROUP = "120363000000000001@g.us"

/** Rows written by an install before chats existed: two sends, three inbound (one read, one in a group). */
const OLD_ROWS = [
  `INSERT INTO messages (id, account_id, env, seq, phone_id, api_key_id, from_number, to_address, is_group, content, media_urls, status,
    request_fingerprint, created_at_ms, updated_at_ms, extras) VALUES
    ('msg_1', 'acc_1', 'live', 1, 'ph_1', 'key_1', '+14155550123', '${ALICE}', FALSE, 'hi', '[]', 'sent', 'fp', ${T + 1}, ${T + 1}, NULL),
    ('msg_2', 'acc_1', 'live', 2, 'ph_1', 'key_1', '+14155550123', '${ALICE}', FALSE, '', '[]', 'sent', 'fp', ${T + 5}, ${T + 5}, '{"poll":{"question":"q","options":["a","b"],"multipleAnswers":false}}')`,
  `INSERT INTO inbound_messages (id, account_id, env, seq, phone_id, wa_message_id, from_address, to_number, content, type, is_group, group_id,
    received_at_ms, created_at_ms, read_at_ms) VALUES
    ('inmsg_1', 'acc_1', 'live', 1, 'ph_1', 'W1', '${ALICE}', '+14155550123', 'yo', 'text', FALSE, NULL, ${T + 2}, ${T + 2}, ${T + 3}),
    ('inmsg_2', 'acc_1', 'live', 2, 'ph_1', 'W2', '${ALICE}', '+14155550123', 'there?', 'text', FALSE, NULL, ${T + 4}, ${T + 4}, NULL),
    ('inmsg_3', 'acc_1', 'live', 3, 'ph_1', 'W3', '+14155550177', '+14155550123', 'all', 'text', TRUE, '${GROUP}', ${T + 9}, ${T + 9}, NULL)`,
]

const EXPECTED = [
  [GROUP, true, 1, "inmsg_3", "in", "text", "all"],
  [ALICE, false, 1, "msg_2", "out", "poll", ""],
]

describe("the chats migration backfills what an install holds", () => {
  test("SQLite migration 28: one chat per conversation with its newest message and unread inbound count, and senders as contacts", () => {
    const db = openDatabase(":memory:")
    migrate(db, T, MIGRATIONS.filter((m) => m.version < 28))
    for (const row of OLD_ROWS) db.run(row)
    migrate(db, T)
    const chats = listChats(db, { phoneId: "ph_1", env: "live", after: null, limit: 10 })
    expect(chats.map((c) => [c.chatId, c.isGroup, c.unreadCount, c.lastMessage?.id, c.lastMessage?.direction, c.lastMessage?.type, c.lastMessage?.preview])).toEqual(EXPECTED)
    expect(listContacts(db, { phoneId: "ph_1", env: "live", afterContactId: null, limit: 10 }).map((c) => c.contactId)).toEqual([ALICE, "+14155550177"])
  })

  describe("PostgreSQL", () => {
    let sql: SQL | null = null
    afterAll(async () => void (await sql?.close()))

    test("PostgreSQL migration 16: the same chats and contacts", async () => {
      sql = new SQL(await freshDatabase(), { max: 1 })
      await migratePostgres(sql, T, PG_MIGRATIONS.filter((m) => m.version < 16))
      for (const row of OLD_ROWS) await sql.unsafe(row)
      await migratePostgres(sql, T)
      const q = pgChatsQueries(sql)
      const chats = await q.listChats({ phoneId: "ph_1", env: "live", after: null, limit: 10 })
      expect(chats.map((c) => [c.chatId, c.isGroup, c.unreadCount, c.lastMessage?.id, c.lastMessage?.direction, c.lastMessage?.type, c.lastMessage?.preview])).toEqual(EXPECTED)
      expect((await q.listContacts({ phoneId: "ph_1", env: "live", afterContactId: null, limit: 10 })).map((c) => c.contactId)).toEqual([ALICE, "+14155550177"])
    })
  })
})
