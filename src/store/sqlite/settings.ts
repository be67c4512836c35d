import type { Database } from "bun:sqlite"
import type { SettingKey } from "../settings"

const SELECT_SETTING = "SELECT value FROM settings WHERE key = ?"
const UPSERT_SETTING = "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value"
const INSERT_SETTING_UNLESS_SET = "INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING"

/** One setting, or null when unset. */
export function getSetting(db: Database, key: SettingKey): string | null {
  return db.query<{ value: string }, [string]>(SELECT_SETTING).get(key)?.value ?? null
}

/** Sets one setting. */
export function setSetting(db: Database, key: SettingKey, value: string): void {
  db.query(UPSERT_SETTING).run(key, value)
}

/** Sets one setting unless it is set already: the first writer's value stays. */
export function insertSettingUnlessSet(db: Database, key: SettingKey, value: string): void {
  db.query(INSERT_SETTING_UNLESS_SET).run(key, value)
}
