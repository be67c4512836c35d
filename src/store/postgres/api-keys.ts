import type { SQL } from "bun"
import type { ApiKeyRow } from "../api-keys"
import type { ApiKeysQueries } from "../store"
import { mapRows, toNumber, toNumberOrNull } from "./rows"

const COLUMNS = `id, account_id, env, key_hash, prefix, last4, name, scopes, created_at_ms, last_used_at_ms, expires_at_ms, revoked_at_ms`

interface RawKey {
  id: string
  account_id: string
  env: ApiKeyRow["env"]
  key_hash: string
  prefix: string
  last4: string
  name: string
  scopes: string
  created_at_ms: string
  last_used_at_ms: string | null
  expires_at_ms: string | null
  revoked_at_ms: string | null
}

function fromRaw(r: RawKey): ApiKeyRow {
  return {
    id: r.id,
    accountId: r.account_id,
    env: r.env,
    keyHash: r.key_hash,
    prefix: r.prefix,
    last4: r.last4,
    name: r.name,
    scopes: r.scopes.split(" ").filter(Boolean),
    createdAtMs: toNumber(r.created_at_ms),
    lastUsedAtMs: toNumberOrNull(r.last_used_at_ms),
    expiresAtMs: toNumberOrNull(r.expires_at_ms),
    revokedAtMs: toNumberOrNull(r.revoked_at_ms),
  }
}

const INSERT_KEY = `INSERT INTO api_keys (id, account_id, env, key_hash, prefix, last4, name, scopes, created_at_ms, expires_at_ms)
  VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)`
const SELECT_BY_HASH = `SELECT ${COLUMNS} FROM api_keys WHERE key_hash = $1`
const SELECT_BY_ID = `SELECT ${COLUMNS} FROM api_keys WHERE id = $1`
const SELECT_BY_ACCOUNT = `SELECT ${COLUMNS} FROM api_keys WHERE account_id = $1 ORDER BY created_at_ms, id`
const REVOKE_KEY = "UPDATE api_keys SET revoked_at_ms = $2 WHERE id = $1 AND revoked_at_ms IS NULL"
// Only ever moves forward (as on SQLite): nodes flush their last-use times in any order. The
// condition also skips the write, and its row lock, when another node recorded a later use.
const TOUCH_KEY = `UPDATE api_keys SET last_used_at_ms = $2 WHERE id = $1 AND (last_used_at_ms IS NULL OR last_used_at_ms < $2)`

/** src/store/sqlite/api-keys.ts on PostgreSQL. */
export function pgApiKeysQueries(sql: SQL): ApiKeysQueries {
  return {
    async insertApiKey(row) {
      await sql.unsafe(INSERT_KEY, [row.id, row.accountId, row.env, row.keyHash, row.prefix, row.last4, row.name, row.scopes.join(" "), row.createdAtMs, row.expiresAtMs])
    },
    async findApiKeyByHash(keyHash) {
      const [row] = await sql.unsafe<RawKey[]>(SELECT_BY_HASH, [keyHash])
      return row ? fromRaw(row) : null
    },
    async findApiKey(id) {
      const [row] = await sql.unsafe<RawKey[]>(SELECT_BY_ID, [id])
      return row ? fromRaw(row) : null
    },
    async listApiKeys(accountId) {
      return mapRows(await sql.unsafe<RawKey[]>(SELECT_BY_ACCOUNT, [accountId]), fromRaw)
    },
    async revokeApiKey(id, nowMs) {
      await sql.unsafe(REVOKE_KEY, [id, nowMs])
    },
    async touchApiKey(id, usedAtMs) {
      await sql.unsafe(TOUCH_KEY, [id, usedAtMs])
    },
  }
}
