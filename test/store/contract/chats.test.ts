import { expect, setDefaultTimeout, test } from "bun:test"
import type { ChatMessageRow } from "../../../src/store/chats"
import { TEST_EPOCH_MS } from "../../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../../helpers/timeouts"
import { account, phone } from "./fixtures"
import { newInbound, newMessage } from "./message-fixtures"
import { describeStores, type ContractStore } from "./stores"

/* Chats, the merged timeline and contacts (ChatsQueries, SQLite migration 27 / PostgreSQL 15) on both stores. */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const T = TEST_EPOCH_MS
const ALICE = "+14155550166"
const BOB = "+14155550177"
const GROUP = "120363000000000001@g.us"

async function withPhone(store: ContractStore): Promise<ContractStore> {
  await store.insertAccount(account({ id: "acc_1" }))
  await store.insertPhone(phone({ accountId: "acc_1" }))
  return store
}

const send = (store: ContractStore, n: number, to: string, atMs: number, env: "test" | "live" = "live") =>
  store.write((q) => q.insertMessage(newMessage({ id: `msg_${String(n).padStart(4, "0")}`, accountId: "acc_1", env, toAddress: to, createdAtMs: atMs, content: `sent ${n}` })))
const receive = (store: ContractStore, n: number, from: string, atMs: number, over: Parameters<typeof newInbound>[1] = {}) =>
  store.write((q) => q.insertInbound(newInbound(n, { fromAddress: from, receivedAtMs: atMs, ...over })))

function chatMessage(n: number, over: Partial<ChatMessageRow> = {}): ChatMessageRow {
  return {
    id: `wamsg_${String(n).padStart(4, "0")}`,
    accountId: "acc_1",
    env: "live",
    phoneId: "ph_1",
    waMessageId: `H${n}`,
    chatId: ALICE,
    origin: "history",
    direction: "out",
    fromAddress: "+14155550123",
    type: "text",
    content: `history ${n}`,
    media: null,
    location: null,
    contact: null,
    poll: null,
    replyToId: null,
    status: null,
    editedAtMs: null,
    revokedAtMs: null,
    atMs: T + n,
    createdAtMs: T + 1_000_000,
    ...over,
  }
}

