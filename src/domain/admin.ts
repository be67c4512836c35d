import { randomBase62, sha256Hex, constantTimeEqual } from "../lib/secrets"
import type { DomainContext } from "./context"

/** A new admin token: `adm_` + 256 random bits. */
export function newAdminToken(): string {
  return `adm_${randomBase62(32)}`
}

/**
 * True when `presented` is the admin token: WAGATE_ADMIN_TOKEN when set, otherwise the token
 * generated at first run, of which only the SHA-256 is stored; or the running server's local
 * token (see LockOwner.localToken).
 */
export async function verifyAdminToken(ctx: DomainContext, presented: string, localToken?: string): Promise<boolean> {
  if (localToken !== undefined && constantTimeEqual(presented, localToken)) return true
  if (ctx.config.adminToken !== null) return constantTimeEqual(presented, ctx.config.adminToken)
  const storedHash = await ctx.store.getSetting("admin_token_hash")
  return storedHash !== null && constantTimeEqual(sha256Hex(presented), storedHash)
}

/**
 * Names the admin token in force without revealing it: the stored token's hash, or a hash of
 * WAGATE_ADMIN_TOKEN when that is set. A dashboard session remembers it, so a session opened
 * with one token ends when the operator resets or replaces it (also by restarting with another
 * WAGATE_ADMIN_TOKEN).
 */
export async function adminTokenFingerprint(ctx: DomainContext): Promise<string> {
  if (ctx.config.adminToken !== null) return sha256Hex(`configured:${ctx.config.adminToken}`)
  return `stored:${await ctx.store.getSetting("admin_token_hash") ?? "none"}`
}

/** True when an admin token exists (configured or stored). */
export async function hasAdminToken(ctx: DomainContext): Promise<boolean> {
  return ctx.config.adminToken !== null || await ctx.store.getSetting("admin_token_hash") !== null
}

/**
 * Generates and stores a new admin token, replacing the stored one; returns it (shown once).
 * Every dashboard session ends with it: they were opened with the old token.
 */
export async function resetAdminToken(ctx: DomainContext): Promise<string> {
  const token = newAdminToken()
  await ctx.store.write(async (q) => {
    await q.setSetting("admin_token_hash", sha256Hex(token))
    await q.deleteAllDashboardSessions()
  })
  return token
}
