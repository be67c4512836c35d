import { afterEach, describe, expect, test } from "bun:test"
import { proto } from "@whiskeysockets/baileys"
import { MESSAGE_SECRET_RETENTION_DAYS, WA_RESEND_BATCH, WA_RESEND_FIRST_DELAY_MS, WA_RESEND_INTERVAL_MS } from "../../src/domain/wa-resend-retention"
import { migrate, openDatabase } from "../../src/store/sqlite/db"
import { loadSentWaMessage, pruneSentWaMessages, saveSentWaMessage } from "../../src/store/sqlite/wa-resend"
import { createHarness, type Harness } from "../helpers/harness"

const DAY_MS = 86_400_000
const encode = (message: proto.IMessage) => proto.Message.encode(message).finish()

describe("stored WhatsApp messages of outbound parts", () => {
  test("the proto as sent comes back byte-exact for its phone only; sending the part again replaces it", () => {
    const db = openDatabase(":memory:")
    migrate(db, 0)
    const image = encode({ imageMessage: { url: "https://mmg/x", mediaKey: new Uint8Array(32).fill(7), caption: "pic", mimetype: "image/png" } })
    saveSentWaMessage(db, { phoneId: "ph_a", waMessageId: "3EB0AA", message: encode({ conversation: "first" }), sentAtMs: 1_000 })
    saveSentWaMessage(db, { phoneId: "ph_a", waMessageId: "3EB0AA", message: image, sentAtMs: 2_000 })

    const stored = loadSentWaMessage(db, "ph_a", "3EB0AA")
    expect(Buffer.from(stored!).equals(Buffer.from(image))).toBe(true)
    expect(proto.Message.decode(stored!).imageMessage?.caption).toBe("pic")
    expect(loadSentWaMessage(db, "ph_b", "3EB0AA")).toBeNull()
    expect(loadSentWaMessage(db, "ph_a", "3EB0BB")).toBeNull()
  })

  test("pruning deletes only messages sent before the cutoff, oldest first, at most `limit` per call", () => {
    const db = openDatabase(":memory:")
    migrate(db, 0)
    for (let i = 0; i < 5; i++) saveSentWaMessage(db, { phoneId: "ph_a", waMessageId: `OLD${i}`, message: encode({ conversation: `${i}` }), sentAtMs: 100 + i })
    saveSentWaMessage(db, { phoneId: "ph_a", waMessageId: "YOUNG", message: encode({ conversation: "y" }), sentAtMs: 1_000 })

    expect(pruneSentWaMessages(db, 1_000, 3)).toBe(3)
    expect(["OLD0", "OLD2", "OLD3", "OLD4"].map((id) => loadSentWaMessage(db, "ph_a", id) !== null)).toEqual([false, false, true, true])
    expect(pruneSentWaMessages(db, 1_000, 3)).toBe(2)
    expect(pruneSentWaMessages(db, 1_000, 3)).toBe(0)
    expect(loadSentWaMessage(db, "ph_a", "YOUNG")).not.toBeNull()
  })
})

describe("retention of stored WhatsApp messages", () => {
  let h: Harness
  afterEach(() => h.close())
  const store = (waMessageId: string, sentAtMs: number) =>
    h.services.ctx.store.write((q) => q.saveSentWaMessage({ phoneId: "ph_r", waMessageId, message: encode({ conversation: waMessageId }), sentAtMs }))
  const kept = (waMessageId: string) => loadSentWaMessage(h.services.sqlite!, "ph_r", waMessageId) !== null

  test("by default a message is kept 7 days: passes run a minute after start, then every hour, and delete more than one batch", async () => {
    h = await createHarness()
    const now = h.clock.nowMs()
    for (let i = 0; i < WA_RESEND_BATCH + 3; i++) await store(`OLD${i}`, now - 7 * DAY_MS - 1 - i)
    await store("SIX_DAYS", now - 6 * DAY_MS)
    await store("ALMOST", now - 7 * DAY_MS + 30 * 60_000)

    await h.advance(WA_RESEND_FIRST_DELAY_MS - 1)
    expect(kept("OLD0")).toBe(true)
    await h.advance(1)
    expect([kept("OLD0"), kept(`OLD${WA_RESEND_BATCH + 2}`), kept("ALMOST"), kept("SIX_DAYS")]).toEqual([false, false, true, true])

    // The pass wrote in two batches; let it finish and book the next pass before time moves on.
    for (let turn = 0; turn < 10; turn++) await h.advance(0)
    await h.advance(WA_RESEND_INTERVAL_MS - 1)
    expect(kept("ALMOST")).toBe(true)
    await h.advance(1)
    expect([kept("ALMOST"), kept("SIX_DAYS")]).toEqual([false, true])
  })

  test("WAGATE_WA_RESEND_RETENTION_DAYS sets the retention", async () => {
    h = await createHarness({ env: { WAGATE_WA_RESEND_RETENTION_DAYS: "1" } })
    await store("TWO_DAYS", h.clock.nowMs() - 2 * DAY_MS)
    await store("AN_HOUR", h.clock.nowMs() - 3_600_000)
    await h.advance(WA_RESEND_FIRST_DELAY_MS)
    expect([kept("TWO_DAYS"), kept("AN_HOUR")]).toEqual([false, true])
  })

  test("message secrets are kept 30 days whatever the resend retention, and pruned by the same pass", async () => {
    h = await createHarness({ env: { WAGATE_WA_RESEND_RETENTION_DAYS: "0" } })
    const now = h.clock.nowMs()
    const secret = (waMessageId: string, createdAtMs: number) => ({
      phoneId: "ph_r",
      chatJid: "15550002222@s.whatsapp.net",
      waMessageId,
      senderJid: "15550002222@s.whatsapp.net",
      senderAltJid: null,
      secret: new Uint8Array(32).fill(5),
      createdAtMs,
    })
    await h.services.ctx.store.write((q) => q.saveMessageSecrets([secret("OLD", now - MESSAGE_SECRET_RETENTION_DAYS * DAY_MS - 1), secret("YOUNG", now - 29 * DAY_MS)]))
    const secretKept = async (id: string) => (await h.services.ctx.store.findMessageSecrets("ph_r", id)).length === 1
    await h.advance(WA_RESEND_FIRST_DELAY_MS)
    for (let turn = 0; turn < 10; turn++) await h.advance(0)
    expect([await secretKept("OLD"), await secretKept("YOUNG")]).toEqual([false, true])
  })
})
