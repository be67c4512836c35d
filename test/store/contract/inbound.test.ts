import { expect, setDefaultTimeout, test } from "bun:test"
import type { InboundRow } from "../../../src/store/inbound"
import { TEST_EPOCH_MS } from "../../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../../helpers/timeouts"
import { newInbound } from "./message-fixtures"
import { describeStores, type ContractStore } from "./stores"

/* The inbound message and reaction queries (InboundQueries) on both stores. */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const T = TEST_EPOCH_MS

const insert = (store: ContractStore, row: Omit<InboundRow, "seq">) => store.write((q) => q.insertInbound(row))

describeStores("inbound messages", (open) => {
  test("every field reads back as written, JSON columns, nulls and unicode included", async () => {
    const store = await open()
    const full = newInbound(1, {
      content: "ça va? 👍 مرحبا",
      fromAddress: "123456789012345@lid",
      fromUsername: "ada.lovelace_1",
      type: "image",
      isGroup: true,
      groupId: "120363111111111111@g.us",
      replyToId: "msg_quoted",
      media: { mimetype: "image/jpeg", sizeBytes: 12_345, fileName: "фото.jpg", capKind: "image", descriptor: '{"url":"x","k":"\\u0000"}' },
      mediaGoneAtMs: T + 9,
      location: { latitude: -33.8688, longitude: 151.2093, name: "Opera ♫" },
      contact: { name: "Zoë", phoneNumbers: ["+14155550111", "+14155550112"], organization: "Ünï", email: "z@example.com" },
      editedAtMs: T + 7,
      revokedAtMs: T + 8,
    })
    const stored = (await insert(store, full))!
    expect(stored).toEqual({ ...full, seq: stored.seq })
    expect(typeof stored.seq).toBe("number")
    expect(await store.findInbound(full.id)).toEqual(stored)
    const bare = (await insert(store, newInbound(2)))!
    expect(await store.findInbound(bare.id)).toEqual(bare)
    expect(bare).toMatchObject({ groupId: null, media: null, location: null, contact: null, replyToId: null, isGroup: false })
    expect(await store.findInbound("inmsg_missing")).toBeNull()
  })

  test("a redelivered WhatsApp id inserts nothing and returns null; the same id on another phone is another message", async () => {
    const store = await open()
    const first = (await insert(store, newInbound(1)))!
    expect(await insert(store, newInbound(2, { waMessageId: "WA1" }))).toBeNull()
    expect(await store.findInbound(newInbound(2).id)).toBeNull()
    expect((await store.listInbound({ accountId: "acc_1", env: "live", limit: 10, offset: 0 })).total).toBe(1)
    const other = (await insert(store, newInbound(3, { waMessageId: "WA1", phoneId: "ph_2" })))!
    expect(other.seq).toBeGreaterThan(first.seq)
    expect(await store.findInboundByWaId("ph_1", "WA1")).toEqual(first)
    expect(await store.findInboundByWaId("ph_2", "WA1")).toEqual(other)
    expect(await store.findInboundByWaId("ph_3", "WA1")).toBeNull()
  })

  test("concurrent deliveries of one WhatsApp id record it once", async () => {
    const store = await open()
    const results = await Promise.all([1, 2, 3].map((n) => insert(store, newInbound(n, { waMessageId: "WA-same" }))))
    expect(results.filter((r) => r !== null)).toHaveLength(1)
    expect((await store.listInbound({ accountId: "acc_1", env: "live", limit: 10, offset: 0 })).total).toBe(1)
  })

  test("findScopedInbound sees a message only in its own account and environment", async () => {
    const store = await open()
    const m = (await insert(store, newInbound(1)))!
    expect(await store.findScopedInbound("acc_1", "live", m.id)).toEqual(m)
    expect(await store.findScopedInbound("acc_1", "test", m.id)).toBeNull()
    expect(await store.findScopedInbound("acc_2", "live", m.id)).toBeNull()
  })

  test("pages and keyset windows are ORDER BY seq DESC with the counters' total, per partition and phone", async () => {
    const store = await open()
    const rows: InboundRow[] = []
    for (let n = 1; n <= 17; n++) {
      rows.push((await insert(store, newInbound(n, { phoneId: n % 3 === 0 ? "ph_2" : "ph_1" })))!)
      // Noise in other partitions, interleaved so that seq is not dense on PostgreSQL.
      await insert(store, newInbound(1000 + n, { env: "test" }))
      if (n % 2 === 0) await insert(store, newInbound(2000 + n, { accountId: "acc_2" }))
    }
    for (const phoneId of [undefined, "ph_1", "ph_2", "ph_none"]) {
      const all = rows.filter((r) => phoneId === undefined || r.phoneId === phoneId).sort((a, b) => b.seq - a.seq)
      for (const limit of [1, 4, 17, 50]) {
        for (let offset = 0; offset <= all.length + limit; offset += limit) {
          const got = await store.listInbound({ accountId: "acc_1", env: "live", phoneId, limit, offset })
          expect({ phoneId, limit, offset, ids: got.rows.map((r) => r.id), total: got.total }).toEqual({
            phoneId, limit, offset, ids: all.slice(offset, offset + limit).map((r) => r.id), total: all.length,
          })
        }
        let beforeSeq: number | null = null
        const walked: InboundRow[] = []
        for (let guard = 0; guard < 60; guard++) {
          const page = await store.listInboundWindow({ accountId: "acc_1", env: "live", phoneId, beforeSeq, limit })
          expect(page).toEqual(all.filter((r) => beforeSeq === null || r.seq < beforeSeq).slice(0, limit))
          if (page.length === 0) break
          walked.push(...page)
          beforeSeq = page.at(-1)!.seq
        }
        expect(walked).toEqual(all)
      }
    }
    expect(await store.listInbound({ accountId: "acc_9", env: "live", limit: 10, offset: 0 })).toEqual({ rows: [], total: 0 })
    expect(await store.listInboundWindow({ accountId: "acc_9", env: "live", beforeSeq: null, limit: 10 })).toEqual([])
  })

  test("edits, revokes, a new media descriptor and gone media are written to the message", async () => {
    const store = await open()
    const media = { mimetype: "video/mp4", sizeBytes: 1, fileName: null, capKind: "video" as const, descriptor: "d1" }
    const m = (await insert(store, newInbound(1, { media })))!
    await store.write(async (q) => {
      await q.markInboundEdited(m.id, "edited ✎", T + 1)
      await q.markInboundRevoked(m.id, T + 2)
      await q.updateInboundMediaDescriptor(m.id, { ...media, descriptor: "d2 ü" })
      await q.markInboundMediaGone(m.id, T + 3)
    })
    expect(await store.findInbound(m.id)).toEqual({ ...m, content: "edited ✎", editedAtMs: T + 1, revokedAtMs: T + 2, media: { ...media, descriptor: "d2 ü" }, mediaGoneAtMs: T + 3 })
  })

  test("a reaction per person per message: a new one replaces it, an empty one removes it, listed oldest first", async () => {
    const store = await open()
    await store.write(async (q) => {
      await q.recordReaction("msg_1", "+14155550111", "👍", T + 30)
      await q.recordReaction("msg_1", "+14155550122", "❤️", T + 10)
      await q.recordReaction("msg_1", "+14155550133", "😂", T + 20)
      await q.recordReaction("inmsg_2", "+14155550111", "🙏", T + 5)
    })
    expect(await store.listReactions("msg_1")).toEqual([
      { fromAddress: "+14155550122", emoji: "❤️", atMs: T + 10 },
      { fromAddress: "+14155550133", emoji: "😂", atMs: T + 20 },
      { fromAddress: "+14155550111", emoji: "👍", atMs: T + 30 },
    ])
    await store.write(async (q) => {
      await q.recordReaction("msg_1", "+14155550122", "🔥", T + 40)
      await q.recordReaction("msg_1", "+14155550133", "", T + 50)
      await q.recordReaction("msg_1", "+14155550199", "", T + 60)
    })
    expect(await store.listReactions("msg_1")).toEqual([
      { fromAddress: "+14155550111", emoji: "👍", atMs: T + 30 },
      { fromAddress: "+14155550122", emoji: "🔥", atMs: T + 40 },
    ])
    expect(await store.listReactions("inmsg_2")).toEqual([{ fromAddress: "+14155550111", emoji: "🙏", atMs: T + 5 }])
    expect(await store.listReactions("msg_none")).toEqual([])
  })
})
