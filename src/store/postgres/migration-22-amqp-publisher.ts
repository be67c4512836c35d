/*
 * PostgreSQL migration 22, as SQLite migration 34: the RabbitMQ publisher's row
 * (src/store/amqp-publisher.ts) and the index its read of the whole log walks, in (xid, seq)
 * order like a stream's per-account read (migration 21).
 */
export const AMQP_PUBLISHER_SQL = `CREATE TABLE amqp_publisher (
  id int4 PRIMARY KEY CHECK (id = 1),
  position text COLLATE "C",
  holder text COLLATE "C",
  lease_expires_at_ms int8 NOT NULL DEFAULT 0
);
CREATE INDEX events_log ON events (xid, seq);`
