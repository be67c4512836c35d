import type { SQL } from "bun"
import type { LabelRow, LabelsQueries } from "../labels"
import { toNumber } from "./rows"

/* src/store/sqlite/labels.ts on PostgreSQL: the same statements, the same rows in the same order. */

const COLUMNS = `phone_id AS "phoneId", env, label_id AS "labelId", name, color, deleted, updated_at_ms AS "updatedAtMs"`

export function pgLabelsQueries(sql: SQL): LabelsQueries {
  return {
    async upsertLabel(r) {
      await sql.unsafe(
        `INSERT INTO labels (phone_id, env, label_id, name, color, deleted, updated_at_ms) VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (phone_id, env, label_id) DO UPDATE SET name = $4, color = $5, deleted = $6, updated_at_ms = $7`,
        [r.phoneId, r.env, r.labelId, r.name, r.color, r.deleted, r.updatedAtMs],
      )
    },
    async listLabels(phoneId, env, options) {
      const rows = (await sql.unsafe(`SELECT ${COLUMNS} FROM labels WHERE phone_id = $1 AND env = $2 AND (NOT deleted OR $3) ORDER BY length(label_id), label_id`, [phoneId, env, options?.withDeleted ?? false])) as (Omit<LabelRow, "updatedAtMs"> & { updatedAtMs: string })[]
      return rows.map((r) => ({ ...r, updatedAtMs: toNumber(r.updatedAtMs) }))
    },
  }
}
