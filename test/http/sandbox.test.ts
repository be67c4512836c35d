import { afterEach, beforeEach, describe, expect, test } from "bun:test"
import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { createSandboxScheduler } from "../../src/domain/sandbox"
import { createScheduler } from "../../src/lib/scheduler"
import { findMessage, insertMessage } from "../../src/store/sqlite/messages"
import { createHarness, type Harness } from "../helpers/harness"
import { TestClock } from "../helpers/test-clock"

let h: Harness
beforeEach(async () => {
  h = await createHarness()
})
afterEach(() => h.close())

/** Sends to `to` and returns the message as read back after `waitMs` of simulated time. */
async function sendAndWait(to: string, waitMs = 10_000) {
  const { key, phone } = await h.seedTenant()
  const created = await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to, content: "x" } })
  expect(created.status).toBe(201)
  await h.advance(waitMs)
  const later = await h.request("GET", `/v1/messages/${created.body.data.id}`, { key })
  return { created: created.body.data, later: later.body.data, phone }
}

describe("sandbox magic recipients (API-DECISIONS §7)", () => {
  test("+12025550101 is born failed with recipient_not_on_whatsapp and never moves", async () => {
    const { created, later } = await sendAndWait("+12025550101")
    expect(created).toMatchObject({ status: "failed", errorCode: "recipient_not_on_whatsapp", sentAt: null })
    expect(created.failedAt).toBe(created.createdAt)
    expect(created.errorMessage).toBe("+12025550101 is not on WhatsApp")
    expect(later).toEqual(created)
  })

  test("+12025550102 has read receipts off: delivered, never read", async () => {
    const { later } = await sendAndWait("+12025550102", 3_600_000)
    expect(later.status).toBe("delivered")
    expect(later.readAt).toBeNull()
  })

  test("+12025550103 skips delivered: sent then read", async () => {
    const { created, later } = await sendAndWait("+12025550103")
    expect(later.status).toBe("read")
    expect(later.deliveredAt).toBeNull()
    expect(later.readAt).toBe(new Date(Date.parse(created.createdAt) + 3_000).toISOString())
  })

  test("+12025550104 is offline: stays sent", async () => {
    const { later } = await sendAndWait("+12025550104", 3_600_000)
    expect(later).toMatchObject({ status: "sent", deliveredAt: null, readAt: null })
  })

  test("+12025550105 is born failed with account_restricted", async () => {
    const { created } = await sendAndWait("+12025550105", 0)
    expect(created).toMatchObject({ status: "failed", errorCode: "account_restricted" })
    expect(created.errorMessage).toContain("463")
  })

  test("any other number goes sent → delivered → read", async () => {
    const { created, later } = await sendAndWait("+447700900123")
    expect(created.status).toBe("sent")
    expect(later.status).toBe("read")
    expect(later.deliveredAt).toBe(new Date(Date.parse(created.createdAt) + 1_000).toISOString())
  })
})

describe("sandbox groups", () => {
  test("GET /v1/groups lists the two sandbox groups for any phone of the account", async () => {
    const { key, phone } = await h.seedTenant()
    const res = await h.request("GET", `/v1/groups?fromPhoneId=${encodeURIComponent(phone.phoneNumber)}`, { key })
    expect(res.status).toBe(200)
    expect(res.body).toEqual({
      success: true,
      data: [
        { id: "120363000000000001@g.us", name: "Sandbox Team", isCommunityAnnounce: false },
        { id: "120363000000000002@g.us", name: "Sandbox Announcements", isCommunityAnnounce: true },
      ],
    })
  })

  test.each(["120363000000000001@g.us", "120363000000000002@g.us"])("a send to %s is a group send that progresses to read", async (group) => {
    const { created, later } = await sendAndWait(group)
    expect(created).toMatchObject({ isGroup: true, groupId: group, to: group, status: "sent" })
    expect(later.status).toBe("read")
  })

  test("a send to any other group is accepted (201) and born failed with group_not_allowed", async () => {
    const { created, phone } = await sendAndWait("120363999999999999@g.us", 0)
    expect(created).toMatchObject({ isGroup: true, groupId: "120363999999999999@g.us", status: "failed", errorCode: "group_not_allowed" })
    expect(created.errorMessage).toBe(`Phone ${phone.phoneNumber} cannot post to group 120363999999999999@g.us`)
  })
})

