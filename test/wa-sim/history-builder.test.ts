import { describe, expect, setDefaultTimeout, test } from "bun:test"
import { proto } from "@whiskeysockets/baileys"
import { historyAskedFor, historyChat, historyChunks, historyContact, historyTotals, type HistoryWorld } from "./history-builder"
import { SLOW_TEST_TIMEOUT_MS } from "../helpers/timeouts"

// Everything under test/wa-sim gets the simulator's timeout: see test/helpers/timeouts.ts.
setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

/* The made-up history the phone sends (history-builder.ts; README.md, "History sync"). */

const Type = proto.HistorySync.HistorySyncType
const base: HistoryWorld = { me: { phoneNumber: "15550001111", lid: "100000000000001" }, nowMs: Date.UTC(2026, 10, 28), chats: 40, messages: 2_000, messagesPerChunk: 150 }

const idsOf = (chunk: proto.IHistorySync): string[] => (chunk.conversations ?? []).flatMap((c) => (c.messages ?? []).map((m) => m.message!.key!.id!))

describe("the history builder", () => {
  test("sends bootstrap, push names, RECENT then FULL, every message once in RECENT or FULL and chunks no bigger than asked", () => {
    const chunks = [...historyChunks(base)]
    const types = chunks.map((chunk) => chunk.syncType)
    expect(types.slice(0, 2)).toEqual([Type.INITIAL_BOOTSTRAP, Type.PUSH_NAME])
    expect(types.lastIndexOf(Type.RECENT)).toBeLessThan(types.indexOf(Type.FULL))
    const body = chunks.filter((chunk) => chunk.syncType === Type.RECENT || chunk.syncType === Type.FULL)
    const ids = body.flatMap(idsOf)
    expect(new Set(ids).size).toBe(ids.length)
    expect(ids.length).toBe(historyTotals(base).messages)
    expect(Math.max(...body.map((chunk) => idsOf(chunk).length))).toBeLessThanOrEqual(150)
    for (const type of [Type.RECENT, Type.FULL]) {
      const progress = chunks.filter((chunk) => chunk.syncType === type).map((chunk) => chunk.progress!)
      expect(progress).toEqual([...progress].sort((a, b) => a - b))
      expect(progress.at(-1)).toBe(100)
    }
    // The bootstrap repeats each chat's newest message, which RECENT or FULL carries again.
    expect(idsOf(chunks[0]!).every((id) => ids.includes(id))).toBe(true)
  })

  test("names 1:1 chats by number or by LID with the other form, and a contact hiding its number by LID alone", () => {
    const world = { ...base, hiddenNumberEvery: 2 }
    const [bootstrap] = historyChunks(world)
    const byId = new Map(bootstrap!.conversations!.map((c) => [c.id, c]))
    const pn = historyChat(world, 1)
    expect(byId.get(pn.id)).toMatchObject({ lidJid: pn.lidJid, displayName: pn.name })
    const lid = historyChat(world, 2)
    expect(byId.get(lid.id)).toMatchObject({ pnJid: lid.pnJid })
    const hidden = historyChat(world, 5)
    expect([hidden.id, hidden.pnJid, byId.get(hidden.id)?.pnJid]).toEqual([historyContact(world, 5).lidJid, undefined, undefined])
    expect(bootstrap!.phoneNumberToLidMappings!.some((m) => m.lidJid === hidden.lidJid)).toBe(false)
    expect(bootstrap!.phoneNumberToLidMappings).toContainEqual({ pnJid: lid.pnJid, lidJid: lid.lidJid })
  })

  test("is the same every time, so a re-sync repeats the same message ids", () => {
    const once = [...historyChunks(base)].flatMap(idsOf)
    const again = [...historyChunks(base)].flatMap(idsOf)
    expect(again).toEqual(once)
  })

  test("streams: the first chunks of a ten-million-message history come without building the rest", () => {
    const huge = historyChunks({ ...base, chats: 500, messages: 10_000_000, messagesPerChunk: 1_000 })
    const started = performance.now()
    const first = [huge.next().value!, huge.next().value!, huge.next().value!]
    expect(first.map((chunk) => chunk.syncType)).toEqual([Type.INITIAL_BOOTSTRAP, Type.PUSH_NAME, Type.RECENT])
    expect(idsOf(first[2]!)).toHaveLength(1_000)
    // Building all ten million messages takes minutes and gigabytes; three chunks take well under a second.
    expect(performance.now() - started).toBeLessThan(10_000)
  })

  test("turns a device's registration into what it asked for", () => {
    expect(historyAskedFor({ requireFullSync: false, historySyncConfig: { recentSyncDaysLimit: 30 } })).toEqual({ full: false, recentDays: 30 })
    expect(historyAskedFor({ requireFullSync: true })).toEqual({ full: true })
    expect(historyAskedFor(undefined)).toEqual({ full: false })
  })
})
