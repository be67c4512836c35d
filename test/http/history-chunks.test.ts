import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { createEndpoint } from "../../src/domain/webhook-endpoints"
import { setHistorySettings } from "../../src/domain/history-settings"
import { recordHistoryChunk } from "../../src/domain/history-sync"
import { HistorySyncedData } from "../../src/domain/history-events"
import { Timeline } from "../../src/http/models/chats"
import type { PhoneRow } from "../../src/store/phones"
import type { HistoryChunk, HistoryMessage } from "../../src/whatsapp/gateway"
import { createHarness, expectSchema, type Harness } from "../helpers/harness"
import { eventsOf } from "../live/live-helpers"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

/*
 * History chunks stored by the domain (src/domain/history-sync.ts; docs/admin.md § "History on
 * pairing") on the real SQLite store, read back through the chat routes with a live key.
 */

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

const ALICE = "+15557000001"
const GROUP = "120363400000000000@g.us"
const DAY = 86_400_000
const enc = encodeURIComponent

function past(n: number, overrides: Partial<HistoryMessage> = {}): HistoryMessage {
  return { waMessageId: `3AHIST${n}`, chatId: ALICE, isGroup: false, fromMe: n % 2 === 0, from: n % 2 === 0 ? null : ALICE, type: "text", content: `past ${n}`, atMs: h.clock.nowMs() - (10 - n) * 60_000, ...overrides }
}

function chunk(messages: HistoryMessage[], overrides: Partial<HistoryChunk> = {}): HistoryChunk {
  return { kind: "recent", progress: 100, messages, contacts: [{ contact: ALICE, phoneNumber: ALICE, lid: "210000000000001@lid", pushName: "Ana Silva" }], failed: false, ...overrides }
}

/** A live tenant whose events are kept (an endpoint subscribes to every event). */
async function seed() {
  const tenant = await h.seedTenant({ env: "live" })
  await createEndpoint(h.services.ctx, { accountId: tenant.account.id, env: "live", url: "http://127.0.0.1:9/unused", events: ["*"] })
  return tenant
}

const timelineOf = async (key: string, phone: PhoneRow, chatId: string) =>
  (await h.request("GET", `/v1/chats/${enc(chatId)}/messages?fromPhoneId=${enc(phone.phoneNumber)}&limit=100`, { key })).body.data

describe("success", () => {
  test("a chunk lands in the chats' timelines, both directions with origin history, and one history.synced counts it", async () => {
    const { key, phone } = await seed()
    const group = past(3, { chatId: GROUP, isGroup: true, from: "+15557000003" })
    await recordHistoryChunk(h.services.ctx, phone.id, chunk([past(1), past(2), group]))
    const alice = await timelineOf(key, phone, ALICE)
    expectSchema(Timeline, alice)
    expect(alice.messages.map((m: any) => [m.direction, m.origin, m.from, m.content])).toEqual([
      ["out", "history", phone.phoneNumber, "past 2"],
      ["in", "history", ALICE, "past 1"],
    ])
    expect((await timelineOf(key, phone, GROUP)).messages.map((m: any) => [m.direction, m.from])).toEqual([["in", "+15557000003"]])
    const synced = eventsOf(h, "history.synced").map((e) => e.data)
    for (const data of synced) expectSchema(HistorySyncedData, data)
    expect(synced).toEqual([{ phoneId: phone.id, chats: 2, messages: 3, complete: true }])
    expect(eventsOf(h, "message.received")).toEqual([])
  })

  test("the chunk's contacts are stored with number, LID and push name", async () => {
    const { key, phone } = await seed()
    await recordHistoryChunk(h.services.ctx, phone.id, chunk([past(1)]))
    const res = await h.request("GET", `/v1/contacts?fromPhoneId=${enc(phone.phoneNumber)}`, { key })
    expect(res.body.data.contacts).toContainEqual(expect.objectContaining({ id: ALICE, phoneNumber: ALICE, lid: "210000000000001@lid", pushName: "Ana Silva" }))
  })

  test("a reply points at the message it quotes in the same chunk", async () => {
    const { key, phone } = await seed()
    const reply = past(5, { details: { quotedWaMessageId: "3AHIST4" } })
    await recordHistoryChunk(h.services.ctx, phone.id, chunk([reply, past(4)]))
    const messages = (await timelineOf(key, phone, ALICE)).messages
    const quoted = messages.find((m: any) => m.content === "past 4")
    expect(messages.find((m: any) => m.content === "past 5").replyTo).toBe(quoted.id)
  })

  test("a re-sync of the same chunk stores nothing twice and says it stored nothing", async () => {
    const { key, phone } = await seed()
    await recordHistoryChunk(h.services.ctx, phone.id, chunk([past(1), past(2)]))
    await recordHistoryChunk(h.services.ctx, phone.id, chunk([past(1), past(2), past(3)]))
    expect((await timelineOf(key, phone, ALICE)).messages.map((m: any) => m.content)).toEqual(["past 3", "past 2", "past 1"])
    expect(eventsOf(h, "history.synced").map((e) => e.data.messages)).toEqual([2, 1])
  })

  test("more messages than one write takes are stored in batches, all of them", async () => {
    const { phone } = await seed()
    const many = Array.from({ length: 1_234 }, (_, i) => past(i % 10, { waMessageId: `3ABATCH${i}`, chatId: `+1555800${String(i % 40).padStart(4, "0")}`, from: null, fromMe: true }))
    await recordHistoryChunk(h.services.ctx, phone.id, chunk(many))
    expect(eventsOf(h, "history.synced").map((e) => [e.data.chats, e.data.messages])).toEqual([[40, 1_234]])
  })
})

