import { errors } from "../../lib/errors"
import type { HttpDeps } from "../deps"
import { clientIp, type RequestServer } from "./client-ip"

/**
 * The per-IP throttle on failed authentication, shared by `/v1` and `/admin/v1`: a request that
 * brought no valid credential is refused with 429 once its address has failed too often, and
 * otherwise counted as one more failure before `refusal` (the 401 of its prefix) is thrown. Only a
 * failed attempt asks the socket for the address, which would cost every request.
 */
export function rejectFailedAuth(deps: Pick<HttpDeps, "limiter" | "metrics">, server: RequestServer, request: Request, refusal: Error): never {
  const ip = clientIp(server, request)
  const attempt = deps.limiter.peekFailedAuth(ip)
  if (!attempt.allowed) {
    deps.metrics.rateLimitRejections.inc({ limiter: "failed_auth" })
    throw errors.authRateLimited(Math.max(1, Math.ceil(attempt.retryAfterMs / 1000)))
  }
  deps.limiter.recordFailedAuth(ip)
  throw refusal
}
