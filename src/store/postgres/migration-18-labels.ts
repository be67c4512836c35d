/* PostgreSQL migration 18: a phone's WhatsApp Business labels (src/store/labels.ts), as SQLite migration 30. */
export const LABELS_SQL = `CREATE TABLE labels (
  phone_id text COLLATE "C" NOT NULL REFERENCES phones(id) ON DELETE CASCADE,
  env text COLLATE "C" NOT NULL,
  label_id text COLLATE "C" NOT NULL,
  name text COLLATE "C" NOT NULL,
  color int4 NOT NULL,
  deleted boolean NOT NULL DEFAULT false,
  updated_at_ms int8 NOT NULL,
  PRIMARY KEY (phone_id, env, label_id)
);`
