import { describe, expect, test } from "bun:test"
import { insertInbound } from "../../src/store/sqlite/inbound"
import { type InboundRow } from "../../src/store/inbound"
import { inboundReadAtMs, listUnreadInChat, markChatReadThrough } from "../../src/store/sqlite/message-actions"
import { migrate, openDatabase } from "../../src/store/sqlite/db"

/* Read marks of inbound messages (migration 12), on real SQLite with the real migrations. */

function inbound(n: number, from: string, groupId: string | null = null): Omit<InboundRow, "seq"> {
  return {
    id: `inmsg_${n}`,
    accountId: "acc_1",
    env: "live",
    phoneId: "ph_1",
    waMessageId: `WA${n}`,
    fromAddress: from,
    fromUsername: null,
    toNumber: "+14155550123",
    content: `m${n}`,
    type: "text",
    isGroup: groupId !== null,
    groupId,
    receivedAtMs: n,
    createdAtMs: n,
    replyToId: null,
    media: null,
    mediaGoneAtMs: null,
    location: null,
    contact: null,
    editedAtMs: null,
    revokedAtMs: null,
  }
}

function seeded() {
  const db = openDatabase(":memory:")
  migrate(db, 0)
  const rows = [
    inbound(1, "+14155550166"),
    inbound(2, "+14155550177"),
    inbound(3, "+14155550166", "120363111111111111@g.us"),
    inbound(4, "+14155550166"),
    inbound(5, "+14155550166"),
  ].map((row) => insertInbound(db, row)!)
  return { db, rows }
}

describe("unread inbound messages by chat", () => {
  test("a 1:1 chat is its sender's, a group chat its group's; newest first, up to the message named, at most `limit`", () => {
    const { db, rows } = seeded()
    expect(listUnreadInChat(db, "ph_1", "+14155550166", rows[3]!.seq, 10).map((m) => m.id)).toEqual(["inmsg_4", "inmsg_1"])
    expect(listUnreadInChat(db, "ph_1", "+14155550166", rows[4]!.seq, 2).map((m) => m.id)).toEqual(["inmsg_5", "inmsg_4"])
    expect(listUnreadInChat(db, "ph_1", "120363111111111111@g.us", rows[4]!.seq, 10).map((m) => m.id)).toEqual(["inmsg_3"])
  })

  test("marking read through a message covers the earlier ones of the chat only, once", () => {
    const { db, rows } = seeded()
    expect(markChatReadThrough(db, "ph_1", "+14155550166", rows[3]!.seq, 1_000)).toBe(2)
    expect(markChatReadThrough(db, "ph_1", "+14155550166", rows[3]!.seq, 2_000)).toBe(0)
    expect(["inmsg_1", "inmsg_2", "inmsg_3", "inmsg_4", "inmsg_5"].map((id) => inboundReadAtMs(db, id))).toEqual([1_000, null, null, 1_000, null])
    expect(listUnreadInChat(db, "ph_1", "+14155550166", rows[4]!.seq, 10).map((m) => m.id)).toEqual(["inmsg_5"])
  })

  test("the lookup and the marking seek the partial index of unread messages instead of scanning the phone's inbound", () => {
    const { db } = seeded()
    const chat = "phone_id = 'ph_1' AND COALESCE(group_id, from_address) = '+14155550166' AND seq <= 5 AND read_at_ms IS NULL"
    for (const sql of [`SELECT id FROM inbound_messages WHERE ${chat} ORDER BY seq DESC LIMIT 10`, `UPDATE inbound_messages SET read_at_ms = 1 WHERE ${chat}`]) {
      const plan = db.query(`EXPLAIN QUERY PLAN ${sql}`).all() as { detail: string }[]
      expect(plan.map((p) => p.detail).join(" | ")).toContain("inbound_unread_chat")
    }
  })
})
