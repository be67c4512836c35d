import type { SQL } from "bun"
import type { SandboxBlockRow } from "../sandbox-blocks"
import type { SandboxBlocksQueries } from "../store"
import { toNumber } from "./rows"

/* src/store/sqlite/sandbox-blocks.ts on PostgreSQL: the same statements, the same rows in the same order. */

const COLUMNS = `phone_id AS "phoneId", contact, blocked_at_ms AS "blockedAtMs"`

export function pgSandboxBlocksQueries(sql: SQL): SandboxBlocksQueries {
  return {
    async setSandboxBlock(phoneId, contact, blocked, atMs) {
      if (blocked) await sql.unsafe("INSERT INTO sandbox_blocks (phone_id, contact, blocked_at_ms) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING", [phoneId, contact, atMs])
      else await sql.unsafe("DELETE FROM sandbox_blocks WHERE phone_id = $1 AND contact = $2", [phoneId, contact])
    },
    async listSandboxBlocks(phoneId) {
      const rows = (await sql.unsafe(`SELECT ${COLUMNS} FROM sandbox_blocks WHERE phone_id = $1 ORDER BY blocked_at_ms, contact`, [phoneId])) as (Omit<SandboxBlockRow, "blockedAtMs"> & { blockedAtMs: string })[]
      return rows.map((r) => ({ ...r, blockedAtMs: toNumber(r.blockedAtMs) }))
    },
  }
}
