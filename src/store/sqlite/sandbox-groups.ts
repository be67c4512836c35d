import type { Database } from "bun:sqlite"
import type { SandboxGroupRow } from "../sandbox-groups"

/* The sandbox's groups (src/store/sandbox-groups.ts): one row per account and group. */

const COLUMNS = `account_id AS accountId, group_id AS groupId, state, idempotency_key AS idempotencyKey,
  request_fingerprint AS requestFingerprint, created_at_ms AS createdAtMs, updated_at_ms AS updatedAtMs`

// The create's key and fingerprint stay as first written: a later change replaces only the state.
const UPSERT = `INSERT INTO sandbox_groups (account_id, group_id, state, idempotency_key, request_fingerprint, created_at_ms, updated_at_ms)
  VALUES ($accountId, $groupId, $state, $idempotencyKey, $requestFingerprint, $createdAtMs, $updatedAtMs)
  ON CONFLICT (account_id, group_id) DO UPDATE SET state = excluded.state, updated_at_ms = excluded.updated_at_ms`

/** Writes a sandbox group's state (creates the row on first write). */
export function putSandboxGroup(db: Database, row: SandboxGroupRow): void {
  db.query(UPSERT).run({ ...row })
}

/** One sandbox group of an account, or null. */
export function findSandboxGroup(db: Database, accountId: string, groupId: string): SandboxGroupRow | null {
  return db.query<SandboxGroupRow, [string, string]>(`SELECT ${COLUMNS} FROM sandbox_groups WHERE account_id = ? AND group_id = ?`).get(accountId, groupId)
}

/** The sandbox group an account created with this idempotency key, or null. */
export function findSandboxGroupByIdempotencyKey(db: Database, accountId: string, key: string): SandboxGroupRow | null {
  return db
    .query<SandboxGroupRow, [string, string]>(`SELECT ${COLUMNS} FROM sandbox_groups WHERE account_id = ? AND idempotency_key = ?`)
    .get(accountId, key)
}

/** An account's sandbox groups, oldest first. */
export function listSandboxGroups(db: Database, accountId: string): SandboxGroupRow[] {
  return db.query<SandboxGroupRow, [string]>(`SELECT ${COLUMNS} FROM sandbox_groups WHERE account_id = ? ORDER BY created_at_ms, group_id`).all(accountId)
}
