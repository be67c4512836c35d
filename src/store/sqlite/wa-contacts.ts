import type { Database } from "bun:sqlite"
import type { WaContactRow } from "../wa-contacts"

/*
 * The senders a phone hears from, as WhatsApp named them (docs/live-whatsapp.md § "Usernames and
 * LID-only senders"): one row per phone and sender address, the `from` wagate records (E.164, or
 * the `…@lid` when WhatsApp hid the number). A contacts API can grow from this table.
 */

const COLUMNS = `phone_id AS phoneId, address, lid, phone_number AS phoneNumber, username, push_name AS pushName,
  updated_at_ms AS updatedAtMs`

// A value WhatsApp did not repeat this time (null) keeps the one seen before: stanzas name the
// username, the number or the push name only sometimes.
const UPSERT = `INSERT INTO wa_contacts (phone_id, address, lid, phone_number, username, push_name, updated_at_ms)
  VALUES ($phoneId, $address, $lid, $phoneNumber, $username, $pushName, $updatedAtMs)
  ON CONFLICT (phone_id, address) DO UPDATE SET lid = COALESCE(excluded.lid, lid),
    phone_number = COALESCE(excluded.phone_number, phone_number), username = COALESCE(excluded.username, username),
    push_name = COALESCE(excluded.push_name, push_name), updated_at_ms = MAX(updated_at_ms, excluded.updated_at_ms)`

/** Records what a message told about its sender; fields it left out keep their stored values. */
export function upsertWaContact(db: Database, row: WaContactRow): void {
  db.query(UPSERT).run({ ...row })
}

/** One sender of a phone by its address, or null. */
export function findWaContact(db: Database, phoneId: string, address: string): WaContactRow | null {
  return db.query<WaContactRow, [string, string]>(`SELECT ${COLUMNS} FROM wa_contacts WHERE phone_id = ? AND address = ?`).get(phoneId, address)
}

/** A phone's senders, most recently seen first, at most `limit`. */
export function listWaContacts(db: Database, phoneId: string, limit: number): WaContactRow[] {
  return db
    .query<WaContactRow, [string, number]>(`SELECT ${COLUMNS} FROM wa_contacts WHERE phone_id = ? ORDER BY updated_at_ms DESC, address LIMIT ?`)
    .all(phoneId, limit)
}
