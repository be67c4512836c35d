import { errors, type AppError } from "../../lib/errors"
import { clientInfo, type PeerSource } from "../client-info"
import type { HttpDeps } from "../deps"

/**
 * The 429 for an address that has failed authentication too often, or null while it may still
 * try. Checked before the token is judged where a right guess must not be told apart from a wrong
 * one (the admin token: `/admin/v1`, `/metrics`, the dashboard's sign-in): a throttled address
 * gets the 429 whatever it sends, so a guesser cannot learn which guess hit.
 */
export function throttledAuthentication(deps: HttpDeps, server: PeerSource | null, request: Request): AppError | null {
  const { ip } = clientInfo(server, request, deps.trustedProxies)
  const attempt = deps.limiter.peekFailedAuth(ip)
  if (attempt.allowed) return null
  deps.metrics.rateLimitRejections.inc({ limiter: "failed_auth" })
  return errors.authRateLimited(Math.max(1, Math.ceil(attempt.retryAfterMs / 1000)))
}

/**
 * Counts a failed authentication against the client's address and returns the error to throw:
 * the 401 the caller chose, or a 429 once the address has failed too often. Shared by `/v1`,
 * `/admin/v1` and `/metrics`, so one address has one budget. The address comes from `clientInfo`,
 * so a client cannot pick a new one per attempt with `X-Forwarded-For` unless it is a trusted proxy.
 */
export function refuseAuthentication(deps: HttpDeps, server: PeerSource | null, request: Request, unauthorized: AppError): AppError {
  const throttled = throttledAuthentication(deps, server, request)
  if (throttled) return throttled
  const { ip } = clientInfo(server, request, deps.trustedProxies)
  deps.limiter.recordFailedAuth(ip)
  // Logged once per address, when its budget runs out: an operator sees who is guessing.
  if (!deps.limiter.peekFailedAuth(ip).allowed) deps.ctx.logger.warn("too many failed authentication attempts; refusing this client for a while", { ip })
  return unauthorized
}
