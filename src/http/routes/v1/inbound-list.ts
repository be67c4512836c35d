import { listInbound } from "../../../domain/inbound"
import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { PageEnvelope, paginated } from "../../models/common"
import { InboundMessage, ListInboundQuery, toInboundMessage } from "../../models/inbound"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { parseQuery } from "../../validation"

/** GET /v1/messages/inbound */
export const inboundList = (deps: HttpDeps) => (app: ApiApp) =>
  app.get(
    "/messages/inbound",
    async ({ query, principal }) => {
      const q = parseQuery(ListInboundQuery, query)
      const page = await listInbound(deps.ctx, principal, { phoneNumberId: q.phoneNumberId, page: q.page ?? 1, limit: q.limit ?? 20 })
      return paginated(page.rows.map(toInboundMessage), page.page, page.limit, page.total)
    },
    {
      ...apiOperation({
        operationId: "listInboundMessages",
        scopes: REQUIRED_SCOPES.messagesRead,
        tag: "Inbound messages",
        summary: "List inbound messages, newest first (for test keys, what the sandbox received)",
        query: ListInboundQuery,
        success: { status: 200, schema: PageEnvelope(InboundMessage), description: "A page of inbound messages" },
        errors: [400, 401, 403, 429],
      }),
    },
  )