describe("on PostgreSQL", () => {
  test("a chunk lands in the timeline and a re-sync stores nothing twice, as on SQLite", async () => {
    await h.close()
    h = await createHarness({ database: "postgres" })
    const { key, phone } = await h.seedTenant({ env: "live" })
    const first = await recordHistoryChunk(h.services.ctx, phone.id, chunk([past(1), past(2)]))
    const again = await recordHistoryChunk(h.services.ctx, phone.id, chunk([past(1), past(2), past(3)]))
    expect([first, again]).toEqual([2, 1])
    expect((await timelineOf(key, phone, ALICE)).messages.map((m: any) => [m.origin, m.content])).toEqual([
      ["history", "past 3"],
      ["history", "past 2"],
      ["history", "past 1"],
    ])
  }, SLOW_TEST_TIMEOUT_MS)
})

describe("limits", () => {
  test("messages older than the phone's historyDays are not stored", async () => {
    const { key, phone } = await seed()
    await setHistorySettings(h.services.ctx, phone.id, { historyDays: 7 })
    await recordHistoryChunk(h.services.ctx, phone.id, chunk([past(1, { atMs: h.clock.nowMs() - 8 * DAY }), past(2, { atMs: h.clock.nowMs() - 6 * DAY })]))
    expect((await timelineOf(key, phone, ALICE)).messages.map((m: any) => m.content)).toEqual(["past 2"])
  })

  test("a phone set to historySync none stores no chunk and emits nothing", async () => {
    const { key, phone } = await seed()
    await setHistorySettings(h.services.ctx, phone.id, { historySync: "none" })
    await recordHistoryChunk(h.services.ctx, phone.id, chunk([past(1)]))
    const chats = await h.request("GET", `/v1/chats?fromPhoneId=${enc(phone.phoneNumber)}`, { key })
    expect(chats.body.data.chats).toEqual([])
    expect(eventsOf(h, "history.synced")).toEqual([])
  })

  test("a chunk WhatsApp could not deliver is told as incomplete, keeping what landed before", async () => {
    const { key, phone } = await seed()
    await recordHistoryChunk(h.services.ctx, phone.id, chunk([past(1)], { progress: 40 }))
    await recordHistoryChunk(h.services.ctx, phone.id, chunk([], { progress: 100, failed: true, contacts: [] }))
    expect((await timelineOf(key, phone, ALICE)).messages.map((m: any) => m.content)).toEqual(["past 1"])
    expect(eventsOf(h, "history.synced").map((e) => e.data.complete)).toEqual([false, false])
  })
})

describe("security", () => {
  test("a test key of the same account sees none of the live history", async () => {
    const { phone, account } = await seed()
    const testKey = await h.seedKey(account.id, { env: "test" })
    await recordHistoryChunk(h.services.ctx, phone.id, chunk([past(1)]))
    const res = await h.request("GET", `/v1/chats/${enc(ALICE)}/messages?fromPhoneId=${enc(phone.phoneNumber)}`, { key: testKey })
    expect(res.status).toBe(404)
  })
})
