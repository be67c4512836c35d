import { expect, setDefaultTimeout, test } from "bun:test"
import { bornFailed, bornPending, bornSent } from "../../../src/domain/message-status"
import { IdempotencyKeyTaken, type MessageRow } from "../../../src/store/messages"
import { TEST_EPOCH_MS } from "../../helpers/test-clock"
import { SLOW_TEST_TIMEOUT_MS } from "../../helpers/timeouts"
import { newMessage, seedMessage, signal } from "./message-fixtures"
import { describeStores } from "./stores"

/* The outbound message queries (MessagesQueries): writes, look-ups and the sandbox's due times, on both stores. */

setDefaultTimeout(SLOW_TEST_TIMEOUT_MS)

const T = TEST_EPOCH_MS
const NO_COUNTS = { pending: 0, sent: 0, delivered: 0, read: 0, failed: 0 }

describeStores("messages: insert and look-ups", (open) => {
  test("every field reads back as written, nulls, unicode and JSON columns included", async () => {
    const store = await open()
    const full = {
      ...newMessage({ idempotencyKey: "order-ü-1", replyTo: "inmsg_quoted", content: "héllo 👋 שלום\n\"quoted\" \\ back" }),
      toAddress: "120363111111111111@g.us",
      isGroup: true,
      mediaUrls: ["https://files.example.com/ä b.png", "https://files.example.com/2.pdf"],
      extras: { mentions: ["+14155550111"], location: { latitude: 52.52, longitude: -13.405, name: "Café ☕", address: "Straße 1" }, voiceNote: true as const },
      sandboxDeliveredDueMs: T + 1_000,
      sandboxReadDueMs: T + 2_000,
      errorCode: null,
    }
    const stored = await store.write((q) => q.insertMessage(full))
    expect(stored).toEqual({ ...full, replyTo: "inmsg_quoted", seq: stored.seq, editedAtMs: null, revokedAtMs: null })
    expect(typeof stored.seq).toBe("number")
    expect(await store.findMessage(stored.id)).toEqual(stored)

    const bare = await seedMessage(store, { birth: bornPending() })
    const read = (await store.findMessage(bare.id))!
    expect(read).toEqual(bare)
    expect(read).toMatchObject({ status: "pending", sentAtMs: null, idempotencyKey: null, replyTo: null, extras: null, sandboxDeliveredDueMs: null, sandboxReadDueMs: null })
    const failed = await seedMessage(store, { birth: bornFailed(T, "recipient_not_on_whatsapp", "not on WhatsApp ✗") })
    expect(await store.findMessage(failed.id)).toEqual(failed)
    expect(failed).toMatchObject({ status: "failed", failedAtMs: T, errorCode: "recipient_not_on_whatsapp", errorMessage: "not on WhatsApp ✗" })
  })

  test("seq grows with every insert of a partition, and each partition counts its own", async () => {
    const store = await open()
    const order = [["acc_a", "test"], ["acc_a", "live"], ["acc_a", "test"], ["acc_b", "test"], ["acc_a", "test"]] as const
    const rows: MessageRow[] = []
    for (const [accountId, env] of order) rows.push(await seedMessage(store, { accountId, env }))
    const seqsOf = (accountId: string, env: string) => rows.filter((r) => r.accountId === accountId && r.env === env).map((r) => r.seq)
    const aTest = seqsOf("acc_a", "test")
    expect(aTest).toEqual([...aTest].sort((a, b) => a - b))
    expect(new Set(aTest).size).toBe(3)
    expect(await store.countMessages("acc_a", "test")).toBe(3)
    expect(await store.countMessages("acc_a", "live")).toBe(1)
    expect(await store.countMessages("acc_a")).toBe(4)
    expect(await store.countMessages("acc_b")).toBe(1)
    expect(await store.countMessages("acc_z")).toBe(0)
  })

  test("findMessages returns the ones that exist, findScopedMessage only within its account and environment", async () => {
    const store = await open()
    const a = await seedMessage(store)
    const b = await seedMessage(store, { env: "live" })
    const found = await store.findMessages([b.id, "msg_missing", a.id])
    expect(found.sort((x, y) => x.id.localeCompare(y.id))).toEqual([a, b])
    expect(await store.findMessages([])).toEqual([])
    expect(await store.findMessages([a.id, a.id])).toEqual([a])
    expect(await store.findMessage("msg_missing")).toBeNull()
    expect((await store.findScopedMessage("acc_a", "test", a.id))?.id).toBe(a.id)
    expect(await store.findScopedMessage("acc_a", "live", a.id)).toBeNull()
    expect(await store.findScopedMessage("acc_b", "test", a.id)).toBeNull()
    expect(await store.findScopedMessage("acc_a", "test", "msg_missing")).toBeNull()
  })

  test("an idempotency key belongs to one account and environment", async () => {
    const store = await open()
    const test1 = await seedMessage(store, { idempotencyKey: "order-7" })
    const live1 = await seedMessage(store, { idempotencyKey: "order-7", env: "live" })
    const other = await seedMessage(store, { idempotencyKey: "order-7", accountId: "acc_b" })
    expect(await store.findMessageByIdempotencyKey("acc_a", "test", "order-7")).toEqual(test1)
    expect((await store.findMessageByIdempotencyKey("acc_a", "live", "order-7"))?.id).toBe(live1.id)
    expect((await store.findMessageByIdempotencyKey("acc_b", "test", "order-7"))?.id).toBe(other.id)
    expect(await store.findMessageByIdempotencyKey("acc_a", "test", "order-8")).toBeNull()
  })

  test("a taken idempotency key throws IdempotencyKeyTaken, leaves nothing behind, and the write goes on to find the winner", async () => {
    const store = await open()
    const first = await seedMessage(store, { idempotencyKey: "k", birth: bornPending() })
    const outcome = await store.write(async (q) => {
      try {
        await q.insertMessage(newMessage({ idempotencyKey: "k" }))
        return null
      } catch (err) {
        if (!(err instanceof IdempotencyKeyTaken)) throw err
        return { err, winner: await q.findMessageByIdempotencyKey("acc_a", "test", "k") }
      }
    })
    expect(outcome?.err).toMatchObject({ accountId: "acc_a", env: "test", idempotencyKey: "k" })
    expect(outcome?.winner).toEqual(first)
    expect(await store.countMessages("acc_a", "test")).toBe(1)
    expect(await store.countMessagesSince("acc_a", "test", T)).toEqual({ ...NO_COUNTS, pending: 1 })
    const next = await seedMessage(store)
    expect(next.seq).toBeGreaterThan(first.seq)
    const page = await store.listMessages({ accountId: "acc_a", env: "test", limit: 10, offset: 0 })
    expect({ ids: page.rows.map((r) => r.id), total: page.total }).toEqual({ ids: [next.id, first.id], total: 2 })
    expect((await store.listMessages({ accountId: "acc_a", env: "test", limit: 1, offset: 1 })).rows.map((r) => r.id)).toEqual([first.id])
  })

  test("concurrent sends with one key create one message, and every one of them finds it", async () => {
    const store = await open()
    const started: (() => void)[] = []
    // Each body waits until all have looked the key up, so on PostgreSQL they all find nothing and
    // race to insert. SQLite runs one write body at a time, so its bodies cannot wait for each other.
    const allLookedUp = store.kind === "postgres" ? Promise.all([0, 1, 2].map(() => new Promise<void>((r) => started.push(r)))) : null
    const send = (i: number) =>
      store.write(async (q) => {
        const existing = await q.findMessageByIdempotencyKey("acc_a", "test", "same")
        started[i]?.()
        await allLookedUp
        if (existing) return existing.id
        try {
          return (await q.insertMessage(newMessage({ idempotencyKey: "same" }))).id
        } catch (err) {
          if (!(err instanceof IdempotencyKeyTaken)) throw err
          return (await q.findMessageByIdempotencyKey("acc_a", "test", "same"))!.id
        }
      })
    const ids = await Promise.all([0, 1, 2].map(send))
    expect(new Set(ids).size).toBe(1)
    expect(await store.countMessages("acc_a", "test")).toBe(1)
  })

  test("a duplicate message id is refused, not taken for a replay", async () => {
    const store = await open()
    const first = await seedMessage(store, { id: "msg_dup" })
    await expect(store.write((q) => q.insertMessage(newMessage({ id: "msg_dup" })))).rejects.toThrow()
    expect(await store.findMessage("msg_dup")).toEqual(first)
    expect(await store.countMessages("acc_a", "test")).toBe(1)
  })
})

