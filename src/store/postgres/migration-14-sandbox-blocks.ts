/* PostgreSQL migration 14: the sandbox's block lists (src/store/sandbox-blocks.ts), as SQLite migration 26. */
export const SANDBOX_BLOCKS_SQL = `CREATE TABLE sandbox_blocks (
  phone_id text COLLATE "C" NOT NULL REFERENCES phones(id) ON DELETE CASCADE,
  contact text COLLATE "C" NOT NULL,
  blocked_at_ms int8 NOT NULL,
  PRIMARY KEY (phone_id, contact)
);`
