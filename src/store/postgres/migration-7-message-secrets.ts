/*
 * PostgreSQL migration 7: the messageContextInfo.messageSecret of every WhatsApp message a phone
 * sends or receives, as SQLite migration 19 (the comment there says why chat and sender are part
 * of the key, and how long a row is kept). An encrypted edit that reaches another node after a
 * failover is decrypted with the secret the first node stored.
 */
export const MESSAGE_SECRETS_SQL = `
CREATE TABLE wa_message_secrets (
  phone_id text COLLATE "C" NOT NULL,
  chat_jid text COLLATE "C" NOT NULL,
  wa_message_id text COLLATE "C" NOT NULL,
  sender_jid text COLLATE "C" NOT NULL,
  sender_alt_jid text COLLATE "C",
  secret bytea NOT NULL,
  created_at_ms int8 NOT NULL,
  PRIMARY KEY (phone_id, wa_message_id, chat_jid, sender_jid)
);
CREATE INDEX wa_message_secrets_created ON wa_message_secrets (created_at_ms);
`
