import { constantTimeEqual, randomBase62, sha256Hex } from "../lib/secrets"
import { type DashboardSessionRow } from "../store/dashboard-sessions"
import { adminTokenFingerprint } from "./admin"
import type { DomainContext } from "./context"

/** A session ends after this long without a request (docs/dashboard.md § "Signing in"). */
export const DASHBOARD_SESSION_IDLE_MS = 12 * 60 * 60 * 1000
/**
 * Activity is written at most this often per session: a page view must not cost a write, and
 * a minute is noise against a twelve-hour idle limit.
 */
const TOUCH_EVERY_MS = 60_000

/** A live session as the HTTP layer sees it. */
export interface DashboardSession {
  idHash: string
  csrfToken: string
}

/**
 * Starts a session: returns the id for the cookie (shown to the browser only) and the CSRF
 * token. Sessions idle past the limit are swept on the way, so the table stays small.
 */
export async function startDashboardSession(ctx: DomainContext): Promise<{ id: string; csrfToken: string }> {
  const id = randomBase62(32)
  const csrfToken = randomBase62(32)
  const nowMs = ctx.clock.nowMs()
  await ctx.store.write(async (q) => {
    await q.deleteIdleDashboardSessions(nowMs - DASHBOARD_SESSION_IDLE_MS)
    await q.insertDashboardSession({ idHash: sha256Hex(id), csrfToken, adminFingerprint: await adminTokenFingerprint(ctx), createdAtMs: nowMs, lastSeenAtMs: nowMs })
  })
  return { id, csrfToken }
}

/**
 * The session a cookie names, or null when unknown, ended, idle for 12 hours, or opened with an
 * admin token that is no longer in force. Sessions are read from the database on every
 * request, so `wagate admin-token reset` run by the CLI ends them in a running server too.
 */
export async function resumeDashboardSession(ctx: DomainContext, id: string): Promise<DashboardSession | null> {
  const idHash = sha256Hex(id)
  const row = await ctx.store.findDashboardSession(idHash)
  if (!row) return null
  const nowMs = ctx.clock.nowMs()
  if (!await isCurrent(ctx, row, nowMs)) {
    await ctx.store.write(async (q) => await q.deleteDashboardSession(idHash))
    return null
  }
  if (nowMs - row.lastSeenAtMs >= TOUCH_EVERY_MS) await ctx.store.write(async (q) => await q.touchDashboardSession(idHash, nowMs))
  return { idHash, csrfToken: row.csrfToken }
}

/** Ends a session (sign-out). */
export async function endDashboardSession(ctx: DomainContext, session: DashboardSession): Promise<void> {
  await ctx.store.write(async (q) => await q.deleteDashboardSession(session.idHash))
}

/** True when `presented` is the session's CSRF token, compared in constant time. */
export function checkCsrfToken(session: DashboardSession, presented: string | null | undefined): boolean {
  return typeof presented === "string" && presented.length > 0 && constantTimeEqual(presented, session.csrfToken)
}

/**
 * True while a session exists and is not idle-expired; reads only (a live stream asks before
 * each push, so one that outlives its session's end, by sign-out or token reset, stops).
 */
export async function isDashboardSessionLive(ctx: DomainContext, session: DashboardSession): Promise<boolean> {
  const row = await ctx.store.findDashboardSession(session.idHash)
  return row !== null && await isCurrent(ctx, row, ctx.clock.nowMs())
}

/** Not idle for 12 hours, and opened with the admin token still in force. */
async function isCurrent(ctx: DomainContext, row: DashboardSessionRow, nowMs: number): Promise<boolean> {
  return nowMs - row.lastSeenAtMs < DASHBOARD_SESSION_IDLE_MS && row.adminFingerprint === await adminTokenFingerprint(ctx)
}
