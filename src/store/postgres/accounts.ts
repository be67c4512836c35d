import type { SQL } from "bun"
import type { AccountRow } from "../accounts"
import type { AccountsQueries } from "../store"
import { mapRows, toNumber, toNumberOrNull } from "./rows"

const COLUMNS = `id, name, email, subscription_status, rate_limit_per_minute, created_at_ms, updated_at_ms`

interface RawAccount {
  id: string
  name: string
  email: string
  subscription_status: AccountRow["subscriptionStatus"]
  rate_limit_per_minute: number | null
  created_at_ms: string
  updated_at_ms: string
}

function fromRaw(r: RawAccount): AccountRow {
  return {
    id: r.id,
    name: r.name,
    email: r.email,
    subscriptionStatus: r.subscription_status,
    rateLimitPerMinute: toNumberOrNull(r.rate_limit_per_minute),
    createdAtMs: toNumber(r.created_at_ms),
    updatedAtMs: toNumber(r.updated_at_ms),
  }
}

const INSERT_ACCOUNT = `INSERT INTO accounts (id, name, email, subscription_status, rate_limit_per_minute, created_at_ms, updated_at_ms)
  VALUES ($1, $2, $3, $4, $5, $6, $7)`
const SELECT_ACCOUNT = `SELECT ${COLUMNS} FROM accounts WHERE id = $1`
const SELECT_ACCOUNTS = `SELECT ${COLUMNS} FROM accounts ORDER BY created_at_ms, id`
const UPDATE_ACCOUNT = `UPDATE accounts SET name = $2, email = $3, subscription_status = $4, rate_limit_per_minute = $5,
  updated_at_ms = $6 WHERE id = $1`
const COUNT_ACTIVE_KEYS = `SELECT COUNT(*)::int4 AS n FROM api_keys WHERE account_id = $1 AND revoked_at_ms IS NULL
  AND (expires_at_ms IS NULL OR expires_at_ms > $2)`
const COUNT_PHONES = "SELECT COUNT(*)::int4 AS n FROM phones WHERE account_id = $1"

/** src/store/sqlite/accounts.ts on PostgreSQL. */
export function pgAccountsQueries(sql: SQL): AccountsQueries {
  return {
    async insertAccount(row) {
      await sql.unsafe(INSERT_ACCOUNT, [row.id, row.name, row.email, row.subscriptionStatus, row.rateLimitPerMinute, row.createdAtMs, row.updatedAtMs])
    },
    async findAccount(id) {
      const [row] = await sql.unsafe<RawAccount[]>(SELECT_ACCOUNT, [id])
      return row ? fromRaw(row) : null
    },
    async listAccounts() {
      return mapRows(await sql.unsafe<RawAccount[]>(SELECT_ACCOUNTS), fromRaw)
    },
    async updateAccount(row) {
      await sql.unsafe(UPDATE_ACCOUNT, [row.id, row.name, row.email, row.subscriptionStatus, row.rateLimitPerMinute, row.updatedAtMs])
    },
    async countActiveKeys(accountId, nowMs) {
      const [row] = await sql.unsafe(COUNT_ACTIVE_KEYS, [accountId, nowMs])
      return row.n as number
    },
    async countPhones(accountId) {
      const [row] = await sql.unsafe(COUNT_PHONES, [accountId])
      return row.n as number
    },
  }
}