describe("scheduled transitions survive a restart", () => {
  test("transitions due while the server was down are applied at the next start, with their due times", async () => {
    const dir = require("node:fs").mkdtempSync(require("node:path").join(require("node:os").tmpdir(), "wagate-restart-"))
    const databasePath = `${dir}/wagate.db`
    try {
      const first = await createHarness({ databasePath })
      const { key, phone } = await first.seedTenant()
      const sent = await first.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "x" } })
      await first.close()

      // Ten minutes later a new process starts on the same database.
      const { TestClock } = await import("../helpers/test-clock")
      const second = await createHarness({ databasePath, clock: new TestClock(first.clock.nowMs() + 600_000) })
      try {
        // Overdue transitions fire on the wheel's next tick (10 ms).
        await second.advance(10)
        const m = (await second.request("GET", `/v1/messages/${sent.body.data.id}`, { key })).body.data
        const createdMs = Date.parse(sent.body.data.createdAt)
        expect(m).toMatchObject({
          status: "read",
          deliveredAt: new Date(createdMs + 1_000).toISOString(),
          readAt: new Date(createdMs + 3_000).toISOString(),
        })
        const left = second.services.sqlite!
          .query("SELECT COUNT(*) AS n FROM messages WHERE sandbox_delivered_due_ms IS NOT NULL OR sandbox_read_due_ms IS NOT NULL")
          .get() as { n: number }
        expect(left.n).toBe(0)
      } finally {
        await second.close()
      }
    } finally {
      require("node:fs").rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe("transitions falling due together", () => {
  test("several messages, each with delivered and read due in the same tick, step through both, with one event per step and exact counters", async () => {
    const same = await createHarness({ env: { WAGATE_SANDBOX_DELIVERED_MS: "1000", WAGATE_SANDBOX_READ_MS: "1000" } })
    try {
      const { key, phone, account } = await same.seedTenant()
      // Subscribed, so the outbox keeps every event; the receiver's port is closed, which is fine here.
      await same.request("POST", `/admin/v1/accounts/${account.id}/webhooks`, {
        key: await same.adminToken(),
        body: { url: "http://127.0.0.1:9/hook", environment: "test", events: ["*"] },
      })
      const ids: string[] = []
      for (let i = 0; i < 3; i++) {
        const res = await same.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: `m${i}` } })
        ids.push(res.body.data.id)
      }
      await same.advance(1_000)
      for (const id of ids) {
        const m = (await same.request("GET", `/v1/messages/${id}`, { key })).body.data
        expect(m.status).toBe("read")
        expect(m.deliveredAt).toBe(m.readAt)
        const events = same.services.sqlite!
          .query("SELECT type FROM events WHERE body LIKE ? ORDER BY id")
          .all(`%${id}%`)
          .map((e: any) => e.type)
        expect(events).toEqual(["message.sent", "message.delivered", "message.read"])
      }
      const total = async (status: string) => (await same.request("GET", `/v1/messages?status=${status}`, { key })).body.data.pagination.total
      expect([await total("sent"), await total("delivered"), await total("read")]).toEqual([0, 0, 3])
    } finally {
      await same.close()
    }
  })
})

/** Subscribes the account to every event, so the outbox keeps them (the receiver's closed port does not matter here). */
async function subscribe(target: Harness, accountId: string) {
  await target.request("POST", `/admin/v1/accounts/${accountId}/webhooks`, {
    key: await target.adminToken(),
    body: { url: "http://127.0.0.1:9/hook", environment: "test", events: ["*"] },
  })
}

/** The event types stored for a message, in the order they were written. */
function eventsOf(target: Harness, messageId: string): string[] {
  return target.services.sqlite!
    .query("SELECT type FROM events WHERE body LIKE ? ORDER BY id")
    .all(`%${messageId}%`)
    .map((e: any) => e.type)
}

