import { listMessages } from "../../../domain/messages"
import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { PageEnvelope, paginated } from "../../models/common"
import { ListMessagesQuery, Message, toMessage } from "../../models/messages"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { parseQuery } from "../../validation"

/** GET /v1/messages */
export const messagesList = (deps: HttpDeps) => (app: ApiApp) =>
  app.get(
    "/messages",
    async ({ query, principal }) => {
      const q = parseQuery(ListMessagesQuery, query)
      const page = await listMessages(deps.ctx, principal, {
        phoneNumberId: q.phoneNumberId,
        status: q.status as never,
        page: q.page ?? 1,
        limit: q.limit ?? 20,
      })
      return paginated(page.rows.map(toMessage), page.page, page.limit, page.total)
    },
    {
      ...apiOperation({
        operationId: "listMessages",
        scopes: REQUIRED_SCOPES.messagesRead,
        tag: "Messages",
        summary: "List outbound messages, newest first",
        query: ListMessagesQuery,
        success: { status: 200, schema: PageEnvelope(Message), description: "A page of messages" },
        errors: [400, 401, 403, 429],
      }),
    },
  )