describeStores("chats", (open) => {
  test("every send and inbound message keeps its chat: newest activity first, last message, unread inbound counted, environments apart", async () => {
    const store = await withPhone(await open())
    await send(store, 1, ALICE, T + 10)
    await receive(store, 2, ALICE, T + 20)
    await receive(store, 3, BOB, T + 15)
    await receive(store, 4, "+14155550188", T + 30, { isGroup: true, groupId: GROUP })
    await send(store, 5, BOB, T + 5, "test")
    const chats = await store.listChats({ phoneId: "ph_1", env: "live", after: null, limit: 10 })
    expect(chats.map((c) => [c.chatId, c.unreadCount, c.isGroup])).toEqual([
      [GROUP, 1, true],
      [ALICE, 1, false],
      [BOB, 1, false],
    ])
    expect(chats[1]!.lastMessage).toEqual({ id: "inmsg_00000002", direction: "in", type: "text", preview: "m2", atMs: T + 20 })
    const test = await store.listChats({ phoneId: "ph_1", env: "test", after: null, limit: 10 })
    expect(test.map((c) => [c.chatId, c.lastMessage?.id, c.lastMessage?.type, c.lastMessage?.direction])).toEqual([[BOB, "msg_0005", "media", "out"]])
  })

  test("a read receipt over inbound messages lowers the chat's unread count, never below zero", async () => {
    const store = await withPhone(await open())
    const first = await receive(store, 1, ALICE, T + 1)
    await receive(store, 2, ALICE, T + 2)
    await store.write((q) => q.markChatReadThrough("ph_1", ALICE, first!.seq, T + 3))
    expect((await store.findChat("ph_1", "live", ALICE))!.unreadCount).toBe(1)
    await store.write((q) => q.applyChatChange("ph_1", "live", ALICE, { unread: false }, T + 4))
    await store.write((q) => q.markChatReadThrough("ph_1", ALICE, first!.seq + 10, T + 5))
    expect((await store.findChat("ph_1", "live", ALICE))!.unreadCount).toBe(0)
  })

  test("chat changes apply field by field, create an unknown chat, and the list filters by archived and unread with a cursor", async () => {
    const store = await withPhone(await open())
    await receive(store, 1, ALICE, T + 1)
    await send(store, 2, BOB, T + 2)
    const changed = await store.write((q) => q.applyChatChange("ph_1", "live", BOB, { archived: true, pinned: true, mutedUntilMs: T + 99, labels: ["1", "4"], name: "Bob B." }, T + 3))
    expect(changed).toMatchObject({ chatId: BOB, archived: true, pinned: true, mutedUntilMs: T + 99, labels: ["1", "4"], name: "Bob B.", unreadCount: 0 })
    await store.write((q) => q.applyChatChange("ph_1", "live", BOB, { unread: true, mutedUntilMs: null }, T + 4))
    expect(await store.findChat("ph_1", "live", BOB)).toMatchObject({ unreadCount: 1, mutedUntilMs: null, archived: true, pinned: true })
    const fresh = await store.write((q) => q.applyChatChange("ph_1", "live", GROUP, { archived: false }, T + 5))
    expect(fresh).toMatchObject({ chatId: GROUP, isGroup: true, lastMessage: null, lastActivityMs: T + 5, unreadCount: 0 })
    const list = (q: { archived?: boolean; unread?: boolean }) => store.listChats({ phoneId: "ph_1", env: "live", after: null, limit: 10, ...q }).then((r) => r.map((c) => c.chatId))
    expect(await list({ archived: true })).toEqual([BOB])
    expect(await list({ archived: false })).toEqual([GROUP, ALICE])
    expect(await list({ unread: true })).toEqual([BOB, ALICE])
    expect(await list({ unread: false })).toEqual([GROUP])
    const page1 = await store.listChats({ phoneId: "ph_1", env: "live", after: null, limit: 2 })
    const last = page1.at(-1)!
    const page2 = await store.listChats({ phoneId: "ph_1", env: "live", after: { activityMs: last.lastActivityMs, chatId: last.chatId }, limit: 2 })
    expect([...page1, ...page2].map((c) => c.chatId)).toEqual([GROUP, BOB, ALICE])
  })

  test("an echo is recorded once, moves the chat's last message and adds no unread; an id the phone holds as inbound or as a sent part is not recorded again", async () => {
    const store = await withPhone(await open())
    await receive(store, 1, ALICE, T + 1)
    const echo = chatMessage(1, { origin: "phone", atMs: T + 5, content: "from the phone" })
    expect(await store.write((q) => q.recordEchoMessage(echo))).toEqual(echo)
    expect(await store.write((q) => q.recordEchoMessage({ ...echo, id: "wamsg_other" }))).toBeNull()
    expect(await store.write((q) => q.recordEchoMessage(chatMessage(2, { waMessageId: "WA1" })))).toBeNull()
    const sent = await send(store, 3, ALICE, T + 6)
    await store.write((q) => q.insertPart({ messageId: sent.id, partIndex: 0, waMessageId: "3EB0PART", mediaUrl: null, status: "sent" }))
    expect(await store.write((q) => q.recordEchoMessage(chatMessage(4, { waMessageId: "3EB0PART", atMs: T + 7 })))).toBeNull()
    const chat = (await store.findChat("ph_1", "live", ALICE))!
    expect(chat.unreadCount).toBe(1)
    expect(chat.lastMessage).toMatchObject({ id: sent.id, direction: "out" })
  })

  test("a history batch is stored once however often it is synced; older history leaves the last message alone, and history-only chats appear", async () => {
    const store = await withPhone(await open())
    await send(store, 1, ALICE, T + 500)
    const rows = Array.from({ length: 450 }, (_, i) => chatMessage(i + 1, { chatId: i % 3 === 0 ? BOB : ALICE, direction: i % 2 === 0 ? "in" : "out" }))
    expect(await store.write((q) => q.recordHistoryBatch([...rows, rows[0]!]))).toBe(450)
    expect(await store.write((q) => q.recordHistoryBatch(rows))).toBe(0)
    const alice = (await store.findChat("ph_1", "live", ALICE))!
    expect(alice.lastMessage).toMatchObject({ id: "msg_0001", direction: "out" })
    expect(alice.unreadCount).toBe(0)
    const bob = (await store.findChat("ph_1", "live", BOB))!
    expect(bob.lastMessage).toMatchObject({ id: "wamsg_0448", direction: "out", preview: "history 448", atMs: T + 448 })
  })

  test("a timeline page merges sends, inbound and echo/history rows newest first, and the cursor walks it without gaps or repeats", async () => {
    const store = await withPhone(await open())
    await send(store, 1, ALICE, T + 10)
    await receive(store, 2, ALICE, T + 20)
    await store.write((q) => q.recordEchoMessage(chatMessage(3, { origin: "phone", atMs: T + 30 })))
    await store.write((q) => q.recordHistoryBatch([chatMessage(4, { atMs: T + 5, direction: "in", fromAddress: ALICE }), chatMessage(5, { atMs: T + 20 })]))
    await receive(store, 6, BOB, T + 25)
    await store.write((q) => q.recordReaction("inmsg_00000002", "+14155550123", "👍", T + 21))
    const seen: string[] = []
    let before = null as { atMs: number; id: string } | null
    for (let i = 0; i < 5; i++) {
      const page = await store.listTimeline({ phoneId: "ph_1", env: "live", chatId: ALICE, before, limit: 2 })
      seen.push(...page.map((e) => `${e.kind}:${e.row.id}`))
      if (page.length < 2) break
      before = { atMs: page.at(-1)!.atMs, id: page.at(-1)!.row.id }
    }
    expect(seen).toEqual(["chat:wamsg_0003", "chat:wamsg_0005", "received:inmsg_00000002", "api:msg_0001", "chat:wamsg_0004"])
    expect(await store.listReactionsFor(["inmsg_00000002", "msg_0001"])).toEqual([{ targetId: "inmsg_00000002", fromAddress: "+14155550123", emoji: "👍", atMs: T + 21 }])
    expect(await store.listTimeline({ phoneId: "ph_1", env: "test", chatId: ALICE, before: null, limit: 10 })).toEqual([])
  })

  test("contacts: inbound senders and what the phone learned of them, merged field by field, searched and paged by id", async () => {
    const store = await withPhone(await open())
    await receive(store, 1, ALICE, T + 1)
    await receive(store, 2, "123456789012345@lid", T + 2)
    await store.write((q) => q.upsertWaContact({ phoneId: "ph_1", address: ALICE, lid: "99887766@lid", phoneNumber: ALICE, username: null, pushName: "Alice", updatedAtMs: T + 3 }))
    await store.write((q) => q.upsertContacts([{ phoneId: "ph_1", env: "live", contactId: BOB, name: "Bob (work)", isBusiness: true, updatedAtMs: T + 4 }]))
    await store.write((q) => q.upsertContacts([{ phoneId: "ph_1", env: "live", contactId: BOB, pushName: "bobby", blocked: true, updatedAtMs: T + 5 }]))
    const all = await store.listContacts({ phoneId: "ph_1", env: "live", afterContactId: null, limit: 10 })
    expect(all.map((c) => [c.contactId, c.phoneNumber, c.lid, c.name, c.pushName, c.isBusiness, c.blocked])).toEqual([
      [ALICE, ALICE, "99887766@lid", null, "Alice", false, false],
      [BOB, null, null, "Bob (work)", "bobby", true, true],
      ["123456789012345@lid", null, "123456789012345@lid", null, null, false, false],
    ])
    expect((await store.listContacts({ phoneId: "ph_1", env: "live", search: "ALI", afterContactId: null, limit: 10 })).map((c) => c.contactId)).toEqual([ALICE])
    expect((await store.listContacts({ phoneId: "ph_1", env: "live", search: "%", afterContactId: null, limit: 10 })).map((c) => c.contactId)).toEqual([])
    expect((await store.listContacts({ phoneId: "ph_1", env: "live", afterContactId: ALICE, limit: 1 })).map((c) => c.contactId)).toEqual([BOB])
    expect(await store.listContacts({ phoneId: "ph_1", env: "test", afterContactId: null, limit: 10 })).toEqual([])
    expect((await store.findChat("ph_1", "live", ALICE))!.name).toBe("Alice")
  })
})
