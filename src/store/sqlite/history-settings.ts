import type { Database } from "bun:sqlite"
import type { HistorySync } from "../../lib/vocabulary"
import type { HistorySettings, HistorySettingsQueries } from "../history-settings"

/*
 * SQLite migration 29, as PostgreSQL migration 17: a phone's history settings
 * (src/store/history-settings.ts), one row per phone that set them.
 */
export const HISTORY_SETTINGS_SQL = `
CREATE TABLE phone_history_settings (
  phone_id TEXT PRIMARY KEY REFERENCES phones(id) ON DELETE CASCADE,
  history_sync TEXT NOT NULL CHECK (history_sync IN ('none', 'recent', 'full')),
  history_days INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL
) STRICT;
`

const SAVE = `INSERT INTO phone_history_settings (phone_id, history_sync, history_days, updated_at_ms) VALUES (?, ?, ?, ?)
  ON CONFLICT (phone_id) DO UPDATE SET history_sync = excluded.history_sync, history_days = excluded.history_days, updated_at_ms = excluded.updated_at_ms`
const FIND = `SELECT phone_id AS phoneId, history_sync AS historySync, history_days AS historyDays, updated_at_ms AS updatedAtMs
  FROM phone_history_settings WHERE phone_id = ?`

export function sqliteHistorySettingsQueries(db: Database): HistorySettingsQueries {
  return {
    findHistorySettings: async (phoneId) => {
      const r = db.query<{ phoneId: string; historySync: string; historyDays: number; updatedAtMs: number }, [string]>(FIND).get(phoneId)
      return r === null ? null : ({ ...r, historySync: r.historySync as HistorySync } satisfies HistorySettings)
    },
    saveHistorySettings: async (s) => {
      db.query(SAVE).run(s.phoneId, s.historySync, s.historyDays, s.updatedAtMs)
    },
  }
}