describeStores("messages: status batches", (open) => {
  test("a batch writes every patch, returns the rows as patched and moves the counters by the net change", async () => {
    const store = await open()
    const a = await seedMessage(store, { birth: bornPending() })
    const b = await seedMessage(store, { birth: bornSent(T), phoneId: "ph_2" })
    const c = await seedMessage(store, { birth: bornSent(T), sandboxDeliveredDueMs: T + 10, sandboxReadDueMs: T + 20 })
    const now = T + 500
    const sent = { ...bornSent(T + 100).state, sandboxDeliveredDueMs: null, sandboxReadDueMs: null }
    const delivered = { ...sent, status: "delivered" as const, deliveredAtMs: T + 200 }
    const failed = { ...bornFailed(T + 300, "send_timeout", "no ack — ⏱").state, sandboxDeliveredDueMs: null, sandboxReadDueMs: null }
    const cPatch = { ...c, status: "read" as const, deliveredAtMs: T + 10, readAtMs: T + 20, sandboxDeliveredDueMs: null, sandboxReadDueMs: null }
    const updated = await store.write((q) =>
      q.updateMessageStatuses(
        [
          { before: a, patch: sent },
          { before: { ...a, ...sent }, patch: delivered },
          { before: b, patch: failed },
          { before: c, patch: cPatch },
        ],
        now,
      ),
    )
    expect(updated).toEqual([
      { ...a, ...sent, updatedAtMs: now },
      { ...a, ...delivered, updatedAtMs: now },
      { ...b, ...failed, updatedAtMs: now },
      { ...c, ...cPatch, updatedAtMs: now },
    ])
    expect(await store.findMessage(a.id)).toEqual(updated[1]!)
    expect(await store.findMessage(b.id)).toEqual(updated[2]!)
    expect(await store.findMessage(c.id)).toEqual(updated[3]!)
    expect(await store.countMessagesSince("acc_a", "test", T)).toEqual({ ...NO_COUNTS, delivered: 1, failed: 1, read: 1 })
    expect(await store.listMessages({ accountId: "acc_a", env: "test", status: "sent", limit: 10, offset: 0 })).toEqual({ rows: [], total: 0 })
    expect((await store.listMessages({ accountId: "acc_a", env: "test", phoneId: "ph_2", status: "failed", limit: 10, offset: 0 })).total).toBe(1)
    expect(await store.countMessages("acc_a", "test")).toBe(3)
  })

  test("an empty batch writes nothing, and a patch that keeps the status moves no counter", async () => {
    const store = await open()
    expect(await store.write((q) => q.updateMessageStatuses([], T))).toEqual([])
    const m = await seedMessage(store, { birth: bornSent(T) })
    await signal(store, m.id, { kind: "read", atMs: T + 10 }, T + 10)
    const late = await signal(store, m.id, { kind: "delivered", atMs: T + 20 }, T + 20)
    expect(late).toMatchObject({ status: "read", deliveredAtMs: T + 20, readAtMs: T + 10, updatedAtMs: T + 20 })
    expect(await store.findMessage(m.id)).toEqual(late)
    expect(await store.countMessagesSince("acc_a", "test", T)).toEqual({ ...NO_COUNTS, read: 1 })
  })

  test("a status change counts on the day the message was created, not the day it changed", async () => {
    const store = await open()
    const m = await seedMessage(store, { birth: bornPending(), createdAtMs: T + 3_600_000 })
    const later = T + 3 * 86_400_000
    await signal(store, m.id, { kind: "sent", atMs: later }, later)
    expect(await store.countMessagesSince("acc_a", "test", T)).toEqual({ ...NO_COUNTS, sent: 1 })
    expect(await store.countMessagesSince("acc_a", "test", later - (later % 86_400_000))).toEqual(NO_COUNTS)
  })
})

