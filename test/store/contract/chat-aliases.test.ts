import { expect, setDefaultTimeout, test } from "bun:test"
import type { ChatMessageRow } from "../../../src/store/chats"
import { TEST_EPOCH_MS } from "../../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../../helpers/timeouts"
import { account, phone } from "./fixtures"
import { newInbound, newMessage } from "./message-fixtures"
import { describeStores, type ContractStore } from "./stores"

/*
 * What SQLite migration 31 / PostgreSQL migration 19 guarantee on both stores: echo/history
 * retention, one chat per contact reached by number and by LID, and revoked previews
 * (src/store/chat-sql-aliases.ts).
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const T = TEST_EPOCH_MS
const DAY_MS = 86_400_000
const ALICE = "+14155550166"
const ALICE_LID = "123456789012345@lid"

async function withPhone(store: ContractStore): Promise<ContractStore> {
  await store.insertAccount(account({ id: "acc_1" }))
  await store.insertPhone(phone({ accountId: "acc_1" }))
  return store
}

const receive = (store: ContractStore, n: number, from: string, atMs: number) =>
  store.write((q) => q.insertInbound(newInbound(n, { fromAddress: from, receivedAtMs: atMs, content: `in ${n}` })))

const echo = (n: number, chatId: string, atMs: number, origin: ChatMessageRow["origin"] = "phone"): ChatMessageRow => ({
  id: `wamsg_${String(n).padStart(4, "0")}`,
  accountId: "acc_1",
  env: "live",
  phoneId: "ph_1",
  waMessageId: `E${n}`,
  chatId,
  origin,
  direction: "out",
  fromAddress: "+14155550123",
  type: "text",
  content: `echo ${n}`,
  media: null,
  location: null,
  contact: null,
  poll: null,
  replyToId: null,
  status: null,
  editedAtMs: null,
  revokedAtMs: null,
  atMs,
  createdAtMs: atMs,
})

const learnMapping = (store: ContractStore, atMs: number) =>
  store.write((q) => q.upsertContacts([{ phoneId: "ph_1", env: "live", contactId: ALICE, phoneNumber: ALICE, lid: ALICE_LID, updatedAtMs: atMs }]))

const timelineIds = async (store: ContractStore, chatId: string) =>
  (await store.listTimeline({ phoneId: "ph_1", env: "live", chatId, before: null, limit: 50 })).map((e) => e.row.id)

describeStores("chat aliases, retention and revoked previews", (open) => {
  test("pruning deletes echo and history messages older than the cutoff in batches, oldest first; API sends, inbound and the chat row stay", async () => {
    const store = await withPhone(await open())
    await store.write((q) => q.insertMessage(newMessage({ id: "msg_0001", accountId: "acc_1", env: "live", toAddress: ALICE, createdAtMs: T - 400 * DAY_MS })))
    await receive(store, 2, ALICE, T - 300 * DAY_MS)
    await store.write((q) => q.recordHistoryBatch([echo(1, ALICE, T - 200 * DAY_MS, "history"), echo(2, ALICE, T - 100 * DAY_MS, "history"), echo(3, ALICE, T - 10 * DAY_MS)]))
    const before = (await store.findChat("ph_1", "live", ALICE))!
    expect(await store.write((q) => q.pruneChatMessages(T - 30 * DAY_MS, 1))).toBe(1)
    expect(await timelineIds(store, ALICE)).toEqual(["wamsg_0003", "wamsg_0002", "inmsg_00000002", "msg_0001"])
    expect(await store.write((q) => q.pruneChatMessages(T - 30 * DAY_MS, 10))).toBe(1)
    expect(await store.write((q) => q.pruneChatMessages(T - 30 * DAY_MS, 10))).toBe(0)
    expect(await timelineIds(store, ALICE)).toEqual(["wamsg_0003", "inmsg_00000002", "msg_0001"])
    expect(await store.write((q) => q.pruneChatMessages(T, 10))).toBe(1)
    expect(await store.findChat("ph_1", "live", ALICE)).toEqual(before)
  })

  test("a contact heard first by LID and then by number is one chat under the number once the mapping is known, with both in its timeline", async () => {
    const store = await withPhone(await open())
    await receive(store, 1, ALICE_LID, T + 1)
    await store.write((q) => q.recordEchoMessage(echo(2, ALICE_LID, T + 2)))
    await receive(store, 3, ALICE, T + 3)
    await store.write((q) => q.applyChatChange("ph_1", "live", ALICE_LID, { pinned: true }, T + 3))
    expect((await store.listChats({ phoneId: "ph_1", env: "live", after: null, limit: 10 })).map((c) => c.chatId)).toEqual([ALICE, ALICE_LID])

    await learnMapping(store, T + 4)
    const chats = await store.listChats({ phoneId: "ph_1", env: "live", after: null, limit: 10 })
    expect(chats.map((c) => [c.chatId, c.unreadCount, c.pinned, c.lastMessage?.id])).toEqual([[ALICE, 2, true, "inmsg_00000003"]])
    expect(await timelineIds(store, ALICE)).toEqual(["inmsg_00000003", "wamsg_0002", "inmsg_00000001"])
    expect(await timelineIds(store, ALICE_LID)).toEqual(["inmsg_00000003", "wamsg_0002", "inmsg_00000001"])
    expect((await store.findChat("ph_1", "live", ALICE_LID))?.chatId).toBe(ALICE)

    // Once the mapping is known, what still arrives by LID lands in the number's chat.
    await receive(store, 5, ALICE_LID, T + 5)
    await store.write((q) => q.applyChatChange("ph_1", "live", ALICE_LID, { archived: true }, T + 6))
    const after = await store.listChats({ phoneId: "ph_1", env: "live", after: null, limit: 10 })
    expect(after.map((c) => [c.chatId, c.unreadCount, c.archived, c.lastMessage?.id])).toEqual([[ALICE, 3, true, "inmsg_00000005"]])
  })

  test("a chat whose last message is revoked shows it deleted (type revoked, empty preview), never the deleted text; an older revoke leaves the preview", async () => {
    const store = await withPhone(await open())
    await receive(store, 1, ALICE, T + 1)
    await receive(store, 2, ALICE, T + 2)
    await store.write((q) => q.markInboundRevoked("inmsg_00000001", T + 3))
    expect((await store.findChat("ph_1", "live", ALICE))!.lastMessage).toMatchObject({ id: "inmsg_00000002", type: "text", preview: "in 2" })
    await store.write((q) => q.markInboundRevoked("inmsg_00000002", T + 4))
    expect((await store.findChat("ph_1", "live", ALICE))!.lastMessage).toMatchObject({ id: "inmsg_00000002", type: "revoked", preview: "" })

    const sent = await store.write((q) => q.insertMessage(newMessage({ id: "msg_0003", accountId: "acc_1", env: "live", toAddress: ALICE, createdAtMs: T + 5, content: "oops, wrong chat" })))
    await store.write((q) => q.markMessageRevoked(sent.id, T + 6))
    expect((await store.findChat("ph_1", "live", ALICE))!.lastMessage).toMatchObject({ id: "msg_0003", direction: "out", type: "revoked", preview: "" })
  })
})
