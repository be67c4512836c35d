import type { SQL } from "bun"
import type { SandboxGroupsQueries } from "../store"
import type { SandboxGroupRow } from "../sandbox-groups"
import { toNumber } from "./rows"

/* src/store/sqlite/sandbox-groups.ts on PostgreSQL: the same statements, the same rows in the same order. */

interface PgSandboxGroup extends Omit<SandboxGroupRow, "createdAtMs" | "updatedAtMs"> {
  createdAtMs: string
  updatedAtMs: string
}

const COLUMNS = `account_id AS "accountId", group_id AS "groupId", state, idempotency_key AS "idempotencyKey",
  request_fingerprint AS "requestFingerprint", created_at_ms AS "createdAtMs", updated_at_ms AS "updatedAtMs"`

const UPSERT = `INSERT INTO sandbox_groups (account_id, group_id, state, idempotency_key, request_fingerprint, created_at_ms, updated_at_ms)
  VALUES ($1, $2, $3, $4, $5, $6, $7)
  ON CONFLICT (account_id, group_id) DO UPDATE SET state = EXCLUDED.state, updated_at_ms = EXCLUDED.updated_at_ms`

const fromPg = (r: PgSandboxGroup): SandboxGroupRow => ({ ...r, createdAtMs: toNumber(r.createdAtMs), updatedAtMs: toNumber(r.updatedAtMs) })

/** The sandbox group queries of the seam on `sql` (the pool, or the write's transaction). */
export function pgSandboxGroupsQueries(sql: SQL): SandboxGroupsQueries {
  const one = async (where: string, params: string[]) => {
    const [r] = (await sql.unsafe(`SELECT ${COLUMNS} FROM sandbox_groups WHERE ${where}`, params)) as PgSandboxGroup[]
    return r === undefined ? null : fromPg(r)
  }
  return {
    async putSandboxGroup(g) {
      await sql.unsafe(UPSERT, [g.accountId, g.groupId, g.state, g.idempotencyKey, g.requestFingerprint, g.createdAtMs, g.updatedAtMs])
    },
    findSandboxGroup: (accountId, groupId) => one("account_id = $1 AND group_id = $2", [accountId, groupId]),
    findSandboxGroupByIdempotencyKey: (accountId, key) => one("account_id = $1 AND idempotency_key = $2", [accountId, key]),
    async listSandboxGroups(accountId) {
      const rows = (await sql.unsafe(`SELECT ${COLUMNS} FROM sandbox_groups WHERE account_id = $1 ORDER BY created_at_ms, group_id`, [accountId])) as PgSandboxGroup[]
      return rows.map(fromPg)
    },
  }
}
