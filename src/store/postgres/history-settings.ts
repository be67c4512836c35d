import type { SQL } from "bun"
import type { HistorySync } from "../../lib/vocabulary"
import type { HistorySettingsQueries } from "../history-settings"
import { toNumber } from "./rows"

/* PostgreSQL migration 17, as SQLite migration 29 (src/store/sqlite/history-settings.ts): a phone's history settings. */
export const HISTORY_SETTINGS_SQL = `CREATE TABLE phone_history_settings (
  phone_id text COLLATE "C" PRIMARY KEY REFERENCES phones(id) ON DELETE CASCADE,
  history_sync text COLLATE "C" NOT NULL CHECK (history_sync IN ('none', 'recent', 'full')),
  history_days int4 NOT NULL,
  updated_at_ms int8 NOT NULL
);`

const SAVE = `INSERT INTO phone_history_settings (phone_id, history_sync, history_days, updated_at_ms) VALUES ($1, $2, $3, $4)
  ON CONFLICT (phone_id) DO UPDATE SET history_sync = EXCLUDED.history_sync, history_days = EXCLUDED.history_days, updated_at_ms = EXCLUDED.updated_at_ms`
const FIND = `SELECT phone_id AS "phoneId", history_sync AS "historySync", history_days AS "historyDays", updated_at_ms AS "updatedAtMs"
  FROM phone_history_settings WHERE phone_id = $1`

export function pgHistorySettingsQueries(sql: SQL): HistorySettingsQueries {
  return {
    async findHistorySettings(phoneId) {
      const [r] = (await sql.unsafe(FIND, [phoneId])) as { phoneId: string; historySync: string; historyDays: number; updatedAtMs: string }[]
      return r === undefined ? null : { ...r, historySync: r.historySync as HistorySync, updatedAtMs: toNumber(r.updatedAtMs) }
    },
    async saveHistorySettings(s) {
      await sql.unsafe(SAVE, [s.phoneId, s.historySync, s.historyDays, s.updatedAtMs])
    },
  }
}
