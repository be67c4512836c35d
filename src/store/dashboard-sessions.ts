/** A signed-in dashboard session; the id itself is never stored, only its SHA-256. */
export interface DashboardSessionRow {
  idHash: string
  csrfToken: string
  /** Which admin token the session was opened with (see adminTokenFingerprint). */
  adminFingerprint: string
  createdAtMs: number
  lastSeenAtMs: number
}
