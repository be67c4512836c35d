import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ulidGenerator } from "../../src/lib/ids"
import type { Clock } from "../../src/lib/clock"
import { migrate, openDatabase } from "../../src/store/sqlite/db"
import { findMessageByIdempotencyKey, insertMessage, listSandboxDueMessages, nextSandboxDueMs, updateMessageStatuses } from "../../src/store/sqlite/messages"
import { createWriter } from "../../src/store/sqlite/writer"

/*
 * The floors under two targets, so a figure that misses one can be read against what the
 * contract itself costs on this machine. Run by `bun run bench` pinned to the server's core;
 * prints one JSON line.
 *
 * - Store floor of a sandbox send: only the writes API-DECISIONS §5 and §7 require, through
 *   the store's own functions and the group-commit writer, with synchronous=FULL on a file:
 *   the idempotency lookup, the message row (its sequence and counters) with the due times of
 *   its two promised transitions, and later those transitions applied by sweeps, as the
 *   sandbox scheduler does (delivered, then read; one statement per message and sweep). No
 *   HTTP, auth, validation, events or JSON.
 * - Fetch floor of a webhook delivery: Bun's fetch POSTing a delivery-sized body to the
 *   benchmark's receiver, 64 at a time, with no database at all: its rate, and its CPU time per
 *   fetch (this process's own, user and system), asked as deliveries ask it (no redirects, no
 *   compression, the short answer read as text). Deliveries go through `fetch`, so this is
 *   the floor under the webhook target (docs/performance.md).
 */

const SENDS = Number(process.env.BENCH_FLOOR_SENDS ?? 40_000)
const BATCH = 40 // the average group-commit batch the send case sees at 64 connections
const FETCHES = Number(process.env.BENCH_FLOOR_FETCHES ?? 20_000)
const receiverBase = process.argv[2]

async function storeFloorUsPerSend(): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), "wagate-floor-"))
  try {
    const db = openDatabase(join(dir, "floor.db"))
    let nowMs = Date.UTC(2026, 0, 1)
    const clock: Clock = { nowMs: () => nowMs, setTimer: () => ({ cancel() {} }) }
    migrate(db, nowMs)
    const ids = ulidGenerator(clock)
    const writer = createWriter(db)
    const sent: string[] = []
    const t0 = performance.now()
    for (let done = 0; done < SENDS; done += BATCH) {
      const writes: Promise<unknown>[] = []
      for (let i = 0; i < BATCH; i++) {
        nowMs += 1
        const key = `k-${done + i}`
        writes.push(
          writer.write((wdb) => {
            if (findMessageByIdempotencyKey(wdb, "acc_floor", "test", key)) throw new Error("replayed")
            const m = insertMessage(wdb, {
              id: ids.newId("msg"), accountId: "acc_floor", env: "test", phoneId: "ph_floor", apiKeyId: "key_floor",
              fromNumber: "+14155550123", toAddress: "+14155550199", isGroup: false, content: "bench", mediaUrls: [],
              status: "sent", idempotencyKey: key, requestFingerprint: "f".repeat(64), createdAtMs: nowMs, sentAtMs: nowMs,
              deliveredAtMs: null, readAtMs: null, failedAtMs: null, errorCode: null, errorMessage: null, updatedAtMs: nowMs,
              sandboxDeliveredDueMs: nowMs + 1_000, sandboxReadDueMs: nowMs + 3_000,
            })
            sent.push(m.id)
          }),
        )
      }
      await Promise.all(writes)
    }
    // Sweeps as the scheduler makes them, one per BATCH ms of due times (sends were 1 ms
    // apart, so a tick's worth): each takes what is due, applies it in one row write per
    // message, and looks up the next due time.
    const firstCreatedMs = nowMs - sent.length + 1
    for (let sweepMs = firstCreatedMs + 1_000 + BATCH - 1; sweepMs < nowMs + 3_000 + BATCH; sweepMs += BATCH) {
      await writer.write((wdb) => {
        const rows = listSandboxDueMessages(wdb, sweepMs, 2_000)
        const patch = (m: (typeof rows)[number]) => {
          const d = m.sandboxDeliveredDueMs !== null && m.sandboxDeliveredDueMs <= sweepMs ? m.sandboxDeliveredDueMs : null
          const r = m.sandboxReadDueMs !== null && m.sandboxReadDueMs <= sweepMs ? m.sandboxReadDueMs : null
          return {
            ...m, status: r !== null ? ("read" as const) : ("delivered" as const), deliveredAtMs: m.deliveredAtMs ?? d, readAtMs: r,
            sandboxDeliveredDueMs: d === null ? m.sandboxDeliveredDueMs : null, sandboxReadDueMs: r === null ? m.sandboxReadDueMs : null,
          }
        }
        updateMessageStatuses(wdb, rows.map((m) => ({ before: m, patch: patch(m) })), sweepMs)
        nextSandboxDueMs(wdb)
      })
    }
    const left = db.query("SELECT COUNT(*) AS n FROM messages WHERE status <> 'read'").get() as { n: number }
    if (left.n !== 0) throw new Error(`${left.n} messages were not swept to read`)
    const usPerSend = ((performance.now() - t0) * 1000) / SENDS
    db.close()
    return usPerSend
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

async function fetchFloor(base: string): Promise<{ perSecond: number; cpuUsPerFetch: number }> {
  const body = JSON.stringify({ event: "message.sent", timestamp: new Date(0).toISOString(), data: { messageId: "msg_".padEnd(30, "0"), from: "+14155550123", to: "+12025550104", isGroup: false, groupId: null, status: "sent", sentAt: new Date(0).toISOString(), deliveredAt: null, readAt: null, failedAt: null, errorCode: null, errorMessage: null } })
  const headers = { "Content-Type": "application/json", "X-Wagate-Signature": `t=0,v1=${"0".repeat(64)}`, "X-Wagate-Event-Id": "evt_".padEnd(30, "0"), "Accept-Encoding": "identity" }
  await fetch(`${base}/switch`)
  let started = 0
  const one = async () => {
    while (started < FETCHES) {
      started++
      const res = await fetch(`${base}/hook`, { method: "POST", headers, body, redirect: "manual", decompress: false })
      await res.text()
      if (res.status !== 200) throw new Error(`receiver answered ${res.status}`)
    }
  }
  // A warm-up outside the measure, so fetch is compiled and connected before it.
  started = FETCHES - 2_000
  await Promise.all(Array.from({ length: 64 }, one))
  started = 0
  const t0 = performance.now()
  const cpu0 = process.cpuUsage()
  await Promise.all(Array.from({ length: 64 }, one))
  const cpu = process.cpuUsage(cpu0)
  return { perSecond: FETCHES / ((performance.now() - t0) / 1000), cpuUsPerFetch: (cpu.user + cpu.system) / FETCHES }
}

const storeUsPerSend = process.env.BENCH_FLOOR_SENDS === "0" ? null : await storeFloorUsPerSend()
const fetched = receiverBase ? await fetchFloor(receiverBase) : null
console.log(
  JSON.stringify({
    storeUsPerSend,
    fetchesPerSecond: fetched?.perSecond ?? null,
    fetchCpuUs: fetched?.cpuUsPerFetch ?? null,
  }),
)
