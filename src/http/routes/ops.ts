import { Type } from "@sinclair/typebox"
import { Elysia } from "elysia"
import { verifyAdminToken } from "../../domain/admin"
import { renderMetrics } from "../../domain/ops"
import { errors } from "../../lib/errors"
import type { HttpDeps } from "../deps"
import { opsOperation } from "../openapi/operation"
import { bearerToken } from "../plugins/api-auth"
import { refuseAuthentication, throttledAuthentication } from "../plugins/failed-auth"

const TAG = "Operations"
const Health = Type.Object({ status: Type.Literal("ok") })
const Ready = Type.Object({ status: Type.Literal("ready") })
const Unavailable = Type.Object({ status: Type.Literal("unavailable"), reason: Type.String() })

/**
 * Operations endpoints outside /v1 (docs/decisions.md § "Configuration and operations"): liveness, readiness and Prometheus
 * metrics (behind the admin token unless WAGATE_METRICS_PUBLIC=1).
 */
export function opsRoutes(deps: HttpDeps) {
  return new Elysia({ name: "wagate.ops" })
    .get(
      "/healthz",
      () => ({ status: "ok" as const }),
      opsOperation({
        operationId: "getHealth",
        auth: "none",
        tag: TAG,
        summary: "The process is up",
        success: { status: 200, schema: Health, description: "The process is up" },
        errors: [],
      }),
    )
    .get(
      "/readyz",
      async ({ set }) => {
        try {
          // A bounded ping answers even when the database hangs (PostgreSQL away); an empty write
          // proves it is open and takes the write lock.
          await deps.ctx.store.ping()
          await deps.ctx.store.write(async () => undefined)
          return { status: "ready" as const }
        } catch (err) {
          deps.ctx.logger.error("readiness check failed", { err })
          set.status = 503
          return { status: "unavailable" as const, reason: "the database is not writable" }
        }
      },
      opsOperation({
        operationId: "getReadiness",
        auth: "none",
        tag: TAG,
        summary: "The database is writable",
        success: { status: 200, schema: Ready, description: "Ready to serve" },
        others: [{ status: 503, schema: Unavailable, description: "The database is not writable" }],
        errors: [],
      }),
    )
    .get(
      "/metrics",
      async ({ headers, request, server }) => {
        if (!deps.metricsPublic) {
          // The admin token is guarded as on /admin/v1: wrong tokens count toward the address's
          // failed-authentication budget, and a throttled address waits whatever it sends.
          const throttled = throttledAuthentication(deps, "admin_token", server, request)
          if (throttled) throw throttled
          const token = bearerToken(headers.authorization)
          if (!token || !await verifyAdminToken(deps.ctx, token, deps.localAdminToken)) throw refuseAuthentication(deps, "admin_token", server, request, errors.missingAdminToken())
        }
        return new Response(await renderMetrics(deps.ctx, deps.metrics, deps.brokerStatus), { headers: { "Content-Type": "text/plain; version=0.0.4; charset=utf-8" } })
      },
      opsOperation({
        operationId: "getMetrics",
        auth: "adminTokenUnlessPublic",
        tag: TAG,
        summary: "Prometheus metrics (admin token unless WAGATE_METRICS_PUBLIC=1)",
        success: {
          status: 200,
          contentType: "text/plain",
          schema: Type.String({ description: "The Prometheus text exposition format, version 0.0.4." }),
          description: "The metrics",
        },
        errors: [401, 429],
      }),
    )
}
