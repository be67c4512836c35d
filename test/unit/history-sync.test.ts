import { describe, expect, test } from "bun:test"
import { chunkCompletes, historyContacts, historyRows } from "../../src/domain/history-sync"
import type { PhoneRow } from "../../src/store/phones"
import type { HistoryChunk, HistoryMessage } from "../../src/whatsapp/gateway"

/* The pure rules of history on pairing (src/domain/history-sync.ts; docs/admin.md § "History on pairing"). */

const NOW = Date.UTC(2026, 10, 28)
const DAY = 86_400_000
const phone = { id: "ph_1", accountId: "acc_1", phoneNumber: "+15550001111" } as PhoneRow

function message(overrides: Partial<HistoryMessage>): HistoryMessage {
  return { waMessageId: "3A01", chatId: "+15557000001", isGroup: false, fromMe: false, from: "+15557000001", type: "text", content: "hi", atMs: NOW - DAY, ...overrides }
}

let n = 0
const rowsOf = (messages: HistoryMessage[], historyDays = 90) => historyRows({ phone, messages, historyDays, nowMs: NOW, newId: () => `wamsg_${++n}` })

describe("which past messages are stored", () => {
  test.each([
    ["a message of yesterday", 90, true, NOW - DAY],
    ["a message exactly historyDays old", 90, true, NOW - 90 * DAY],
    ["a message one second older than historyDays", 90, false, NOW - 90 * DAY - 1000],
    ["a year-old message with historyDays 365", 365, true, NOW - 364 * DAY],
    ["a year-old message with historyDays 1", 1, false, NOW - 364 * DAY],
  ])("%s (historyDays %d) is stored: %p", (_, days, kept, atMs) => {
    expect(rowsOf([message({ atMs })], days).length).toBe(kept ? 1 : 0)
  })
})

describe("direction and sender", () => {
  test.each([
    ["the phone's own message in a 1:1 chat", { fromMe: true, from: null }, { direction: "out", fromAddress: "+15550001111", status: "sent" }],
    ["a contact's message", { fromMe: false, from: "+15557000001" }, { direction: "in", fromAddress: "+15557000001", status: null }],
    ["a contact WhatsApp names only by LID", { fromMe: false, from: "210000000000005@lid", chatId: "210000000000005@lid" }, { direction: "in", fromAddress: "210000000000005@lid", chatId: "210000000000005@lid" }],
    ["a group participant's message", { fromMe: false, isGroup: true, chatId: "120363400000000000@g.us", from: "+15557000003" }, { direction: "in", fromAddress: "+15557000003", chatId: "120363400000000000@g.us" }],
    ["the phone's own message in a group", { fromMe: true, isGroup: true, chatId: "120363400000000000@g.us", from: null }, { direction: "out", fromAddress: "+15550001111" }],
  ] as const)("%s", (_, given, expected) => {
    const [row] = rowsOf([message(given)])
    expect(row).toMatchObject({ origin: "history", env: "live", phoneId: "ph_1", accountId: "acc_1", ...expected })
  })
})

describe("contacts", () => {
  test.each([
    ["number, LID and push name", { contact: "+15557000002", phoneNumber: "+15557000002", lid: "210000000000002@lid", pushName: "Chloé Silva" }, { contactId: "+15557000002", phoneNumber: "+15557000002", lid: "210000000000002@lid", pushName: "Chloé Silva" }],
    ["a hidden number: the LID only", { contact: "210000000000005@lid", phoneNumber: null, lid: "210000000000005@lid", pushName: "Fatima" }, { contactId: "210000000000005@lid", phoneNumber: null, lid: "210000000000005@lid", pushName: "Fatima" }],
    ["a mapping without a name keeps the stored push name (none is sent)", { contact: "+15557000003", phoneNumber: "+15557000003", lid: "210000000000003@lid", pushName: null }, { contactId: "+15557000003", lid: "210000000000003@lid" }],
  ] as const)("%s", (_, contact, expected) => {
    const [row] = historyContacts("ph_1", { contacts: [contact] }, NOW)
    expect(row).toMatchObject({ phoneId: "ph_1", env: "live", updatedAtMs: NOW, ...expected })
    if (contact.pushName === null) expect(row).not.toHaveProperty("pushName")
  })

  test("a push name is bounded and its control characters escaped before it is stored", () => {
    const [row] = historyContacts("ph_1", { contacts: [{ contact: "+15557000004", phoneNumber: "+15557000004", lid: null, pushName: `A\u0000${"x".repeat(5000)}` }] }, NOW)
    expect(row!.pushName!.length).toBeLessThan(1000)
    expect(row!.pushName).not.toContain("\u0000")
  })
})

describe("when a sync is complete", () => {
  test.each([
    ["the recent part at 100 %", true, { kind: "recent", progress: 100, failed: false }],
    ["the full part at 100 %", true, { kind: "full", progress: 100, failed: false }],
    ["a recent chunk at 40 %", false, { kind: "recent", progress: 40, failed: false }],
    ["the bootstrap (more is to come)", false, { kind: "bootstrap", progress: 100, failed: false }],
    ["the push names", false, { kind: "push_names", progress: 100, failed: false }],
    ["a chunk without progress", false, { kind: "recent", progress: null, failed: false }],
    ["the last chunk, unreadable", false, { kind: "recent", progress: 100, failed: true }],
  ] as const)("%s → complete: %p", (_, complete, chunk) => {
    expect(chunkCompletes(chunk as Pick<HistoryChunk, "kind" | "progress" | "failed">)).toBe(complete)
  })
})
