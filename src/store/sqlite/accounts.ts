import type { Database } from "bun:sqlite"
import type { AccountRow } from "../accounts"

const COLUMNS = `id, name, email, subscription_status AS subscriptionStatus, rate_limit_per_minute AS rateLimitPerMinute,
  created_at_ms AS createdAtMs, updated_at_ms AS updatedAtMs`

const INSERT_ACCOUNT = `INSERT INTO accounts (id, name, email, subscription_status, rate_limit_per_minute, created_at_ms, updated_at_ms)
  VALUES ($id, $name, $email, $subscriptionStatus, $rateLimitPerMinute, $createdAtMs, $updatedAtMs)`

/** Inserts an account. */
export function insertAccount(db: Database, row: AccountRow): void {
  db.query(INSERT_ACCOUNT).run({ ...row })
}

const SELECT_ACCOUNT = `SELECT ${COLUMNS} FROM accounts WHERE id = ?`

/** One account by id. */
export function findAccount(db: Database, id: string): AccountRow | null {
  return db.query<AccountRow, [string]>(SELECT_ACCOUNT).get(id)
}

const SELECT_ACCOUNTS = `SELECT ${COLUMNS} FROM accounts ORDER BY created_at_ms, id`

/** Every account, oldest first. */
export function listAccounts(db: Database): AccountRow[] {
  return db.query<AccountRow, []>(SELECT_ACCOUNTS).all()
}

const UPDATE_ACCOUNT = `UPDATE accounts SET name = $name, email = $email, subscription_status = $subscriptionStatus,
  rate_limit_per_minute = $rateLimitPerMinute, updated_at_ms = $updatedAtMs WHERE id = $id`

/** Writes every mutable field of an account. */
export function updateAccount(db: Database, row: AccountRow): void {
  db.query(UPDATE_ACCOUNT).run({
    id: row.id,
    name: row.name,
    email: row.email,
    subscriptionStatus: row.subscriptionStatus,
    rateLimitPerMinute: row.rateLimitPerMinute,
    updatedAtMs: row.updatedAtMs,
  })
}

const COUNT_ACTIVE_KEYS = `SELECT COUNT(*) AS n FROM api_keys WHERE account_id = $accountId AND revoked_at_ms IS NULL
  AND (expires_at_ms IS NULL OR expires_at_ms > $nowMs)`
const COUNT_PHONES = "SELECT COUNT(*) AS n FROM phones WHERE account_id = ?"

/** Active (not revoked, not expired) keys of an account; an account has a handful, so COUNT is cheap. */
export function countActiveKeys(db: Database, accountId: string, nowMs: number): number {
  return (db.query(COUNT_ACTIVE_KEYS).get({ accountId, nowMs }) as { n: number }).n
}

/** Phones of an account. */
export function countPhones(db: Database, accountId: string): number {
  return (db.query(COUNT_PHONES).get(accountId) as { n: number }).n
}
