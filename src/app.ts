import { Elysia } from "elysia"
import type { HttpDeps } from "./http/deps"
import { allowedMethodsLookup, shadowedPathGuard, webSocketPlainGetGuard, type RegisteredRoute } from "./http/allowed-methods"
import { dashboardRoutes } from "./http/dashboard"
import { errorHandler } from "./http/errors"
import { adminRoutes } from "./http/routes/admin"
import { docsRoutes } from "./http/routes/docs"
import { opsRoutes } from "./http/routes/ops"
import { v1Routes } from "./http/routes/v1"

/**
 * Builds the HTTP application: the public `/v1` API, the operator's `/admin/v1` API, the
 * operations endpoints, the OpenAPI document with its reference page, and the operator's
 * dashboard. It never listens; `serve` does, and tests call `app.handle(request)`.
 */
export function createApp(deps: HttpDeps) {
  const app = new Elysia({ normalize: false })
    .use(errorHandler(deps, allowedMethodsLookup((): readonly RegisteredRoute[] => app.routes)))
    .onAfterResponse({ as: "global" }, (context) => {
      // The route template (not the raw path) keeps the series bounded: ids never become labels.
      const route = (context as { route?: string }).route ?? "unmatched"
      const status = typeof context.set.status === "number" ? context.set.status : 200
      deps.metrics.httpRequests.inc({ route, method: context.request.method, status: String(status) })
      // The access log names the route and status only: never headers, bodies or query strings.
      deps.ctx.logger.debug("request", { method: context.request.method, route, status })
    })
    .use(opsRoutes(deps))
    .use(v1Routes(deps))
    .use(adminRoutes(deps))
    .use(dashboardRoutes(deps))
  // Static paths a parameterised route would read as an id get 405 for their other methods.
  app.use(shadowedPathGuard(app.routes))
  // A WebSocket route asked for without an upgrade says so (426) instead of "not found".
  app.use(webSocketPlainGetGuard(app.routes))
  // The document describes every route above; it is built from their own documentation.
  return app.use(docsRoutes({ version: deps.version, routes: () => app.routes }))
}

export type App = ReturnType<typeof createApp>
