import { afterEach, beforeEach, describe, expect, setDefaultTimeout, test } from "bun:test"
import { jidNormalizedUser, proto, type BaileysEventMap, type UserFacingSocketConfig } from "@whiskeysockets/baileys"
import { pairWithQr, simSocketConfig, TestClient } from "./baileys-client"
import { uploadHistoryChunk } from "./history-sync"
import { historyAskedFor, historyChat, historyChunks, historyContact, historyMessageId, historyTotals, type HistoryWorld } from "./history-builder"
import { trustMediaHostInFetch } from "./media-trust"
import { startWaSim, type WaSim } from "./sim"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Everything under test/wa-sim gets the simulator's timeout: see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/*
 * History sync as unmodified Baileys 7.0.0-rc14 receives it (README.md, "History sync"): the
 * phone's notification, the encrypted zlib blob on the media host, `messaging-history.set`.
 */

const ME = "+15550001111"
const Type = proto.HistorySync.HistorySyncType
/** Baileys processes history only when the app says so; the simulator's default config says no. */
const SYNCING: Partial<UserFacingSocketConfig> = { shouldSyncHistoryMessage: () => true }

let sim: WaSim
let restoreFetch: () => void
const clients: TestClient[] = []

beforeEach(async () => {
  sim = await startWaSim({ advSecretRotation: false })
  restoreFetch = trustMediaHostInFetch(sim)
})

afterEach(async () => {
  for (const client of clients.splice(0)) await client.end()
  restoreFetch()
  await sim.stop()
})

function world(overrides: Partial<HistoryWorld> = {}): HistoryWorld {
  const account = sim.primary(ME).account
  return { me: { phoneNumber: account.phoneNumber, lid: account.lid }, nowMs: Date.now(), chats: 24, messages: 480, messagesPerChunk: 100, ...overrides }
}

async function pair(overrides: Partial<UserFacingSocketConfig> = {}): Promise<TestClient> {
  const { first, client } = await pairWithQr(sim, ME, { ...SYNCING, ...overrides })
  clients.push(first, client)
  return client
}

type HistorySet = BaileysEventMap["messaging-history.set"]
const messageIds = (sets: readonly HistorySet[]): Set<string> => new Set(sets.flatMap((set) => set.messages.map((message) => message.key.id!)))

