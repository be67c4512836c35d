/*
 * PostgreSQL migration 10, as SQLite migration 22: the WhatsApp Web version the phone's last
 * connect announced, and the expiry WhatsApp announced for that build (`<ib><client_expiration>`,
 * docs/live-whatsapp.md § "Client expiration"), kept for `wagate doctor` and the pairing state.
 */
export const PHONES_WA_CLIENT_SQL = `ALTER TABLE phones ADD COLUMN wa_version text COLLATE "C", ADD COLUMN client_expires_at_ms int8;`
