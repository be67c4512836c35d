import { storeOver } from "../helpers/sqlite-store"
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test"
import { proto } from "@whiskeysockets/baileys"
import { silentLogger } from "../../src/lib/logger"
import { migrate, openDatabase, type Database } from "../../src/store/sqlite/db"
import { createWriter, type Writer } from "../../src/store/sqlite/writer"
import type { HistoryChunk, SessionEvents, WhatsAppSession } from "../../src/whatsapp/gateway"
import { createBaileysGateway } from "../../src/whatsapp/baileys/gateway"
import { TestClock } from "../helpers/test-clock"
import { SLOW_HOOK_TIMEOUT_MS, SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"
import { waitUntil } from "../helpers/webhook-receiver"
import { startWaSim, trustMediaHostInFetch, type WaSim } from "../wa-sim"
import { uploadHistoryChunk } from "../wa-sim/history-sync"
import { historyChat, historyChunks, historyContact, historyMessageId, historyTotals, type HistoryWorld } from "../wa-sim/history-builder"

// Runs the simulator: see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * History on pairing through wagate's Baileys gateway against the simulator (test/wa-sim/history-sync.ts)
 * with unmodified Baileys: the adapter reads every chunk itself (inline bootstrap, encrypted blobs
 * from the media host WhatsApp named), in order, and reports it in wagate's words with numbers and
 * LIDs resolved; a blob that cannot be read is reported failed; a contact cannot announce history.
 */

const ME = "+15550081111"

let sim: WaSim
let db: Database
let writer: Writer
let session: WhatsAppSession
let untrust: () => void
let world: HistoryWorld
const chunks: HistoryChunk[] = []
const clock = new TestClock()

beforeAll(async () => {
  sim = await startWaSim({ advSecretRotation: false })
  untrust = trustMediaHostInFetch(sim)
  db = openDatabase(":memory:")
  migrate(db, clock.nowMs())
  writer = createWriter(db)
  const account = sim.primary(ME).account
  world = { me: { phoneNumber: account.phoneNumber, lid: account.lid }, nowMs: Date.now(), chats: 12, messages: 240, messagesPerChunk: 50, lidEvery: 3, hiddenNumberEvery: 2, groupEvery: 4, full: false, recentDays: 400 }
  sim.history.onLink(ME, () => ({ chunks: historyChunks(world), inlineBootstrap: true }))
  const gateway = createBaileysGateway({ store: storeOver(db, writer), clock, logger: silentLogger, wsUrl: sim.wsUrl })
  let connected = false
  const events = (): SessionEvents => ({
    connecting() {},
    qr: (qr) => void sim.primary(ME).scanQr(qr),
    pairingCode() {},
    scanned() {},
    connected: () => void (connected = true),
    disconnected: (info) => {
      if (!info.final) start(false)
    },
    partAcked() {},
    partRejected() {},
    receipt() {},
    inbound() {},
    historyChunk: async (chunk) => void chunks.push(chunk),
  })
  const start = (pair: boolean) => {
    session = gateway.session("ph_1", events())
    session.connect(pair ? { method: "qr" } : undefined)
  }
  start(true)
  await waitUntil(() => connected, 20_000, "the phone to connect")
}, SLOW_HOOK_TIMEOUT_MS)

afterAll(async () => {
  await session?.close()
  untrust?.()
  await sim?.stop()
}, SLOW_HOOK_TIMEOUT_MS)

const idsOf = (list: readonly HistoryChunk[]) => new Set(list.flatMap((c) => c.messages.map((m) => m.waMessageId)))

describe("history sync read by the adapter", () => {
  test("every chunk of the sync is reported in order, inline bootstrap and blobs alike, with every message of the history", async () => {
    const result = await sim.history.automatic[0]!
    await waitUntil(() => chunks.length >= result.chunks.length, 20_000, "every chunk reported")
    expect(chunks.map((c): string => c.kind)).toEqual(result.chunks.map((c) => ({ 0: "bootstrap", 4: "push_names", 3: "recent" })[c.syncType as 0 | 3 | 4]))
    expect(chunks.every((c) => !c.failed)).toBe(true)
    expect(chunks.at(-1)?.progress).toBe(100)
    expect(idsOf(chunks).size).toBe(historyTotals(world).messages)
  })

  test("both directions keep their sender: the phone's own messages are fromMe, a group message names its participant", async () => {
    const messages = chunks.flatMap((c) => c.messages)
    const group = historyChat(world, 0)
    const mine = messages.find((m) => m.waMessageId === historyMessageId(1, 2))!
    expect(mine).toMatchObject({ fromMe: true, from: null })
    const inGroup = messages.find((m) => m.chatId === group.id && !m.fromMe)!
    expect(inGroup.isGroup).toBe(true)
    expect(inGroup.from).toMatch(/^\+1555|@lid$/)
    expect(messages.find((m) => m.waMessageId === historyMessageId(1, 0))).toMatchObject({ fromMe: false, from: "+15557000001", chatId: "+15557000001" })
  })

  test("a chat WhatsApp names by LID is the contact's number when the chunk maps it, and stays the LID when the number is hidden", async () => {
    const messages = chunks.flatMap((c) => c.messages)
    const mapped = historyChat(world, 2)
    expect(mapped.id.endsWith("@lid")).toBe(true)
    const ofMapped = messages.filter((m) => m.waMessageId.startsWith(historyMessageId(2, 0).slice(0, 10)))
    expect(new Set(ofMapped.map((m) => m.waMessageId)).size).toBe(mapped.messageCount)
    expect(new Set(ofMapped.map((m) => m.chatId))).toEqual(new Set(["+15557000002"]))
    const hidden = historyChat(world, 5)
    expect(hidden.pnJid).toBeUndefined()
    const ofHidden = messages.filter((m) => m.waMessageId.startsWith(historyMessageId(5, 0).slice(0, 10)))
    expect(new Set(ofHidden.map((m) => m.waMessageId)).size).toBe(hidden.messageCount)
    expect(new Set(ofHidden.map((m) => m.chatId))).toEqual(new Set([hidden.lidJid!]))
  })

  test("a LID group's participants are their numbers in every chunk, resolved through the bootstrap's mappings", async () => {
    const group = historyChat(world, 4)
    expect(group.addressing).toBe("lid")
    const received = chunks.filter((c) => c.kind === "recent").flatMap((c) => c.messages).filter((m) => m.chatId === group.id && !m.fromMe)
    expect(received.length).toBeGreaterThan(0)
    const expected = new Set(group.participants.map((p) => (p.pnJid ? `+${p.pnJid.split("@")[0]}` : p.lidJid)))
    for (const m of received) expect(expected.has(m.from!)).toBe(true)
    expect(received.some((m) => m.from!.startsWith("+"))).toBe(true)
  })

  test("the mappings of a chunk Baileys never read (a bootstrap sent as a blob) resolve a later chunk's LID participant", async () => {
    const before = chunks.length
    const Type = proto.HistorySync.HistorySyncType
    const lid = "210000000000777@lid"
    const bootstrap: proto.IHistorySync = { syncType: Type.INITIAL_BOOTSTRAP, chunkOrder: 0, progress: 100, conversations: [], phoneNumberToLidMappings: [{ lidJid: lid, pnJid: "15557000777@s.whatsapp.net" }] }
    const group = "120363499999999999@g.us"
    const recent: proto.IHistorySync = {
      syncType: Type.RECENT,
      chunkOrder: 0,
      progress: 100,
      conversations: [{ id: group, messages: [{ message: { key: { remoteJid: group, fromMe: false, id: "3AMAPPED0001", participant: lid }, message: { conversation: "hello team" }, messageTimestamp: 1_700_000_000 } }] }],
    }
    await sim.history.send(ME, { chunks: [bootstrap, recent] })
    await waitUntil(() => chunks.length === before + 2, 20_000, "both chunks reported")
    expect(chunks.at(-1)?.messages).toEqual([expect.objectContaining({ waMessageId: "3AMAPPED0001", chatId: group, from: "+15557000777" })])
  })

  test("contacts carry number, LID and push name as the chunks tell them", async () => {
    const contacts = chunks.flatMap((c) => c.contacts)
    const ana = historyContact(world, 2)
    expect(contacts).toContainEqual({ contact: "+15557000002", phoneNumber: "+15557000002", lid: ana.lidJid, pushName: ana.pushName })
    const hidden = historyContact(world, 5)
    expect(contacts).toContainEqual({ contact: hidden.lidJid, phoneNumber: null, lid: hidden.lidJid, pushName: hidden.pushName })
  })
})

describe("history chunks that cannot be read", () => {
  test.each(["wrong_media_key", "gone"] as const)("a chunk whose blob fails (%s) is reported failed, and the next one still lands", async (fault) => {
    const before = chunks.length
    const sync = (chunkOrder: number, progress: number): proto.IHistorySync => ({ syncType: proto.HistorySync.HistorySyncType.RECENT, chunkOrder, progress, conversations: [] })
    await sim.history.send(ME, { chunks: [sync(0, 40), sync(1, 100)], faults: { 0: fault } })
    await waitUntil(() => chunks.length === before + 2, 20_000, "both chunks reported")
    expect(chunks.slice(before).map((c) => [c.failed, c.progress])).toEqual([
      [true, 40],
      [false, 100],
    ])
  })
})

describe("only the account's own phone can announce history", () => {
  test("a contact's history notification is not read; the phone's is", async () => {
    const before = chunks.length
    const chunk: proto.IHistorySync = { syncType: proto.HistorySync.HistorySyncType.RECENT, chunkOrder: 0, progress: 100, conversations: [{ id: "15557000099@s.whatsapp.net", messages: [{ message: { key: { remoteJid: "15557000099@s.whatsapp.net", fromMe: false, id: "3ASPOOFED0001" }, message: { conversation: "hi" }, messageTimestamp: 1_700_000_000 } }] }] }
    const notification = await uploadHistoryChunk(chunk, sim.media, undefined)
    const mallory = sim.contact({ phoneNumber: "+15550082222", name: "Mallory" })
    await sim.sendInbound(mallory, { message: { protocolMessage: { type: proto.Message.ProtocolMessage.Type.HISTORY_SYNC_NOTIFICATION, historySyncNotification: notification } } })
    await sim.history.send(ME, { chunks: [chunk] })
    await waitUntil(() => chunks.length > before, 20_000, "the phone's chunk")
    expect(chunks.length).toBe(before + 1)
    expect(chunks.at(-1)?.messages.map((m) => m.waMessageId)).toEqual(["3ASPOOFED0001"])
  })
})
