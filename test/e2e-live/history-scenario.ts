import { afterAll, beforeAll, describe, expect, test } from "bun:test"
import { proto } from "@whiskeysockets/baileys"
import type { WaSim } from "../wa-sim"
import { historyChat, historyChunks, historyContact, historyTotals, type HistoryWorld } from "../wa-sim/history-builder"
import { SLOW_HOOK_TIMEOUT_MS } from "../helpers/timeouts"
import { ApiClient, Hooks, poll, WagateProcess } from "./live-world"
import { startTlsWorld, type TlsWorld } from "./tls-world"

/*
 * History on pairing over the TLS front (docs/admin.md § "History on pairing", docs/webhooks.md
 * § "History events"), with wagate as a real process and unmodified Baileys: the phone's history
 * (an inline bootstrap, push names, recent chunks as encrypted blobs on the simulator's media
 * host) lands in the chats and contacts, told by `history.synced`, never by `message.received`;
 * a re-sync stores nothing twice; a sync WhatsApp breaks off, or a chunk it cannot deliver, ends
 * with `complete: false`; a phone set to `historySync: none` stores nothing.
 * history-source.test.ts runs it against `bun src/main.ts serve`.
 */

const ME = "+15550101111"
const QUIET = "+15550101112"
const STEP_TIMEOUT_MS = 90_000
const enc = encodeURIComponent
const Type = proto.HistorySync.HistorySyncType