describe("sweeps of due transitions", () => {
  test("due times are stored on the message row and cleared as each transition applies", async () => {
    const { key, phone } = await h.seedTenant()
    const sent = await h.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "x" } })
    const createdMs = Date.parse(sent.body.data.createdAt)
    const dues = () =>
      h.services.sqlite!
        .query("SELECT sandbox_delivered_due_ms AS d, sandbox_read_due_ms AS r FROM messages WHERE id = ?")
        .get(sent.body.data.id)
    expect(dues()).toEqual({ d: createdMs + 1_000, r: createdMs + 3_000 })
    await h.advance(1_000)
    expect(dues()).toEqual({ d: null, r: createdMs + 3_000 })
    await h.advance(2_000)
    expect(dues()).toEqual({ d: null, r: null })
  })

  test("a backlog larger than one sweep is applied over successive ticks, each transition once, delivered before read", async () => {
    const { account, phone } = await h.seedTenant()
    await subscribe(h, account.id)
    const ctx = h.services.ctx
    const t0 = h.clock.nowMs()
    // Rows as a send leaves them, written straight to the store so that only the scheduler
    // under test (three messages a sweep) knows of them.
    const ids = await ctx.store.write(async (q) => {
      const inserted: string[] = []
      for (let i = 0; i < 7; i++) {
        const row = await q.insertMessage({
          id: `msg_backlog${i}`, accountId: account.id, env: "test", phoneId: phone.id, apiKeyId: "key_backlog",
          fromNumber: phone.phoneNumber, toAddress: "+14155550199", isGroup: false, content: `m${i}`, mediaUrls: [],
          status: "sent", idempotencyKey: null, requestFingerprint: "fp", createdAtMs: t0, sentAtMs: t0, deliveredAtMs: null,
          readAtMs: null, failedAtMs: null, errorCode: null, errorMessage: null, updatedAtMs: t0,
          sandboxDeliveredDueMs: t0 + 1_000 + i, sandboxReadDueMs: t0 + 3_000 + i,
        })
        inserted.push(row.id)
      }
      return inserted
    })
    const scheduler = createScheduler(h.clock)
    try {
      const sandbox = createSandboxScheduler(ctx, scheduler, 3)
      h.clock.advance(10_000)
      await sandbox.start()
      const stillSent = () => (h.services.sqlite!.query("SELECT COUNT(*) AS n FROM messages WHERE status = 'sent'").get() as { n: number }).n
      // One millisecond at a time, so at most one tick (one sweep) passes per step.
      const seen: number[] = []
      for (let ms = 0; ms < 100 && stillSent() > 0; ms++) {
        await h.advance(1)
        if (stillSent() !== (seen.at(-1) ?? 7)) seen.push(stillSent())
      }
      expect(seen).toEqual([4, 1, 0])
      for (const [i, id] of ids.entries()) {
        const m = findMessage(h.services.sqlite!, id)!
        expect(m).toMatchObject({ status: "read", deliveredAtMs: t0 + 1_000 + i, readAtMs: t0 + 3_000 + i, sandboxDeliveredDueMs: null, sandboxReadDueMs: null })
        expect(eventsOf(h, id)).toEqual(["message.delivered", "message.read"])
      }
      // Nothing is left to sweep, and nothing was armed for later.
      expect(scheduler.size).toBe(0)
    } finally {
      scheduler.stop()
    }
  })

  test("a restart between delivered and read applies read at its due time without repeating delivered", async () => {
    const dir = mkdtempSync(join(tmpdir(), "wagate-restart-"))
    try {
      const first = await createHarness({ databasePath: `${dir}/wagate.db` })
      const { key, phone, account } = await first.seedTenant()
      await subscribe(first, account.id)
      const sent = await first.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "x" } })
      const id = sent.body.data.id
      await first.advance(1_500)
      expect((await first.request("GET", `/v1/messages/${id}`, { key })).body.data.status).toBe("delivered")
      await first.close()

      const second = await createHarness({ databasePath: `${dir}/wagate.db`, clock: new TestClock(first.clock.nowMs() + 60_000) })
      try {
        await second.advance(10)
        const m = (await second.request("GET", `/v1/messages/${id}`, { key })).body.data
        expect(m).toMatchObject({ status: "read", readAt: new Date(Date.parse(sent.body.data.createdAt) + 3_000).toISOString() })
        expect(eventsOf(second, id)).toEqual(["message.sent", "message.delivered", "message.read"])
        const total = async (status: string) => (await second.request("GET", `/v1/messages?status=${status}`, { key })).body.data.pagination.total
        expect([await total("sent"), await total("delivered"), await total("read")]).toEqual([0, 0, 1])
      } finally {
        await second.close()
      }
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  test("a send while a later sweep is armed arms an earlier one", async () => {
    const slow = await createHarness({ env: { WAGATE_SANDBOX_DELIVERED_MS: "5000", WAGATE_SANDBOX_READ_MS: "5000" } })
    try {
      const { key, phone } = await slow.seedTenant()
      // +12025550103 has no delivered step: its read at 5 s arms the sweep.
      const late = await slow.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: "+12025550103", content: "x" } })
      await slow.advance(4_000)
      const early = await slow.request("POST", "/v1/messages/send", { key, body: { fromPhoneId: phone.phoneNumber, to: "+14155550199", content: "y" } })
      await slow.advance(1_000)
      expect((await slow.request("GET", `/v1/messages/${late.body.data.id}`, { key })).body.data.status).toBe("read")
      expect((await slow.request("GET", `/v1/messages/${early.body.data.id}`, { key })).body.data.status).toBe("sent")
      await slow.advance(4_000)
      expect((await slow.request("GET", `/v1/messages/${early.body.data.id}`, { key })).body.data.status).toBe("read")
    } finally {
      await slow.close()
    }
  })
})
