import type { Database } from "bun:sqlite"
import type { WaKeyChange } from "../wa-auth"

/*
 * WhatsApp credentials and Signal keys of one phone (tables of migration 3). The store keeps
 * them as opaque JSON text: turning Buffers into JSON and back is the adapter's business, so
 * this module stays free of Baileys.
 */

const SELECT_CREDS = "SELECT data FROM wa_creds WHERE phone_id = ?"

/** The phone's credentials JSON, or null when it has none. */
export function readCreds(db: Database, phoneId: string): string | null {
  return db.query<{ data: string }, [string]>(SELECT_CREDS).get(phoneId)?.data ?? null
}

const UPSERT_CREDS = `INSERT INTO wa_creds (phone_id, data, updated_at_ms) VALUES ($phoneId, $data, $updatedAtMs)
  ON CONFLICT (phone_id) DO UPDATE SET data = excluded.data, updated_at_ms = excluded.updated_at_ms`

/** Stores the phone's credentials JSON, replacing what was there. */
export function upsertCreds(db: Database, phoneId: string, data: string, updatedAtMs: number): void {
  db.query(UPSERT_CREDS).run({ phoneId, data, updatedAtMs })
}

const HAS_CREDS = "SELECT 1 AS present FROM wa_creds WHERE phone_id = ?"

/**
 * True when a credentials row exists. That is not the same as "paired": a pairing that was
 * started and never finished leaves credentials too (the adapter decides pairing from their content).
 */
export function hasCreds(db: Database, phoneId: string): boolean {
  return db.query<{ present: number }, [string]>(HAS_CREDS).get(phoneId) !== null
}

// json_each turns one bound JSON array into a set, so a batch of ids is one statement, not one per id.
const SELECT_KEYS = `SELECT id, data FROM wa_keys
  WHERE phone_id = $phoneId AND type = $type AND id IN (SELECT value FROM json_each($ids))`

/** The stored keys of one type among `ids`, as id → JSON; missing ids are simply absent. */
export function getKeys(db: Database, phoneId: string, type: string, ids: readonly string[]): Map<string, string> {
  const out = new Map<string, string>()
  if (ids.length === 0) return out
  const rows = db.query<{ id: string; data: string }, { phoneId: string; type: string; ids: string }>(SELECT_KEYS).all({
    phoneId,
    type,
    ids: JSON.stringify(ids),
  })
  for (const row of rows) out.set(row.id, row.data)
  return out
}

const UPSERT_KEY = `INSERT INTO wa_keys (phone_id, type, id, data) VALUES ($phoneId, $type, $id, $data)
  ON CONFLICT (phone_id, type, id) DO UPDATE SET data = excluded.data`
const DELETE_KEY = "DELETE FROM wa_keys WHERE phone_id = $phoneId AND type = $type AND id = $id"

/**
 * Writes and deletes many keys in one transaction (a savepoint when the caller already has one,
 * as inside the Writer), so a Signal session update is never half stored.
 */
export function setKeys(db: Database, phoneId: string, changes: readonly WaKeyChange[]): void {
  if (changes.length === 0) return
  const upsert = db.query(UPSERT_KEY)
  const remove = db.query(DELETE_KEY)
  db.transaction(() => {
    for (const { type, id, data } of changes) {
      if (data === null) remove.run({ phoneId, type, id })
      else upsert.run({ phoneId, type, id, data })
    }
  })()
}

const DELETE_CREDS = "DELETE FROM wa_creds WHERE phone_id = ?"
const DELETE_KEYS = "DELETE FROM wa_keys WHERE phone_id = ?"

/** Forgets a phone's credentials and every key, together (logout, removal, a pairing started over). */
export function wipeAuth(db: Database, phoneId: string): void {
  db.transaction(() => {
    db.query(DELETE_CREDS).run(phoneId)
    db.query(DELETE_KEYS).run(phoneId)
  })()
}

const COUNT_KEYS = "SELECT COUNT(*) AS n FROM wa_keys WHERE phone_id = ?"

/** How many keys a phone has (diagnostics and tests: the first login stores 812 prekeys). */
export function countKeys(db: Database, phoneId: string): number {
  return db.query<{ n: number }, [string]>(COUNT_KEYS).get(phoneId)?.n ?? 0
}
