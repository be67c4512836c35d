/*
 * PostgreSQL migration 6: the URL each node advertises to the others (WAGATE_NODE_URL), so a
 * node that gets a request needing a phone another node holds can forward it there
 * (docs/operations.md § "Running several nodes"), as SQLite migration 18. NULL: the node takes
 * no forwarded requests, and the others answer 409 naming it as before.
 */
export const NODE_URLS_SQL = `ALTER TABLE nodes ADD COLUMN url text COLLATE "C";`
