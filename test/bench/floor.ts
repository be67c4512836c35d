import { mkdtempSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { ulidGenerator } from "../../src/lib/ids"
import type { Clock } from "../../src/lib/clock"
import { migrate, openDatabase } from "../../src/store/db"
import { findMessageByIdempotencyKey, findMessages, insertMessage, updateMessageStatuses } from "../../src/store/messages"
import { insertSandboxTransition, takeSandboxTransitions } from "../../src/store/sandbox-transitions"
import { createWriter } from "../../src/store/writer"

/*
 * The floors under two targets, so a figure that misses one can be read against what the
 * contract itself costs on this machine. Run by `bun run bench` pinned to the server's core;
 * prints one JSON line.
 *
 * - Store floor of a sandbox send: only the writes API-DECISIONS §5 and §7 require, through
 *   the store's own functions and the group-commit writer, with synchronous=FULL on a file:
 *   the idempotency lookup, the message row (its sequence and counters), its two promised
 *   transitions, and later those transitions applied (delivered, then read). No HTTP, auth,
 *   validation, events or JSON.
 * - Fetch floor of a webhook delivery: Bun's fetch POSTing a delivery-sized body to the
 *   benchmark's receiver, 64 at a time, with no database at all: its rate, and its CPU time per
 *   fetch (this process's own, user and system).
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
            })
            insertSandboxTransition(wdb, { messageId: m.id, status: "delivered", dueAtMs: nowMs + 1_000 })
            insertSandboxTransition(wdb, { messageId: m.id, status: "read", dueAtMs: nowMs + 3_000 })
            sent.push(m.id)
          }),
        )
      }
      await Promise.all(writes)
    }
    for (const step of ["delivered", "read"] as const) {
      for (let done = 0; done < sent.length; done += BATCH) {
        const batch = sent.slice(done, done + BATCH)
        nowMs += 1
        await writer.write((wdb) => {
          const taken = takeSandboxTransitions(wdb, batch.map((messageId) => ({ messageId, status: step })))
          const rows = findMessages(wdb, taken.map((t) => t.messageId))
          const patch = (m: (typeof rows)[number]) => ({ ...m, status: step, deliveredAtMs: m.deliveredAtMs ?? nowMs, readAtMs: step === "read" ? nowMs : null })
          updateMessageStatuses(wdb, rows.map((m) => ({ before: m, patch: patch(m) })), nowMs)
        })
      }
    }
    const usPerSend = ((performance.now() - t0) * 1000) / SENDS
    db.close()
    return usPerSend
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

async function fetchFloor(base: string): Promise<{ perSecond: number; cpuUsPerFetch: number }> {
  const body = JSON.stringify({ event: "message.sent", timestamp: new Date(0).toISOString(), data: { messageId: "msg_".padEnd(30, "0"), from: "+14155550123", to: "+12025550104", isGroup: false, groupId: null, status: "sent", sentAt: new Date(0).toISOString(), deliveredAt: null, readAt: null, failedAt: null, errorCode: null, errorMessage: null } })
  const headers = { "Content-Type": "application/json", "X-Wagate-Signature": `t=0,v1=${"0".repeat(64)}`, "X-Wagate-Event-Id": "evt_".padEnd(30, "0") }
  await fetch(`${base}/switch`)
  let started = 0
  const one = async () => {
    while (started < FETCHES) {
      started++
      const res = await fetch(`${base}/hook`, { method: "POST", headers, body })
      await res.arrayBuffer()
      if (!res.ok) throw new Error(`receiver answered ${res.status}`)
    }
  }
  const t0 = performance.now()
  const cpu0 = process.cpuUsage()
  await Promise.all(Array.from({ length: 64 }, one))
  const cpu = process.cpuUsage(cpu0)
  return { perSecond: FETCHES / ((performance.now() - t0) / 1000), cpuUsPerFetch: (cpu.user + cpu.system) / FETCHES }
}

const storeUsPerSend = process.env.BENCH_FLOOR_SENDS === "0" ? null : await storeFloorUsPerSend()
const fetched = receiverBase ? await fetchFloor(receiverBase) : null
console.log(JSON.stringify({ storeUsPerSend, fetchesPerSecond: fetched?.perSecond ?? null, fetchCpuUs: fetched?.cpuUsPerFetch ?? null }))