export function describeHistory(label: string, options: { prepare: () => Promise<string[] | undefined>; prepareTimeoutMs: number }): void {
  let world: TlsWorld
  let sim: WaSim
  let wagate: WagateProcess
  let api: ApiClient
  let hooks: Hooks
  let past: HistoryWorld

  beforeAll(async () => {
    world = await startTlsWorld({ command: await options.prepare(), keyName: "history", scopes: ["messages:read", "contacts:read"] })
    ;({ sim, wagate, api } = world)
    hooks = new Hooks()
    const endpoint = await wagate.adminOk("POST", `/accounts/${wagate.accountId}/webhooks`, { url: hooks.url, environment: "live", events: ["*"] })
    hooks.secret = endpoint.secret
    const account = sim.primary(ME).account
    past = { me: { phoneNumber: account.phoneNumber, lid: account.lid }, nowMs: Date.now(), chats: 9, messages: 180, messagesPerChunk: 40, groupEvery: 4, lidEvery: 3, hiddenNumberEvery: 2, full: false, recentDays: 400, spanDays: 300 }
  }, options.prepareTimeoutMs + SLOW_HOOK_TIMEOUT_MS)

  afterAll(async () => {
    await hooks?.stop()
    await world?.stop()
  }, SLOW_HOOK_TIMEOUT_MS)

  /** Adds a phone, sets its history settings and pairs it by QR. */
  async function pairWith(phoneNumber: string, settings: Record<string, unknown>): Promise<string> {
    const phoneId: string = (await wagate.adminOk("POST", `/accounts/${wagate.accountId}/phones`, { phoneNumber })).id
    await wagate.adminOk("PUT", `/phones/${phoneId}/history-settings`, settings)
    await wagate.adminOk("POST", `/phones/${phoneId}/connect`, { method: "qr" })
    await sim.primary(phoneNumber).scanShownQr(async () => (await wagate.adminOk("GET", `/phones/${phoneId}/pairing`)).qr ?? undefined)
    await api.phoneWithStatus(phoneId, "connected", 20_000)
    return phoneId
  }

  const synced = (phoneId: string) => hooks.matching("history.synced", (d) => d.phoneId === phoneId).map((e) => e.data)
  const storedBy = (phoneId: string) => synced(phoneId).reduce((sum, d) => sum + d.messages, 0)
  /** Waits until `count` history.synced events of the phone arrived; returns them. */
  const syncedCount = (phoneId: string, count: number) => poll(() => (synced(phoneId).length >= count ? synced(phoneId) : undefined), `${count} history.synced`, 30_000)
  const timeline = async (chatId: string) => (await api.call("GET", `/chats/${enc(chatId)}/messages?fromPhoneId=${enc(ME)}&limit=100`)).body.data.messages

  describe(`history on pairing over TLS, ${label}`, () => {
    let phoneId: string

    test("a newly paired phone's history lands in its chats and contacts, chunk by chunk, told by history.synced and never as message.received", async () => {
      sim.history.onLink(ME, () => ({ chunks: historyChunks(past), inlineBootstrap: true }))
      phoneId = await pairWith(ME, { historyDays: 3650 })
      const result = await sim.history.automatic.at(-1)!
      expect(new Set(result.chunks.map((c) => c.syncType))).toEqual(new Set([Type.INITIAL_BOOTSTRAP, Type.PUSH_NAME, Type.RECENT]))
      const events = await syncedCount(phoneId, result.chunks.length)
      expect(events.at(-1)).toEqual({ phoneId, chats: expect.any(Number), messages: expect.any(Number), complete: true })
      expect(storedBy(phoneId)).toBe(historyTotals(past).messages)
      const chats = (await api.call("GET", `/chats?fromPhoneId=${enc(ME)}&limit=100`)).body.data.chats
      expect(chats.length).toBe(9)
      // A chat WhatsApp names by LID is the contact's number when the history maps it; a hidden number stays the LID.
      expect(chats.map((c: { id: string }) => c.id)).toEqual(expect.arrayContaining(["+15557000002", historyChat(past, 5).lidJid, historyChat(past, 0).id]))
      const messages = await timeline("+15557000001")
      expect(messages.length).toBe(historyChat(past, 1).messageCount)
      expect(new Set(messages.map((m: { origin: string }) => m.origin))).toEqual(new Set(["history"]))
      expect(new Set(messages.map((m: { direction: string }) => m.direction))).toEqual(new Set(["in", "out"]))
      const contacts = (await api.call("GET", `/contacts?fromPhoneId=${enc(ME)}&search=${enc("+15557000002")}`)).body.data.contacts
      expect(contacts[0]).toMatchObject({ id: "+15557000002", phoneNumber: "+15557000002", lid: historyContact(past, 2).lidJid, pushName: historyContact(past, 2).pushName })
      expect(hooks.matching("message.received")).toEqual([])
      expect(hooks.matching("message.echo")).toEqual([])
    }, STEP_TIMEOUT_MS)

    test("a re-sync of the same history stores nothing twice", async () => {
      const before = synced(phoneId).length
      const result = await sim.history.send(ME, { chunks: historyChunks(past) })
      const events = (await syncedCount(phoneId, before + result.chunks.length)).slice(before)
      expect(events.map((d) => d.messages)).toEqual(events.map(() => 0))
      expect(events.at(-1)?.complete).toBe(true)
      expect((await timeline("+15557000001")).length).toBe(historyChat(past, 1).messageCount)
    }, STEP_TIMEOUT_MS)

    test("a sync WhatsApp breaks off, or a chunk it cannot deliver, ends with complete false and keeps what landed", async () => {
      const atS = Math.floor(Date.now() / 1000) - 3_600
      const chunk = (n: number, progress: number): proto.IHistorySync => ({
        syncType: Type.RECENT,
        chunkOrder: n,
        progress,
        conversations: [{ id: "15557000001@s.whatsapp.net", messages: [{ message: { key: { remoteJid: "15557000001@s.whatsapp.net", fromMe: false, id: `3ABROKEN${n}` }, message: { conversation: `broken ${n}` }, messageTimestamp: atS + n } }] }],
      })
      const before = synced(phoneId).length
      const cut = await sim.history.send(ME, { chunks: [chunk(0, 50), chunk(1, 100)], stopAfter: 1 })
      expect(cut.complete).toBe(false)
      const [landed] = (await syncedCount(phoneId, before + 1)).slice(before)
      expect(landed).toEqual({ phoneId, chats: 1, messages: 1, complete: false })
      await sim.history.send(ME, { chunks: [chunk(2, 60), chunk(3, 100)], faults: { 1: "gone" } })
      const tail = (await syncedCount(phoneId, before + 3)).slice(before + 1)
      expect(tail).toEqual([
        { phoneId, chats: 1, messages: 1, complete: false },
        { phoneId, chats: 0, messages: 0, complete: false },
      ])
      const contents = (await timeline("+15557000001")).map((m: { content: string }) => m.content)
      expect(contents).toEqual(expect.arrayContaining(["broken 0", "broken 2"]))
      expect(contents).not.toContain("broken 3")
    }, STEP_TIMEOUT_MS)

    test("a phone set to historySync none stores none of the history its phone sends", async () => {
      const account = sim.primary(QUIET).account
      const quietPast = { ...past, me: { phoneNumber: account.phoneNumber, lid: account.lid } }
      sim.history.onLink(QUIET, () => ({ chunks: historyChunks(quietPast), inlineBootstrap: true }))
      const quietId = await pairWith(QUIET, { historySync: "none" })
      await sim.history.automatic.at(-1)!
      // A message after the history: once it is recorded, every chunk before it was seen and dropped.
      const alice = sim.contact({ phoneNumber: "+15550102222", name: "Alice" })
      await sim.sendInbound(alice, { text: "after the history" }, { to: QUIET })
      await hooks.next("message.received", (d) => d.to === QUIET, 30_000)
      const chats = (await api.call("GET", `/chats?fromPhoneId=${enc(QUIET)}&limit=100`)).body.data.chats
      expect(chats.map((c: { id: string }) => c.id)).toEqual(["+15550102222"])
      expect(synced(quietId)).toEqual([])
    }, STEP_TIMEOUT_MS)
  })
}
