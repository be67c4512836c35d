import { Elysia } from "elysia"
import { verifyAdminToken } from "../../domain/admin"
import { renderMetrics } from "../../domain/ops"
import { errors } from "../../lib/errors"
import type { HttpDeps } from "../deps"
import { bearerToken } from "../plugins/api-auth"

/**
 * Operations endpoints outside /v1 (API-DECISIONS §13): liveness, readiness and Prometheus
 * metrics (behind the admin token unless WAGATE_METRICS_PUBLIC=1).
 */
export function opsRoutes(deps: HttpDeps) {
  return new Elysia({ name: "wagate.ops" })
    .get("/healthz", () => ({ status: "ok" }), { detail: { summary: "The process is up", tags: ["Operations"] } })
    .get(
      "/readyz",
      async ({ set }) => {
        try {
          // An empty write proves the database is open and takes the write lock.
          await deps.ctx.writer.write(() => undefined)
          return { status: "ready" }
        } catch (err) {
          deps.ctx.logger.error("readiness check failed", { err })
          set.status = 503
          return { status: "unavailable", reason: "the database is not writable" }
        }
      },
      { detail: { summary: "The database is writable", tags: ["Operations"] } },
    )
    .get(
      "/metrics",
      ({ headers }) => {
        if (!deps.metricsPublic) {
          const token = bearerToken(headers.authorization)
          if (!token || !verifyAdminToken(deps.ctx, token, deps.localAdminToken)) throw errors.missingAdminToken()
        }
        return new Response(renderMetrics(deps.ctx, deps.metrics), { headers: { "Content-Type": "text/plain; version=0.0.4; charset=utf-8" } })
      },
      { detail: { summary: "Prometheus metrics (admin token unless WAGATE_METRICS_PUBLIC=1)", tags: ["Operations"] } },
    )
}
