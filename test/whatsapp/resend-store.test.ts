import { storeOver } from "../helpers/sqlite-store"
import { describe, expect, test } from "bun:test"
import * as baileys from "@whiskeysockets/baileys"
import { proto, type WAMessage } from "@whiskeysockets/baileys"
import { silentLogger } from "../../src/lib/logger"
import { migrate, openDatabase } from "../../src/store/sqlite/db"
import { loadSentWaMessage } from "../../src/store/sqlite/wa-resend"
import { createWriter } from "../../src/store/sqlite/writer"
import { createResendStore } from "../../src/whatsapp/baileys/resend-store"
import { TestClock } from "../helpers/test-clock"

const HOUR_MS = 3_600_000

function world(waResendRetentionDays: number, warnings: string[] = []) {
  const db = openDatabase(":memory:")
  const clock = new TestClock()
  migrate(db, clock.nowMs())
  const writer = createWriter(db)
  const logger = { ...silentLogger, warn: (message: string) => void warnings.push(message) }
  const ctx = { store: storeOver(db, writer), clock, logger, waResendRetentionDays }
  return { db, clock, store: createResendStore(ctx, "ph_1", baileys) }
}

const sentMessage = (id: string, message: proto.IMessage): WAMessage => ({ key: { id, remoteJid: "15550002222@s.whatsapp.net", fromMe: true }, message })

describe("Baileys' getMessage from wagate's store", () => {
  test("answers a retry an hour (and six days) after the send, whichever jid asks, with the message as sent", async () => {
    const { clock, store } = world(7)
    const image: proto.IMessage = { imageMessage: { url: "https://mmg/x", mediaKey: new Uint8Array(32).fill(3), caption: "pic", mimetype: "image/png" } }
    await store.remember(sentMessage("3EB0IMAGE", image))
    await store.remember(sentMessage("3EB0TEXT", { extendedTextMessage: { text: "hello" } }))

    clock.advance(HOUR_MS)
    const fromLid = await store.getMessage({ id: "3EB0IMAGE", remoteJid: "200000000000001@lid", fromMe: true })
    expect(proto.Message.encode(fromLid!).finish()).toEqual(proto.Message.encode(image).finish())
    clock.advance(6 * 24 * HOUR_MS)
    const fromPn = await store.getMessage({ id: "3EB0TEXT", remoteJid: "15550002222@s.whatsapp.net", fromMe: true })
    expect(fromPn?.extendedTextMessage?.text).toBe("hello")
    expect(await store.getMessage({ id: "3EB0OTHER", remoteJid: "15550002222@s.whatsapp.net", fromMe: true })).toBeUndefined()
  })

  test("a retention of 0 stores nothing", async () => {
    const { db, store } = world(0)
    await store.remember(sentMessage("3EB0TEXT", { conversation: "not kept" }))
    expect(loadSentWaMessage(db, "ph_1", "3EB0TEXT")).toBeNull()
    expect(await store.getMessage({ id: "3EB0TEXT" })).toBeUndefined()
  })

  test("a failed write is logged, never thrown: the part is already on its way to WhatsApp", async () => {
    const warnings: string[] = []
    const { db, store } = world(7, warnings)
    db.exec("DROP TABLE wa_resend_messages")
    await store.remember(sentMessage("3EB0TEXT", { conversation: "lost" }))
    expect(warnings).toEqual([expect.stringContaining("retry receipts failed")])
  })
})
