import { describe, expect, test } from "bun:test"
import { messageTypeOf } from "../../src/domain/send-kinds"
import { migrate, openDatabase } from "../../src/store/sqlite/db"
import { MIGRATIONS } from "../../src/store/sqlite/migrations"
import { findMessage, insertMessage } from "../../src/store/sqlite/messages"
import { TEST_EPOCH_MS } from "../helpers/test-clock"

const T = TEST_EPOCH_MS

function insertOldMessage(db: ReturnType<typeof openDatabase>, id: string, seq: number, mediaUrls: string[]): void {
  db.query(
    `INSERT INTO messages (id, account_id, env, seq, phone_id, api_key_id, from_number, to_address, is_group, content, media_urls,
      status, request_fingerprint, created_at_ms, sent_at_ms, updated_at_ms)
     VALUES (?1, 'acc_1', 'test', ?2, 'ph_1', 'key_1', '+14155550123', '+14155550199', 0, 'x', ?3, 'sent', 'fp', ?4, ?4, ?4)`,
  ).run(id, seq, JSON.stringify(mediaUrls), T)
}

describe("migration 11: replies and message kinds", () => {
  test("messages written before it read as before: no reply, no extras, text or media by their URLs", () => {
    const db = openDatabase(":memory:")
    migrate(db, T, MIGRATIONS.filter((m) => m.version < 11))
    insertOldMessage(db, "msg_text", 1, [])
    insertOldMessage(db, "msg_media", 2, ["https://files.example.com/a.pdf"])
    migrate(db, T)
    const text = findMessage(db, "msg_text")!
    const media = findMessage(db, "msg_media")!
    expect(text).toMatchObject({ replyTo: null, extras: null })
    expect(media).toMatchObject({ replyTo: null, extras: null })
    expect([messageTypeOf(text), messageTypeOf(media)]).toEqual(["text", "media"])
  })

  test("a reply's target and a location round-trip through the row", () => {
    const db = openDatabase(":memory:")
    migrate(db, T)
    const location = { latitude: -33.8568, longitude: 151.2153, name: "Opera House" }
    insertMessage(db, {
      id: "msg_loc", accountId: "acc_1", env: "test", phoneId: "ph_1", apiKeyId: "key_1", fromNumber: "+14155550123", toAddress: "+14155550199",
      isGroup: false, content: "", mediaUrls: [], status: "sent", idempotencyKey: null, requestFingerprint: "fp", createdAtMs: T, updatedAtMs: T,
      sentAtMs: T, deliveredAtMs: null, readAtMs: null, failedAtMs: null, errorCode: null, errorMessage: null,
      replyTo: "inmsg_01jd0m3k7v5q9z8y6x4w2t0r1p", extras: { location },
    })
    const row = findMessage(db, "msg_loc")!
    expect(row).toMatchObject({ replyTo: "inmsg_01jd0m3k7v5q9z8y6x4w2t0r1p", extras: { location } })
    expect(messageTypeOf(row)).toBe("location")
  })
})