describe("history sync after pairing", () => {
  test("a newly linked device gets the chats, both directions, groups with participants, push names and LID↔number mappings", async () => {
    const w = world({ full: true })
    const totals = historyTotals(w)
    sim.history.onLink(ME, () => ({ chunks: historyChunks(w) }))
    const client = await pair({ syncFullHistory: true })
    const result = await sim.history.automatic[0]!
    expect(result.complete).toBe(true)
    expect(result.chunks.map((chunk) => chunk.syncType)).toEqual(expect.arrayContaining([Type.INITIAL_BOOTSTRAP, Type.PUSH_NAME, Type.RECENT, Type.FULL]))
    await client.waitFor(() => (messageIds(client.historySets).size === totals.messages ? true : undefined), `all ${totals.messages} history messages`, 20_000)

    const messages = client.historySets.flatMap((set) => set.messages)
    expect(messages.some((message) => message.key.fromMe === true)).toBe(true)
    expect(messages.some((message) => message.key.fromMe === false)).toBe(true)
    const chats = new Map(client.historySets.flatMap((set) => set.chats).map((chat) => [chat.id, chat]))
    expect(chats.size).toBe(totals.chats)
    const group = historyChat(w, 0)
    expect(chats.get(group.id)?.participant?.map((p) => p.userJid)).toEqual(expect.arrayContaining(group.participants.map((p) => p.pnJid!)))
    const inGroup = messages.find((message) => message.key.remoteJid === group.id && !message.key.fromMe)
    expect(group.participants.map((p) => p.pnJid)).toContain(inGroup?.key.participant ?? "")
    // A LID group names its participants by LID; the bootstrap's mappings give their numbers.
    const lidGroup = historyChat(w, 10)
    const member = lidGroup.participants[0]!
    expect([lidGroup.addressing, chats.get(lidGroup.id)?.participant?.map((p) => p.userJid)]).toEqual(["lid", expect.arrayContaining([member.lidJid])])
    expect(jidNormalizedUser((await client.sock.signalRepository.lidMapping.getPNForLID(member.lidJid)) ?? "")).toBe(member.pnJid!)

    // A chat named by LID carries its number; Baileys stores the mapping from the history.
    const lidChat = historyChat(w, 2)
    expect(lidChat.id.endsWith("@lid")).toBe(true)
    expect(jidNormalizedUser((await client.sock.signalRepository.lidMapping.getPNForLID(lidChat.id)) ?? "")).toBe(lidChat.pnJid!)
    const pushNames = client.historySets.flatMap((set) => set.contacts).filter((contact) => contact.notify)
    expect(pushNames).toContainEqual({ id: historyContact(w, 1).pnJid!, notify: historyContact(w, 1).pushName })
    const last = client.historySets.at(-1)!
    expect([last.syncType, last.progress]).toEqual([Type.FULL, 100])
  })

  test("the device's registration says which history it wants, and the phone honours it", async () => {
    sim.history.onLink(ME, (props) => ({ chunks: historyChunks(world({ ...historyAskedFor(props) })) }))
    const client = await pair({ syncFullHistory: false })
    const props = sim.history.deviceProps(ME)!
    expect(props.requireFullSync).toBe(false)
    expect(props.historySyncConfig?.inlineInitialPayloadInE2EeMsg).toBe(true)
    const result = await sim.history.automatic[0]!
    expect(result.chunks.map((chunk) => chunk.syncType)).not.toContain(Type.FULL)
    const recent = historyTotals(world({ full: false })).recentMessages
    await client.waitFor(() => (client.historySets.some((set) => set.syncType === Type.RECENT && set.progress === 100) ? true : undefined), "the last RECENT chunk", 20_000)
    // Each chat's newest message came in the bootstrap, so the union is RECENT plus the chats' newest older ones.
    expect(messageIds(client.historySets).size).toBeGreaterThanOrEqual(recent)
    expect(messageIds(client.historySets).size).toBeLessThan(historyTotals(world()).messages)
  })

  test("a bootstrap inline in the notification needs no blob", async () => {
    const w = world({ chats: 5, messages: 20 })
    sim.history.onLink(ME, () => ({ chunks: [...historyChunks(w)].slice(0, 1), inlineBootstrap: true }))
    const stored = sim.media.stored.length
    const client = await pair()
    const result = await sim.history.automatic[0]!
    expect(result.chunks[0]!.directPath).toBeUndefined()
    expect(sim.media.stored.length).toBe(stored)
    await client.waitFor(() => (client.historySets.some((set) => set.syncType === Type.INITIAL_BOOTSTRAP) ? true : undefined), "the inline bootstrap")
    expect(client.historySets.flatMap((set) => set.chats).length).toBe(5)
  })

  test("a full-history device says so at registration", async () => {
    await pair({ syncFullHistory: true })
    expect(sim.history.deviceProps(ME)?.requireFullSync).toBe(true)
  })
})

/** A paired client that processed a small bootstrap, so Baileys is online and emits each later chunk on its own. */
async function syncedClient(): Promise<TestClient> {
  const client = await pair()
  const bootstrap = [...historyChunks(world({ chats: 2, messages: 4 }))][0]!
  await sim.sendHistory(ME, { chunks: [bootstrap] })
  await client.waitFor(() => (client.historySets.length > 0 ? true : undefined), "the bootstrap's messaging-history.set", 20_000)
  return client
}

const recentChunks = (): proto.IHistorySync[] =>
  [...historyChunks(world({ chats: 6, messages: 60, messagesPerChunk: 20, full: false, recentDays: 400 }))].filter((chunk) => chunk.syncType === Type.RECENT)

