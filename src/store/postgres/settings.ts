import type { SQL } from "bun"
import type { SettingsQueries } from "../store"

const SELECT_SETTING = "SELECT value FROM settings WHERE key = $1"
const UPSERT_SETTING = "INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
// A second writer racing the first waits on the key's unique index, then inserts nothing.
const INSERT_SETTING_UNLESS_SET = "INSERT INTO settings (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING"

/** src/store/sqlite/settings.ts on PostgreSQL. */
export function pgSettingsQueries(sql: SQL): SettingsQueries {
  return {
    async getSetting(key) {
      const [row] = await sql.unsafe(SELECT_SETTING, [key])
      return (row?.value as string | undefined) ?? null
    },
    async setSetting(key, value) {
      await sql.unsafe(UPSERT_SETTING, [key, value])
    },
    async insertSettingUnlessSet(key, value) {
      await sql.unsafe(INSERT_SETTING_UNLESS_SET, [key, value])
    },
  }
}
