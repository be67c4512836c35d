/*
 * PostgreSQL migration 8: usernames and the senders a phone hears from (docs/live-whatsapp.md
 * § "Usernames and LID-only senders"), as SQLite migration 20. The username a message carried
 * is kept on the inbound message; `wa_contacts` holds one row per phone and sender address (the
 * `from` wagate records: E.164, or the `…@lid` when WhatsApp hid the number) with the identities
 * and names last seen, which a contacts API can grow from.
 */
export const WA_CONTACTS_SQL = `ALTER TABLE inbound_messages ADD COLUMN from_username text COLLATE "C";
CREATE TABLE wa_contacts (
  phone_id text COLLATE "C" NOT NULL REFERENCES phones(id) ON DELETE CASCADE,
  address text COLLATE "C" NOT NULL,
  lid text COLLATE "C",
  phone_number text COLLATE "C",
  username text COLLATE "C",
  push_name text COLLATE "C",
  updated_at_ms int8 NOT NULL,
  PRIMARY KEY (phone_id, address)
);`
