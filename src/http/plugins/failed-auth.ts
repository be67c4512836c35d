import { errors, type AppError } from "../../lib/errors"
import { clientInfo, type PeerSource } from "../client-info"
import type { HttpDeps } from "../deps"

/**
 * Counts a failed authentication against the client's address and returns the error to throw:
 * the 401 the caller chose, or a 429 once the address has failed too often. Shared by `/v1` and
 * `/admin/v1`, so one address has one budget. The address comes from `clientInfo`, so a client
 * cannot pick a new one per attempt with `X-Forwarded-For` unless it is a trusted proxy.
 */
export function refuseAuthentication(deps: HttpDeps, server: PeerSource | null, request: Request, unauthorized: AppError): AppError {
  const { ip } = clientInfo(server, request, deps.trustedProxies)
  const attempt = deps.limiter.peekFailedAuth(ip)
  if (!attempt.allowed) {
    deps.metrics.rateLimitRejections.inc({ limiter: "failed_auth" })
    return errors.authRateLimited(Math.max(1, Math.ceil(attempt.retryAfterMs / 1000)))
  }
  deps.limiter.recordFailedAuth(ip)
  // Logged once per address, when its budget runs out: an operator sees who is guessing.
  if (!deps.limiter.peekFailedAuth(ip).allowed) deps.ctx.logger.warn("too many failed authentication attempts; refusing this client for a while", { ip })
  return unauthorized
}
