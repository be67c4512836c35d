import { errors, type AppError } from "../../lib/errors"
import type { CredentialKind } from "../../lib/vocabulary"
import { clientInfo, type PeerSource } from "../client-info"
import type { HttpDeps } from "../deps"

/*
 * Failed authentication is throttled per client address and per kind of credential
 * (docs/api.md § "Rate limits"): `/v1` API keys have one budget, the admin token (`/admin/v1`,
 * `/metrics`, the dashboard's sign-in, and requests signed by another node) another. So an
 * application retrying a stale key cannot lock the operator out of the dashboard from the same
 * address, which behind a proxy every client shares.
 */

/**
 * The 429 for an address that has failed authentication with this kind of credential too often,
 * or null while it may still try. Checked before the admin token is judged, where a right guess
 * must not be told apart from a wrong one: a throttled address gets the 429 whatever it sends,
 * so a guesser cannot learn which guess hit.
 */
export function throttledAuthentication(deps: HttpDeps, kind: CredentialKind, server: PeerSource | null, request: Request): AppError | null {
  const { ip } = clientInfo(server, request, deps.trustedProxies)
  const attempt = deps.limiter.peekFailedAuth(kind, ip)
  if (attempt.allowed) return null
  deps.metrics.rateLimitRejections.inc({ limiter: "failed_auth" })
  return errors.authRateLimited(Math.max(1, Math.ceil(attempt.retryAfterMs / 1000)))
}

/**
 * Counts a failed authentication of this kind against the client's address and returns the error
 * to throw: the 401 the caller chose, or a 429 once the address has failed too often. The address
 * comes from `clientInfo`, so a client cannot pick a new one per attempt with `X-Forwarded-For`
 * unless it is a trusted proxy.
 */
export function refuseAuthentication(deps: HttpDeps, kind: CredentialKind, server: PeerSource | null, request: Request, unauthorized: AppError): AppError {
  const throttled = throttledAuthentication(deps, kind, server, request)
  if (throttled) return throttled
  const { ip } = clientInfo(server, request, deps.trustedProxies)
  deps.limiter.recordFailedAuth(kind, ip)
  // Logged once per address and kind, when its budget runs out: an operator sees who is guessing, and at what.
  if (!deps.limiter.peekFailedAuth(kind, ip).allowed) deps.ctx.logger.warn("too many failed authentication attempts; refusing this client for a while", { ip, credential: kind })
  return unauthorized
}
