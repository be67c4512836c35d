import type { Database } from "bun:sqlite"
import type { DashboardSessionRow } from "../dashboard-sessions"

const COLUMNS = `id_hash AS idHash, csrf_token AS csrfToken, admin_fingerprint AS adminFingerprint, created_at_ms AS createdAtMs,
  last_seen_at_ms AS lastSeenAtMs`

/** Inserts a session. */
export function insertDashboardSession(db: Database, row: DashboardSessionRow): void {
  db.query(
    "INSERT INTO dashboard_sessions (id_hash, csrf_token, admin_fingerprint, created_at_ms, last_seen_at_ms) VALUES (?, ?, ?, ?, ?)",
  ).run(row.idHash, row.csrfToken, row.adminFingerprint, row.createdAtMs, row.lastSeenAtMs)
}

/** A session by the hash of its id; null when unknown. */
export function findDashboardSession(db: Database, idHash: string): DashboardSessionRow | null {
  return db.query<DashboardSessionRow, [string]>(`SELECT ${COLUMNS} FROM dashboard_sessions WHERE id_hash = ?`).get(idHash)
}

/** Records activity on a session, which moves its idle expiry. */
export function touchDashboardSession(db: Database, idHash: string, seenAtMs: number): void {
  db.query("UPDATE dashboard_sessions SET last_seen_at_ms = ? WHERE id_hash = ?").run(seenAtMs, idHash)
}

/** Deletes one session. */
export function deleteDashboardSession(db: Database, idHash: string): void {
  db.query("DELETE FROM dashboard_sessions WHERE id_hash = ?").run(idHash)
}

/** Deletes every session (the admin token changed). */
export function deleteAllDashboardSessions(db: Database): void {
  db.query("DELETE FROM dashboard_sessions").run()
}

/** Deletes the sessions idle since before `cutoffMs`. */
export function deleteIdleDashboardSessions(db: Database, cutoffMs: number): void {
  db.query("DELETE FROM dashboard_sessions WHERE last_seen_at_ms < ?").run(cutoffMs)
}
