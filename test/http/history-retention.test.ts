import { afterEach, describe, expect, test } from "bun:test"
import { HISTORY_RETENTION_BATCH, HISTORY_RETENTION_FIRST_DELAY_MS, HISTORY_RETENTION_INTERVAL_MS } from "../../src/domain/history-retention"
import type { ChatMessageRow } from "../../src/store/chats"
import { createHarness, type Harness } from "../helpers/harness"

/*
 * WAGATE_HISTORY_RETENTION_DAYS (docs/operations.md § "Retention"): the sweeper on the shared
 * scheduler and the injected clock deletes echo and history messages older than the retention;
 * unset, nothing is ever deleted.
 */

const DAY_MS = 86_400_000
const CHAT = "+14155550166"
let h: Harness
afterEach(() => h.close())

let phoneId = ""
let accountId = ""
async function setUp(env: Record<string, string> = {}) {
  h = await createHarness({ env })
  const tenant = await h.seedTenant()
  accountId = tenant.account.id
  phoneId = tenant.phone.id
}

let n = 0
async function storeHistory(atMs: number, count = 1): Promise<string[]> {
  const rows: ChatMessageRow[] = Array.from({ length: count }, () => {
    const i = ++n
    return { id: `wamsg_ret_${String(i).padStart(6, "0")}`, accountId, env: "live", phoneId, waMessageId: `HR${i}`, chatId: CHAT, origin: "history", direction: "in",
      fromAddress: CHAT, type: "text", content: `old ${i}`, media: null, location: null, contact: null, poll: null, replyToId: null, status: null,
      editedAtMs: null, revokedAtMs: null, atMs: atMs + i, createdAtMs: h.clock.nowMs() }
  })
  await h.services.ctx.store.write((q) => q.recordHistoryBatch(rows))
  return rows.map((r) => r.id)
}

const kept = () => (h.services.sqlite!.query("SELECT COUNT(*) AS n FROM chat_messages").get() as { n: number }).n

describe("history retention", () => {
  test("passes run by themselves a minute after start and then every hour, deleting more than one batch; the chat stays listed", async () => {
    await setUp({ WAGATE_HISTORY_RETENTION_DAYS: "30" })
    await storeHistory(h.clock.nowMs() - 400 * DAY_MS, HISTORY_RETENTION_BATCH + 3)
    await h.advance(HISTORY_RETENTION_FIRST_DELAY_MS)
    expect(kept()).toBe(0)
    expect(await h.services.ctx.store.findChat(phoneId, "live", CHAT)).not.toBeNull()

    // Thirty days minus half an hour old now: old enough within the next hour.
    await storeHistory(h.clock.nowMs() - 30 * DAY_MS + 1_800_000)
    await h.advance(HISTORY_RETENTION_INTERVAL_MS - 1)
    expect(kept()).toBe(1)
    await h.advance(1)
    expect(kept()).toBe(0)
  })

  test("unset, every echo and history message is kept however old", async () => {
    await setUp()
    await storeHistory(h.clock.nowMs() - 3_650 * DAY_MS, 3)
    await h.advance(HISTORY_RETENTION_FIRST_DELAY_MS + 2 * HISTORY_RETENTION_INTERVAL_MS)
    expect(await h.services.historyRetention.prune()).toBe(0)
    expect(kept()).toBe(3)
  })
})
