import type { Database } from "bun:sqlite"
import type { LabelRow } from "../labels"

/* A phone's labels (src/store/labels.ts): one row per phone, environment and label id. */

const COLUMNS = "phone_id AS phoneId, env, label_id AS labelId, name, color, deleted, updated_at_ms AS updatedAtMs"

export function upsertLabel(db: Database, r: LabelRow): void {
  db.query(`INSERT INTO labels (phone_id, env, label_id, name, color, deleted, updated_at_ms) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
    ON CONFLICT (phone_id, env, label_id) DO UPDATE SET name = ?4, color = ?5, deleted = ?6, updated_at_ms = ?7`).run(r.phoneId, r.env, r.labelId, r.name, r.color, r.deleted ? 1 : 0, r.updatedAtMs)
}

export function listLabels(db: Database, phoneId: string, env: string, withDeleted: boolean): LabelRow[] {
  const rows = db
    .query<Omit<LabelRow, "deleted"> & { deleted: number }, [string, string, number]>(`SELECT ${COLUMNS} FROM labels WHERE phone_id = ?1 AND env = ?2 AND (deleted = 0 OR ?3 = 1) ORDER BY length(label_id), label_id`)
    .all(phoneId, env, withDeleted ? 1 : 0)
  return rows.map((r) => ({ ...r, deleted: r.deleted === 1 }))
}