describeStores("messages: sandbox due times", (open) => {
  test("due messages come earliest first, at most `limit`, and the next due time skips none", async () => {
    const store = await open()
    expect(await store.nextSandboxDueMs()).toBeNull()
    expect(await store.listSandboxDueMessages(T + 1_000_000, 10)).toEqual([])
    const late = await seedMessage(store, { sandboxDeliveredDueMs: T + 300, sandboxReadDueMs: T + 900 })
    const early = await seedMessage(store, { sandboxDeliveredDueMs: T + 100, sandboxReadDueMs: T + 200 })
    const readOnly = await seedMessage(store, { sandboxReadDueMs: T + 250 })
    await seedMessage(store)
    expect(await store.nextSandboxDueMs()).toBe(T + 100)
    expect(await store.listSandboxDueMessages(T + 99, 10)).toEqual([])
    expect((await store.listSandboxDueMessages(T + 300, 10)).map((r) => r.id)).toEqual([early.id, readOnly.id, late.id])
    expect((await store.listSandboxDueMessages(T + 300, 2)).map((r) => r.id)).toEqual([early.id, readOnly.id])
    expect((await store.listSandboxDueMessages(T + 250, 10))[1]).toEqual(readOnly)
  })

  test("the next due time after a moment counts the later read of an overdue message", async () => {
    const store = await open()
    // At T+150: `early` is overdue (delivered at 100) with its read due at 200; `late` falls due at 300.
    await seedMessage(store, { sandboxDeliveredDueMs: T + 100, sandboxReadDueMs: T + 200 })
    await seedMessage(store, { sandboxDeliveredDueMs: T + 300, sandboxReadDueMs: T + 900 })
    expect(await store.nextSandboxDueAfterMs(T + 150)).toBe(T + 200)
    expect(await store.nextSandboxDueAfterMs(T + 50)).toBe(T + 100)
    expect(await store.nextSandboxDueAfterMs(T + 250)).toBe(T + 300)
    expect(await store.nextSandboxDueAfterMs(T + 300)).toBe(T + 900)
    expect(await store.nextSandboxDueAfterMs(T + 900)).toBeNull()
  })

  test("clearing the due times in a status batch takes a message off the sandbox's list", async () => {
    const store = await open()
    const m = await seedMessage(store, { sandboxDeliveredDueMs: T + 100, sandboxReadDueMs: T + 200 })
    await store.write(async (q) => {
      const [due] = await q.listSandboxDueMessages(T + 100, 10)
      const patch = { ...due!, status: "delivered" as const, deliveredAtMs: T + 100, sandboxDeliveredDueMs: null }
      await q.updateMessageStatuses([{ before: due!, patch }], T + 100)
    })
    expect(await store.nextSandboxDueMs()).toBe(T + 200)
    expect(await store.listSandboxDueMessages(T + 150, 10)).toEqual([])
    expect((await store.listSandboxDueMessages(T + 200, 10)).map((r) => r.id)).toEqual([m.id])
  })
})
