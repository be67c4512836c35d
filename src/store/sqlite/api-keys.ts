import type { Database } from "bun:sqlite"
import type { ApiKeyRow } from "../api-keys"

type RawRow = Omit<ApiKeyRow, "scopes"> & { scopes: string }

const COLUMNS = `id, account_id AS accountId, env, key_hash AS keyHash, prefix, last4, name, scopes,
  created_at_ms AS createdAtMs, last_used_at_ms AS lastUsedAtMs, expires_at_ms AS expiresAtMs, revoked_at_ms AS revokedAtMs`

function fromRaw(raw: RawRow | null): ApiKeyRow | null {
  return raw ? { ...raw, scopes: raw.scopes.split(" ").filter(Boolean) } : null
}

const INSERT_KEY = `INSERT INTO api_keys (id, account_id, env, key_hash, prefix, last4, name, scopes, created_at_ms, expires_at_ms)
  VALUES ($id, $accountId, $env, $keyHash, $prefix, $last4, $name, $scopes, $createdAtMs, $expiresAtMs)`

/** Inserts a key record. */
export function insertApiKey(db: Database, row: ApiKeyRow): void {
  db.query(INSERT_KEY).run({
    id: row.id,
    accountId: row.accountId,
    env: row.env,
    keyHash: row.keyHash,
    prefix: row.prefix,
    last4: row.last4,
    name: row.name,
    scopes: row.scopes.join(" "),
    createdAtMs: row.createdAtMs,
    expiresAtMs: row.expiresAtMs,
  })
}

const SELECT_BY_HASH = `SELECT ${COLUMNS} FROM api_keys WHERE key_hash = ?`

/** The key whose SHA-256 is `keyHash` (one unique-index probe per request). */
export function findApiKeyByHash(db: Database, keyHash: string): ApiKeyRow | null {
  return fromRaw(db.query<RawRow, [string]>(SELECT_BY_HASH).get(keyHash))
}

const SELECT_BY_ID = `SELECT ${COLUMNS} FROM api_keys WHERE id = ?`

/** One key record by id. */
export function findApiKey(db: Database, id: string): ApiKeyRow | null {
  return fromRaw(db.query<RawRow, [string]>(SELECT_BY_ID).get(id))
}

const SELECT_BY_ACCOUNT = `SELECT ${COLUMNS} FROM api_keys WHERE account_id = ? ORDER BY created_at_ms, id`

/** Every key record of an account, oldest first. */
export function listApiKeys(db: Database, accountId: string): ApiKeyRow[] {
  return db
    .query<RawRow, [string]>(SELECT_BY_ACCOUNT)
    .all(accountId)
    .map((r) => fromRaw(r)!)
}

const REVOKE_KEY = "UPDATE api_keys SET revoked_at_ms = ? WHERE id = ? AND revoked_at_ms IS NULL"

/** Marks a key revoked (idempotent: the first revocation time is kept). */
export function revokeApiKey(db: Database, id: string, nowMs: number): void {
  db.query(REVOKE_KEY).run(nowMs, id)
}

const TOUCH_KEY = "UPDATE api_keys SET last_used_at_ms = MAX(COALESCE(last_used_at_ms, 0), ?) WHERE id = ?"

/** Records when a key was last used. */
export function touchApiKey(db: Database, id: string, usedAtMs: number): void {
  db.query(TOUCH_KEY).run(usedAtMs, id)
}
