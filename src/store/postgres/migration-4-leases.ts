/*
 * PostgreSQL migration 4: nodes and phone leases (src/store/leases.ts, docs/architecture.md
 * § "Nodes and leases"), as SQLite migration 16. A lease row outlives its owner (node_id NULL
 * once released) so that the fencing token keeps growing across owners; it goes with its phone.
 * Lease rows are renewed every few seconds, so they are kept narrow and the one index is partial.
 *
 * Every phone has a lease row from its insert on (a trigger; token 0 and no owner until its
 * first claim), so that a claim locks existing lease rows FOR UPDATE SKIP LOCKED: PostgreSQL
 * then rechecks a locked row that a concurrent claim has just changed and moves on to the next
 * free one, where locking rows that do not exist yet is impossible.
 */
export const LEASES_SQL = `
CREATE TABLE nodes (
  node_id text COLLATE "C" PRIMARY KEY,
  instance_id text COLLATE "C" NOT NULL,
  started_at_ms int8 NOT NULL,
  heartbeat_at_ms int8 NOT NULL,
  max_phones int4 NOT NULL,
  stopping boolean NOT NULL DEFAULT false
);

CREATE TABLE phone_leases (
  phone_id text COLLATE "C" PRIMARY KEY REFERENCES phones(id) ON DELETE CASCADE,
  node_id text COLLATE "C",
  token int8 NOT NULL,
  acquired_at_ms int8 NOT NULL,
  expires_at_ms int8 NOT NULL
);
CREATE INDEX phone_leases_node ON phone_leases (node_id) WHERE node_id IS NOT NULL;

CREATE FUNCTION phone_lease_row() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO phone_leases (phone_id, node_id, token, acquired_at_ms, expires_at_ms) VALUES (NEW.id, NULL, 0, 0, 0)
  ON CONFLICT (phone_id) DO NOTHING;
  RETURN NULL;
END
$$;
CREATE TRIGGER phones_lease_row AFTER INSERT ON phones FOR EACH ROW EXECUTE FUNCTION phone_lease_row();
INSERT INTO phone_leases (phone_id, node_id, token, acquired_at_ms, expires_at_ms) SELECT id, NULL, 0, 0, 0 FROM phones;
`
