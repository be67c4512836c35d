import { expect, setDefaultTimeout, test } from "bun:test"
import type { InboundRow } from "../../../src/store/inbound"
import type { PartRow } from "../../../src/store/message-parts"
import { TEST_EPOCH_MS } from "../../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../../helpers/timeouts"
import { newInbound, seedMessage } from "./message-fixtures"
import { describeStores, type ContractStore } from "./stores"

/* Acting on messages (MessageActionsQueries), the parts of live messages (MessagePartsQueries) and replies (RepliesQueries), on both stores. */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const T = TEST_EPOCH_MS
const GROUP = "120363111111111111@g.us"

/** A part as both stores return it: the status fields of a message without the sandbox's due times. */
type StoredPart = Omit<PartRow, "sandboxDeliveredDueMs" | "sandboxReadDueMs">
const parts = (rows: PartRow[]): StoredPart[] => rows
const part = (row: PartRow | null): StoredPart | null => row

/** Five inbound messages of ph_1: two chats with +…166 (1:1 and a group) and one with +…177, with noise on ph_2 between them. */
async function seededChats(store: ContractStore): Promise<InboundRow[]> {
  const rows: InboundRow[] = []
  const specs: [string, string | null][] = [["+14155550166", null], ["+14155550177", null], ["+14155550166", GROUP], ["+14155550166", null], ["+14155550166", null]]
  for (const [i, [from, groupId]] of specs.entries()) {
    rows.push((await store.write((q) => q.insertInbound(newInbound(i + 1, { fromAddress: from, groupId, isGroup: groupId !== null }))))!)
    await store.write((q) => q.insertInbound(newInbound(100 + i, { phoneId: "ph_2" })))
  }
  return rows
}

describeStores("message actions", (open) => {
  test("unread messages of a chat: its sender's for 1:1, its group's for a group; newest first, through the message named, at most `limit`", async () => {
    const store = await open()
    const rows = await seededChats(store)
    const ids = async (chat: string, through: number, limit: number) => (await store.listUnreadInChat("ph_1", chat, rows[through]!.seq, limit)).map((m) => m.id)
    expect(await ids("+14155550166", 3, 10)).toEqual([rows[3]!.id, rows[0]!.id])
    expect(await ids("+14155550166", 4, 2)).toEqual([rows[4]!.id, rows[3]!.id])
    expect(await ids(GROUP, 4, 10)).toEqual([rows[2]!.id])
    expect(await store.listUnreadInChat("ph_1", GROUP, rows[4]!.seq, 10)).toEqual([{ id: rows[2]!.id, waMessageId: "WA3", fromAddress: "+14155550166", groupId: GROUP }])
    expect(await store.listUnreadInChat("ph_1", "+14155550166", rows[0]!.seq - 1, 10)).toEqual([])
  })

  test("marking read through a message covers the chat's earlier unread ones only, once, and returns how many", async () => {
    const store = await open()
    const rows = await seededChats(store)
    expect(await store.write((q) => q.markChatReadThrough("ph_1", "+14155550166", rows[3]!.seq, T + 1_000))).toBe(2)
    expect(await store.write((q) => q.markChatReadThrough("ph_1", "+14155550166", rows[3]!.seq, T + 2_000))).toBe(0)
    expect(await Promise.all(rows.map((r) => store.inboundReadAtMs(r.id)))).toEqual([T + 1_000, null, null, T + 1_000, null])
    expect((await store.listUnreadInChat("ph_1", "+14155550166", rows[4]!.seq, 10)).map((m) => m.id)).toEqual([rows[4]!.id])
    expect(await store.write((q) => q.markChatReadThrough("ph_1", GROUP, rows[4]!.seq, T + 3_000))).toBe(1)
    expect(await store.inboundReadAtMs(rows[2]!.id)).toBe(T + 3_000)
    expect(await store.inboundReadAtMs("inmsg_missing")).toBeNull()
  })

  test("an edit replaces the text and records when; a second revoke keeps the first time", async () => {
    const store = await open()
    const m = await seedMessage(store, { content: "before" })
    await store.write((q) => q.markMessageEdited(m.id, "after ✓", T + 10))
    await store.write((q) => q.markMessageRevoked(m.id, T + 20))
    await store.write((q) => q.markMessageRevoked(m.id, T + 30))
    expect(await store.findMessage(m.id)).toEqual({ ...m, content: "after ✓", editedAtMs: T + 10, revokedAtMs: T + 20, updatedAtMs: T + 20 })
  })
})

