import { Elysia } from "elysia"
import type { HttpDeps } from "./http/deps"
import { allowedMethodsLookup, type RegisteredRoute } from "./http/allowed-methods"
import { errorHandler } from "./http/errors"
import { adminBase } from "./http/plugins/admin-auth"
import { apiBase } from "./http/plugins/api-auth"
import { adminAccounts } from "./http/routes/admin/accounts"
import { adminKeys } from "./http/routes/admin/keys"
import { adminPairing } from "./http/routes/admin/pairing"
import { adminPhones } from "./http/routes/admin/phones"
import { docsRoutes } from "./http/routes/docs"
import { opsRoutes } from "./http/routes/ops"
import { adminWebhooks } from "./http/routes/admin/webhooks"
import { accountGet } from "./http/routes/v1/account-get"
import { accountUsage } from "./http/routes/v1/account-usage"
import { groupsList } from "./http/routes/v1/groups-list"
import { inboundGet } from "./http/routes/v1/inbound-get"
import { inboundList } from "./http/routes/v1/inbound-list"
import { messagesGet } from "./http/routes/v1/messages-get"
import { messagesList } from "./http/routes/v1/messages-list"
import { messagesSend } from "./http/routes/v1/messages-send"
import { phoneNumbersGet } from "./http/routes/v1/phone-numbers-get"
import { phoneNumbersList } from "./http/routes/v1/phone-numbers-list"
import { phoneNumbersStatus } from "./http/routes/v1/phone-numbers-status"

/**
 * Builds the HTTP application: the public `/v1` API, the operator's `/admin/v1` API, the
 * operations endpoints, and the OpenAPI document with its reference page. It never listens; `serve` does, and tests call `app.handle(request)`.
 */
export function createApp(deps: HttpDeps) {
  const v1 = apiBase(deps)
    .use(messagesSend(deps))
    .use(messagesList(deps))
    .use(inboundList(deps))
    .use(inboundGet(deps))
    .use(messagesGet(deps))
    .use(groupsList(deps))
    .use(phoneNumbersList(deps))
    .use(phoneNumbersGet(deps))
    .use(phoneNumbersStatus(deps))
    .use(accountGet(deps))
    .use(accountUsage(deps))
  const admin = adminBase(deps).use(adminAccounts(deps)).use(adminKeys(deps)).use(adminPhones(deps)).use(adminPairing(deps)).use(adminWebhooks(deps))
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
    .use(v1)
    .use(admin)
  // The document describes every route above; it is built from their own documentation.
  return app.use(docsRoutes({ version: deps.version, routes: () => app.routes }))
}

export type App = ReturnType<typeof createApp>
