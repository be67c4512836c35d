import type { HistorySync } from "../lib/vocabulary"

/*
 * How much of its chats' past a phone asks WhatsApp for when it is paired (docs/admin.md §
 * "History on pairing"): one row per phone that set it (SQLite migration 29, PostgreSQL
 * migration 17); a phone without one has the defaults.
 */

export interface HistorySettings {
  phoneId: string
  historySync: HistorySync
  /** Messages older than this many days are not stored (1..3650). */
  historyDays: number
  updatedAtMs: number
}

/** src/store/sqlite/history-settings.ts and src/store/postgres/history-settings.ts */
export interface HistorySettingsQueries {
  /** A phone's history settings, or null when it never set them (the defaults apply). */
  findHistorySettings(phoneId: string): Promise<HistorySettings | null>
  /** Sets a phone's history settings, replacing what it had. */
  saveHistorySettings(settings: HistorySettings): Promise<void>
}