describe("history sync later, chunk by chunk", () => {
  test("each chunk arrives as its own event with its sync type, order and progress", async () => {
    const client = await syncedClient()
    const before = client.historySets.length
    const result = await sim.sendHistory(ME, { chunks: recentChunks() })
    expect(result.chunks.map((chunk) => chunk.progress)).toEqual([33, 66, 100])
    await client.waitFor(() => (client.historySets.length === before + 3 ? true : undefined), "three more history sets", 20_000)
    const later = client.historySets.slice(before)
    expect(later.map((set) => [set.syncType, set.chunkOrder, set.progress])).toEqual([
      [Type.RECENT, 0, 33],
      [Type.RECENT, 1, 66],
      [Type.RECENT, 2, 100],
    ])
    expect(later.map((set) => set.messages.length)).toEqual([20, 20, 20])
  })

  test("WhatsApp breaking the sync off after two chunks leaves the third untold and progress short of 100", async () => {
    const client = await syncedClient()
    const before = client.historySets.length
    const result = await sim.sendHistory(ME, { chunks: recentChunks(), stopAfter: 2 })
    expect([result.complete, result.chunks.length]).toEqual([false, 2])
    await client.waitFor(() => (client.historySets.length === before + 2 ? true : undefined), "two more history sets", 20_000)
    expect(client.historySets.at(-1)!.progress).toBe(66)
    expect(messageIds(client.historySets)).not.toContain(historyMessageId(5, 0))
  })
})

describe("history for a device that is away", () => {
  test("chunks sent while the device is disconnected wait in its offline queue and land at its next login", async () => {
    const { auth, first, client } = await pairWithQr(sim, ME, SYNCING)
    clients.push(first)
    await client.end()
    const result = await sim.sendHistory(ME, { chunks: recentChunks() })
    expect(result.chunks).toHaveLength(3)
    expect(sim.heldFor(ME, 1)).toBe(3)
    const again = new TestClient(simSocketConfig(sim, auth.reload(), SYNCING), auth)
    clients.push(again)
    const ids = new Set(recentChunks().flatMap((chunk) => (chunk.conversations ?? []).flatMap((c) => (c.messages ?? []).map((m) => m.message!.key!.id!))))
    await again.waitFor(() => (messageIds(again.historySets).size === ids.size ? true : undefined), `${ids.size} messages after the login`, 20_000)
    expect(sim.heldFor(ME, 1)).toBe(0)
  })
})

describe("history blobs that cannot be read", () => {
  test.each(["wrong_media_key", "gone"] as const)("a chunk whose blob fails (%s) is missing while the chunks around it land", async (fault) => {
    const client = await syncedClient()
    const chunks = recentChunks()
    const idsOf = (chunk: proto.IHistorySync) => (chunk.conversations ?? []).flatMap((c) => (c.messages ?? []).map((m) => m.message!.key!.id!))
    const before = client.historySets.length
    await sim.sendHistory(ME, { chunks, faults: { 1: fault } })
    await client.waitFor(() => (client.historySets.length === before + 2 ? true : undefined), "the two readable chunks", 20_000)
    const got = messageIds(client.historySets.slice(before))
    expect(idsOf(chunks[0]!).every((id) => got.has(id))).toBe(true)
    expect(idsOf(chunks[2]!).every((id) => got.has(id))).toBe(true)
    expect(idsOf(chunks[1]!).some((id) => got.has(id))).toBe(false)
  })
})

describe("only the account's own phone can announce history", () => {
  test("a contact sending a history notification is ignored, the phone sending the same blob is not", async () => {
    const client = await syncedClient()
    const alice = sim.contact({ phoneNumber: "+15550002222", name: "Alice" })
    const chunk = recentChunks()[0]!
    const notification = await uploadHistoryChunk(chunk, sim.media, undefined)
    const protocolMessage = { type: proto.Message.ProtocolMessage.Type.HISTORY_SYNC_NOTIFICATION, historySyncNotification: notification }
    const before = client.historySets.length
    const spoofId = await sim.sendInbound(alice, { message: { protocolMessage } })
    await client.waitFor(() => client.upserts.find((entry) => entry.message.key.id === spoofId), "the contact's message upserted")
    expect(client.historySets.length).toBe(before)
    await sim.sendHistory(ME, { chunks: [chunk] })
    await client.waitFor(() => (client.historySets.length === before + 1 ? true : undefined), "the phone's chunk", 20_000)
  })
})
