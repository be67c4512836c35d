import { expect, setDefaultTimeout, test } from "bun:test"
import type { ChatListQuery, ChatRow } from "../../../src/store/chats"
import { TEST_EPOCH_MS } from "../../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../../helpers/timeouts"
import { account, phone } from "./fixtures"
import { newInbound, newMessage } from "./message-fixtures"
import { describeStores, type ContractStore } from "./stores"

/*
 * The chat list's orders and search in the query (src/store/chat-list-sql.ts) on both stores:
 * pinned first and unread first with cursors that walk every chat once, and a search over the
 * chat's and the contact's names and numbers, with LIKE's metacharacters taken literally.
 */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const T = TEST_EPOCH_MS
const base = { phoneId: "ph_1", env: "live" as const, after: null, limit: 50 }

async function withPhone(store: ContractStore): Promise<ContractStore> {
  await store.insertAccount(account({ id: "acc_1" }))
  await store.insertPhone(phone({ accountId: "acc_1" }))
  return store
}

const receive = (store: ContractStore, n: number, from: string, atMs: number) => store.write((q) => q.insertInbound(newInbound(n, { fromAddress: from, receivedAtMs: atMs })))
const send = (store: ContractStore, n: number, to: string, atMs: number) =>
  store.write((q) => q.insertMessage(newMessage({ id: `msg_${String(n).padStart(4, "0")}`, accountId: "acc_1", env: "live", toAddress: to, createdAtMs: atMs })))
const ids = (rows: ChatRow[]) => rows.map((c) => c.chatId)

/** Every chat of the list in pages of `size`, each page started from the last row's cursor. */
async function walk(store: ContractStore, q: Omit<ChatListQuery, "after" | "limit">, size: number): Promise<string[]> {
  const seen: string[] = []
  let after: ChatListQuery["after"] = null
  for (let i = 0; i < 50; i++) {
    const page = await store.listChats({ ...q, after, limit: size })
    seen.push(...ids(page))
    if (page.length < size) break
    const last = page.at(-1)!
    after = { activityMs: last.lastActivityMs, chatId: last.chatId, pinned: last.pinned, unread: last.unreadCount > 0 }
  }
  return seen
}

describeStores("chat list order and search", (open) => {
  test("unread first puts chats with unread messages before the others, each newest activity first; pinned first tops both; cursors walk every chat once", async () => {
    const store = await withPhone(await open())
    // Activity: A 10 (read), B 20 (unread), C 30 (read), D 40 (unread), E 50 (read, pinned), F 5 (unread, pinned).
    await send(store, 1, "+14155550001", T + 10)
    await receive(store, 2, "+14155550002", T + 20)
    await send(store, 3, "+14155550003", T + 30)
    await receive(store, 4, "+14155550004", T + 40)
    await send(store, 5, "+14155550005", T + 50)
    await receive(store, 6, "+14155550006", T + 5)
    for (const chatId of ["+14155550005", "+14155550006"]) await store.write((q) => q.applyChatChange("ph_1", "live", chatId, { pinned: true }, T + 1))
    const byActivity = ["+14155550005", "+14155550004", "+14155550003", "+14155550002", "+14155550001", "+14155550006"]
    expect(ids(await store.listChats(base))).toEqual(byActivity)
    const unreadFirst = ["+14155550004", "+14155550002", "+14155550006", "+14155550005", "+14155550003", "+14155550001"]
    expect(ids(await store.listChats({ ...base, unreadFirst: true }))).toEqual(unreadFirst)
    const inbox = ["+14155550006", "+14155550005", "+14155550004", "+14155550002", "+14155550003", "+14155550001"]
    expect(ids(await store.listChats({ ...base, pinnedFirst: true, unreadFirst: true }))).toEqual(inbox)
    for (const size of [1, 2, 4]) {
      expect(await walk(store, { phoneId: "ph_1", env: "live", unreadFirst: true }, size)).toEqual(unreadFirst)
      expect(await walk(store, { phoneId: "ph_1", env: "live", pinnedFirst: true, unreadFirst: true }, size)).toEqual(inbox)
    }
    // The order combines with the filters.
    expect(ids(await store.listChats({ ...base, unreadFirst: true, archived: false, unread: false }))).toEqual(["+14155550005", "+14155550003", "+14155550001"])
  })

  test("the search finds chats by the chat's name, the contact's address-book and push names, the number (also written with spaces) and the LID, over every chat, in pages", async () => {
    const store = await withPhone(await open())
    for (let i = 0; i < 30; i++) await receive(store, i + 1, `+1415555${String(1000 + i)}`, T + i)
    await receive(store, 100, "+4915112345678", T + 100)
    await receive(store, 101, "123456789012345@lid", T + 101)
    await store.write((q) => q.applyChatChange("ph_1", "live", "+14155551003", { name: "Trattoria Roma" }, T + 2))
    await store.write((q) => q.upsertContacts([{ phoneId: "ph_1", env: "live", contactId: "+14155551007", name: "Giulia Bianchi", updatedAtMs: T }]))
    await store.write((q) => q.upsertContacts([{ phoneId: "ph_1", env: "live", contactId: "+14155551009", pushName: "Zoë", updatedAtMs: T }]))
    const search = async (s: string, over: Partial<ChatListQuery> = {}) => ids(await store.listChats({ ...base, search: s, ...over }))
    expect(await search("roma")).toEqual(["+14155551003"])
    expect(await search("GIULIA")).toEqual(["+14155551007"])
    expect(await search("Zoë")).toEqual(["+14155551009"])
    expect(await search("4915112345678")).toEqual(["+4915112345678"])
    expect(await search("+49 151 1234-5678")).toEqual(["+4915112345678"])
    expect(await search("789012345@lid")).toEqual(["123456789012345@lid"])
    // Ten numbers hold the digits 555100 (…1000 to …1009, among 30 alike): found in pages, newest first, past the first page.
    expect(await walk(store, { phoneId: "ph_1", env: "live", search: "5551-00" }, 4)).toEqual(Array.from({ length: 10 }, (_, i) => `+1415555${1009 - i}`))
    expect(await search("nobody here")).toEqual([])
    expect(await search("roma", { env: "test" })).toEqual([])
  })

  test("LIKE's metacharacters in a search match only themselves", async () => {
    const store = await withPhone(await open())
    await receive(store, 1, "+14155550001", T + 1)
    await receive(store, 2, "+14155550002", T + 2)
    await receive(store, 3, "+14155550003", T + 3)
    await store.write((q) => q.applyChatChange("ph_1", "live", "+14155550001", { name: "50% off_sale" }, T + 4))
    await store.write((q) => q.applyChatChange("ph_1", "live", "+14155550002", { name: "50 percent offXsale" }, T + 4))
    await store.write((q) => q.applyChatChange("ph_1", "live", "+14155550003", { name: "back\\slash" }, T + 4))
    const search = async (s: string) => ids(await store.listChats({ ...base, search: s }))
    expect(await search("%")).toEqual(["+14155550001"])
    expect(await search("_")).toEqual(["+14155550001"])
    expect(await search("off_sale")).toEqual(["+14155550001"])
    expect(await search("50%")).toEqual(["+14155550001"])
    expect(await search("\\")).toEqual(["+14155550003"])
    expect(await search("'; DROP TABLE chats; --")).toEqual([])
    expect(ids(await store.listChats(base))).toHaveLength(3)
  })
})
