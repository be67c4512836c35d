import type { SQL } from "bun"
import type { WaKeyChange } from "../wa-auth"
import type { WaAuthQueries } from "../store"
import { atomically, toNumber } from "./rows"

const SELECT_CREDS = "SELECT data FROM wa_creds WHERE phone_id = $1"
const UPSERT_CREDS = `INSERT INTO wa_creds (phone_id, data, updated_at_ms) VALUES ($1, $2, $3)
  ON CONFLICT (phone_id) DO UPDATE SET data = excluded.data, updated_at_ms = excluded.updated_at_ms`
const HAS_CREDS = "SELECT 1 AS present FROM wa_creds WHERE phone_id = $1"
const SELECT_KEYS = "SELECT id, data FROM wa_keys WHERE phone_id = $1 AND type = $2 AND id = ANY($3::text[])"
// A Signal session update is hundreds of keys (812 prekeys at the first login): one statement
// for the writes and one for the deletes, over arrays, instead of one per key.
const UPSERT_KEYS = `INSERT INTO wa_keys (phone_id, type, id, data)
  SELECT $1, k.type, k.id, k.data FROM unnest($2::text[], $3::text[], $4::text[]) AS k(type, id, data)
  ON CONFLICT (phone_id, type, id) DO UPDATE SET data = excluded.data`
const DELETE_KEYS_LISTED = `DELETE FROM wa_keys WHERE phone_id = $1
  AND (type, id) IN (SELECT k.type, k.id FROM unnest($2::text[], $3::text[]) AS k(type, id))`
const DELETE_CREDS = "DELETE FROM wa_creds WHERE phone_id = $1"
const DELETE_KEYS = "DELETE FROM wa_keys WHERE phone_id = $1"
const COUNT_KEYS = "SELECT COUNT(*) AS n FROM wa_keys WHERE phone_id = $1"

/**
 * The net effect of `changes` applied in order: the last change of each key wins. One INSERT …
 * ON CONFLICT may not touch a row twice, and the deletes run apart from the writes. Keys are
 * sorted so that two transactions writing overlapping keys lock them in the same order.
 */
function netChanges(changes: readonly WaKeyChange[]): { upserts: WaKeyChange[]; deletes: WaKeyChange[] } {
  const last = new Map<string, WaKeyChange>()
  for (const c of changes) {
    const key = `${c.type}\u0000${c.id}`
    last.delete(key)
    last.set(key, c)
  }
  const sorted = [...last.values()].sort((a, b) => (a.type === b.type ? cmp(a.id, b.id) : cmp(a.type, b.type)))
  return { upserts: sorted.filter((c) => c.data !== null), deletes: sorted.filter((c) => c.data === null) }
}

const cmp = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

/** src/store/sqlite/wa-auth.ts on PostgreSQL. */
export function pgWaAuthQueries(sql: SQL): WaAuthQueries {
  return {
    async readCreds(phoneId) {
      const [row] = await sql.unsafe<{ data: string }[]>(SELECT_CREDS, [phoneId])
      return row?.data ?? null
    },
    async upsertCreds(phoneId, data, updatedAtMs) {
      await sql.unsafe(UPSERT_CREDS, [phoneId, data, updatedAtMs])
    },
    async hasCreds(phoneId) {
      return (await sql.unsafe(HAS_CREDS, [phoneId])).length > 0
    },
    async getKeys(phoneId, type, ids) {
      const out = new Map<string, string>()
      if (ids.length === 0) return out
      for (const row of await sql.unsafe<{ id: string; data: string }[]>(SELECT_KEYS, [phoneId, type, [...ids]])) out.set(row.id, row.data)
      return out
    },
    async setKeys(phoneId, changes) {
      if (changes.length === 0) return
      const { upserts, deletes } = netChanges(changes)
      await atomically(sql, async (tx) => {
        if (deletes.length > 0) await tx.unsafe(DELETE_KEYS_LISTED, [phoneId, deletes.map((c) => c.type), deletes.map((c) => c.id)])
        if (upserts.length > 0) await tx.unsafe(UPSERT_KEYS, [phoneId, upserts.map((c) => c.type), upserts.map((c) => c.id), upserts.map((c) => c.data)])
      })
    },
    async wipeAuth(phoneId) {
      await atomically(sql, async (tx) => {
        await tx.unsafe(DELETE_CREDS, [phoneId])
        await tx.unsafe(DELETE_KEYS, [phoneId])
      })
    },
    async countKeys(phoneId) {
      const [row] = await sql.unsafe(COUNT_KEYS, [phoneId])
      return toNumber(row.n)
    },
  }
}
