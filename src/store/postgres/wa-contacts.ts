import type { SQL } from "bun"
import type { WaContactsQueries } from "../store"
import type { WaContactRow } from "../wa-contacts"
import { toNumber } from "./rows"

/* src/store/sqlite/wa-contacts.ts on PostgreSQL: the same statements, the same rows in the same order. */

interface PgWaContact extends Omit<WaContactRow, "updatedAtMs"> {
  updatedAtMs: string
}

const COLUMNS = `phone_id AS "phoneId", address, lid, phone_number AS "phoneNumber", username, push_name AS "pushName",
  updated_at_ms AS "updatedAtMs"`

const UPSERT = `INSERT INTO wa_contacts AS c (phone_id, address, lid, phone_number, username, push_name, updated_at_ms)
  VALUES ($1, $2, $3, $4, $5, $6, $7)
  ON CONFLICT (phone_id, address) DO UPDATE SET lid = COALESCE(EXCLUDED.lid, c.lid),
    phone_number = COALESCE(EXCLUDED.phone_number, c.phone_number), username = COALESCE(EXCLUDED.username, c.username),
    push_name = COALESCE(EXCLUDED.push_name, c.push_name), updated_at_ms = GREATEST(c.updated_at_ms, EXCLUDED.updated_at_ms)`

const fromPg = (r: PgWaContact): WaContactRow => ({ ...r, updatedAtMs: toNumber(r.updatedAtMs) })

/** The WhatsApp contact queries of the seam on `sql` (the pool, or the write's transaction). */
export function pgWaContactsQueries(sql: SQL): WaContactsQueries {
  return {
    async upsertWaContact(c) {
      await sql.unsafe(UPSERT, [c.phoneId, c.address, c.lid, c.phoneNumber, c.username, c.pushName, c.updatedAtMs])
    },
    async findWaContact(phoneId, address) {
      const [r] = (await sql.unsafe(`SELECT ${COLUMNS} FROM wa_contacts WHERE phone_id = $1 AND address = $2`, [phoneId, address])) as PgWaContact[]
      return r === undefined ? null : fromPg(r)
    },
    async listWaContacts(phoneId, limit) {
      const rows = (await sql.unsafe(`SELECT ${COLUMNS} FROM wa_contacts WHERE phone_id = $1 ORDER BY updated_at_ms DESC, address LIMIT $2`, [
        phoneId,
        limit,
      ])) as PgWaContact[]
      return rows.map(fromPg)
    },
  }
}
