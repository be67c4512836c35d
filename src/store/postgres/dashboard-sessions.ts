import type { SQL } from "bun"
import type { DashboardSessionRow } from "../dashboard-sessions"
import type { DashboardSessionsQueries } from "../store"
import { toNumber } from "./rows"

interface RawSession {
  id_hash: string
  csrf_token: string
  admin_fingerprint: string
  created_at_ms: string
  last_seen_at_ms: string
}

const INSERT = "INSERT INTO dashboard_sessions (id_hash, csrf_token, admin_fingerprint, created_at_ms, last_seen_at_ms) VALUES ($1, $2, $3, $4, $5)"
const SELECT = "SELECT id_hash, csrf_token, admin_fingerprint, created_at_ms, last_seen_at_ms FROM dashboard_sessions WHERE id_hash = $1"
const TOUCH = "UPDATE dashboard_sessions SET last_seen_at_ms = $2 WHERE id_hash = $1"

/** src/store/sqlite/dashboard-sessions.ts on PostgreSQL. */
export function pgDashboardSessionsQueries(sql: SQL): DashboardSessionsQueries {
  return {
    async insertDashboardSession(row: DashboardSessionRow) {
      await sql.unsafe(INSERT, [row.idHash, row.csrfToken, row.adminFingerprint, row.createdAtMs, row.lastSeenAtMs])
    },
    async findDashboardSession(idHash) {
      const [r] = await sql.unsafe<RawSession[]>(SELECT, [idHash])
      if (!r) return null
      return { idHash: r.id_hash, csrfToken: r.csrf_token, adminFingerprint: r.admin_fingerprint, createdAtMs: toNumber(r.created_at_ms), lastSeenAtMs: toNumber(r.last_seen_at_ms) }
    },
    async touchDashboardSession(idHash, seenAtMs) {
      await sql.unsafe(TOUCH, [idHash, seenAtMs])
    },
    async deleteDashboardSession(idHash) {
      await sql.unsafe("DELETE FROM dashboard_sessions WHERE id_hash = $1", [idHash])
    },
    async deleteAllDashboardSessions() {
      await sql.unsafe("DELETE FROM dashboard_sessions")
    },
    async deleteIdleDashboardSessions(cutoffMs) {
      await sql.unsafe("DELETE FROM dashboard_sessions WHERE last_seen_at_ms < $1", [cutoffMs])
    },
  }
}
