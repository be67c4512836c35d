/*
 * PostgreSQL migration 9: when the offline-marker watchdog last released a phone's held inbound
 * events because WhatsApp's <ib><offline> marker had not come (docs/live-whatsapp.md § "Receiving
 * stalls"), as SQLite migration 21. NULL when never.
 */
export const OFFLINE_WATCHDOG_SQL = `ALTER TABLE phones ADD COLUMN offline_watchdog_at_ms int8;`
