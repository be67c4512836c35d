import { Elysia } from "elysia"
import { verifyAdminToken } from "../../domain/admin"
import { errors } from "../../lib/errors"
import type { HttpDeps } from "../deps"
import { bearerToken, clientIp } from "./api-auth"
import { readRawBody } from "./body"

/**
 * The `/admin/v1` base: the operator's API (API-DECISIONS §12), behind the admin token, with the
 * same body handling and envelopes as `/v1`. Failed attempts share the per-IP throttle.
 */
export function adminBase(deps: HttpDeps) {
  const { ctx, limiter } = deps
  return new Elysia({ prefix: "/admin/v1" })
    .onParse(readRawBody)
    .onBeforeHandle(({ headers, request, server }) => {
      const token = bearerToken(headers.authorization)
      if (token && verifyAdminToken(ctx, token, deps.localAdminToken)) return
      const ip = clientIp(server, request)
      const attempt = limiter.peekFailedAuth(ip)
      if (!attempt.allowed) {
        deps.metrics.rateLimitRejections.inc({ limiter: "failed_auth" })
        throw errors.authRateLimited(Math.max(1, Math.ceil(attempt.retryAfterMs / 1000)))
      }
      limiter.recordFailedAuth(ip)
      throw errors.missingAdminToken()
    })
}

/** The `/admin/v1` instance routes are registered on. */
export type AdminApp = ReturnType<typeof adminBase>
