/*
 * PostgreSQL migration 3: claims on webhook deliveries (src/store/sqlite/delivery-claims.ts), so that
 * several nodes share the deliveries and a dead node's claims expire. No index of its own: a
 * claim reads the due pending rows through the partial index on pending deliveries, and the
 * claim columns are checked on those rows only.
 */
export const DELIVERY_CLAIMS_SQL = `
ALTER TABLE webhook_deliveries
  ADD COLUMN claimed_by text COLLATE "C",
  ADD COLUMN claim_expires_at_ms int8;
`
