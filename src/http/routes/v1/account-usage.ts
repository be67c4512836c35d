import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { toUsage, Usage, UsageQuery } from "../../models/account"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { parseQuery } from "../../validation"

/** GET /v1/account/usage */
export const accountUsage = (deps: HttpDeps) => (app: ApiApp) =>
  app.get(
    "/account/usage",
    async ({ query, principal }) => {
      const q = parseQuery(UsageQuery, query)
      return ok(toUsage(await deps.usage.report(principal, (q.period ?? "month") as "day" | "week" | "month")))
    },
    {
      ...apiOperation({
        operationId: "getAccountUsage",
        scopes: REQUIRED_SCOPES.accountRead,
        tag: "Account",
        summary: "Usage counters for the current calendar day, week or month (UTC)",
        query: UsageQuery,
        success: { status: 200, schema: Envelope(Usage), description: "Usage" },
        errors: [400, 401, 403, 429],
      }),
    },
  )
