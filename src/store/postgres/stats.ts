import type { SQL } from "bun"
import type { StatsQueries } from "../store"
import { mapRows, toNumber } from "./rows"

// The counters are sharded (migration 1): the sum over the shards is the count.
const MESSAGES_BY_STATUS = "SELECT env, status, SUM(n) AS n FROM message_counts GROUP BY env, status ORDER BY env, status"
const PHONES_BY_STATUS = "SELECT connection_status AS status, COUNT(*) AS n FROM phones GROUP BY connection_status ORDER BY connection_status"
const DELIVERIES_PENDING = "SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'pending'"

/** src/store/sqlite/stats.ts on PostgreSQL. */
export function pgStatsQueries(sql: SQL): StatsQueries {
  return {
    async messagesByEnvAndStatus() {
      const rows = await sql.unsafe<{ env: string; status: string; n: string }[]>(MESSAGES_BY_STATUS)
      return mapRows(rows, (r) => ({ env: r.env, status: r.status, n: toNumber(r.n) }))
    },
    async phonesByStatus() {
      const rows = await sql.unsafe<{ status: string; n: string }[]>(PHONES_BY_STATUS)
      return mapRows(rows, (r) => ({ status: r.status, n: toNumber(r.n) }))
    },
    async pendingDeliveries() {
      const [row] = await sql.unsafe(DELIVERIES_PENDING)
      return toNumber(row.n)
    },
  }
}
