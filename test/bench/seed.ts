import { statSync } from "node:fs"
import { ulidGenerator } from "../../src/lib/ids"
import { migrate, openDatabase } from "../../src/store/sqlite/db"
import { insertMessage } from "../../src/store/sqlite/messages"
import type { Clock } from "../../src/lib/clock"

/**
 * Fills an account with `count` sandbox messages straight through the store (the same insert
 * and counters the API uses), in large transactions, so the list benchmark has 1,000,000 rows
 * without sending them one by one. Runs while no server holds the data directory. With
 * `untilBytes` it goes on until the database file is at least that large (the growth check).
 */
export function seedMessages(
  dbPath: string,
  opts: { accountId: string; phoneId: string; phoneNumber: string; keyId: string; count: number; env?: "test" | "live"; content?: string; untilBytes?: number },
): void {
  const db = openDatabase(dbPath)
  // Bulk load: durability per row is not the point here, and the server re-opens with FULL.
  db.run("PRAGMA synchronous = OFF")
  let nowMs = Date.UTC(2026, 0, 1)
  const clock: Clock = { nowMs: () => nowMs, setTimer: () => ({ cancel() {} }) }
  migrate(db, nowMs)
  const ids = ulidGenerator(clock)
  const batch = 10_000
  const bytes = () => {
    db.run("PRAGMA wal_checkpoint(TRUNCATE)")
    return statSync(dbPath).size
  }
  // With `untilBytes`, batches go on past `count` until the file is at least that large.
  for (let done = 0; done < opts.count || (opts.untilBytes !== undefined && bytes() < opts.untilBytes); done += batch) {
    db.transaction(() => {
      for (let i = 0; i < (opts.untilBytes === undefined ? Math.min(batch, opts.count - done) : batch); i++) {
        nowMs += 1
        insertMessage(db, {
          id: ids.newId("msg"),
          accountId: opts.accountId,
          env: opts.env ?? "test",
          phoneId: opts.phoneId,
          apiKeyId: opts.keyId,
          fromNumber: opts.phoneNumber,
          toAddress: "+14155550199",
          isGroup: false,
          content: opts.content ?? "seeded message for the list benchmark",
          mediaUrls: [],
          idempotencyKey: null,
          requestFingerprint: "seed",
          createdAtMs: nowMs,
          updatedAtMs: nowMs,
          status: "read",
          sentAtMs: nowMs,
          deliveredAtMs: nowMs + 1000,
          readAtMs: nowMs + 3000,
          failedAtMs: null,
          errorCode: null,
          errorMessage: null,
        })
      }
    })()
  }
  db.run("PRAGMA wal_checkpoint(TRUNCATE)")
  db.run("ANALYZE")
  db.close()
}