describeStores("message parts", (open) => {
  test("parts are stored pending, listed in order, found by WhatsApp id and updated field for field", async () => {
    const store = await open()
    const m = await seedMessage(store)
    await store.write(async (q) => {
      await q.insertPart({ messageId: m.id, partIndex: 1, waMessageId: "3EB0B", mediaUrl: "https://files.example.com/ü.png", status: "pending" })
      await q.insertPart({ messageId: m.id, partIndex: 0, waMessageId: "3EB0A", mediaUrl: null, status: "pending" })
    })
    const blank = { sentAtMs: null, deliveredAtMs: null, readAtMs: null, failedAtMs: null, errorCode: null, errorMessage: null, mediaKind: null }
    const text = { messageId: m.id, partIndex: 0, waMessageId: "3EB0A", mediaUrl: null, status: "pending" as const, ...blank }
    const image = { messageId: m.id, partIndex: 1, waMessageId: "3EB0B", mediaUrl: "https://files.example.com/ü.png", status: "pending" as const, ...blank }
    expect(parts(await store.listParts(m.id))).toEqual([text, image])
    await store.write((q) => q.setPartMediaKind(m.id, 1, "image"))
    const failed = { ...image, mediaKind: "image" as const, status: "failed" as const, sentAtMs: T + 1, failedAtMs: T + 2, errorCode: "send_timeout", errorMessage: "no ack ⏱" }
    await store.write((q) => q.updatePart({ ...failed, sandboxDeliveredDueMs: null, sandboxReadDueMs: null }))
    expect(part(await store.findPartByWaId("3EB0B"))).toEqual(failed)
    expect(part(await store.findPartByWaId("3EB0A"))).toEqual(text)
    expect(part(await store.findPartByWaId("3EB0Z"))).toBeNull()
    expect(parts(await store.listParts(m.id))).toEqual([text, failed])
    expect(parts(await store.listParts("msg_none"))).toEqual([])
  })
})

describeStores("replies", (open) => {
  test("the messages quoting a message, ours and received, oldest first, at most `limit`", async () => {
    const store = await open()
    const target = await seedMessage(store)
    const ours = await seedMessage(store, { replyTo: target.id, createdAtMs: T + 30, content: "our reply ✓" })
    await seedMessage(store, { replyTo: "msg_other", createdAtMs: T + 5 })
    await store.write(async (q) => {
      await q.insertInbound(newInbound(1, { replyToId: target.id, receivedAtMs: T + 10, content: "their reply é" }))
      await q.insertInbound(newInbound(2, { replyToId: target.id, receivedAtMs: T + 50, fromAddress: "+14155550177" }))
    })
    expect(await store.listRepliesTo(target.id, 10)).toEqual([
      { id: newInbound(1).id, direction: "inbound", fromAddress: "+14155550166", content: "their reply é", atMs: T + 10 },
      { id: ours.id, direction: "outbound", fromAddress: "+14155550100", content: "our reply ✓", atMs: T + 30 },
      { id: newInbound(2).id, direction: "inbound", fromAddress: "+14155550177", content: "m2", atMs: T + 50 },
    ])
    expect((await store.listRepliesTo(target.id, 2)).map((r) => r.atMs)).toEqual([T + 10, T + 30])
    expect(await store.listRepliesTo("msg_none", 10)).toEqual([])
  })
})
