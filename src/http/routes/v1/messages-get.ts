import { getMessage } from "../../../domain/messages"
import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { Message, MessageIdParams, toMessage } from "../../models/messages"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"

/** GET /v1/messages/{messageId} */
export const messagesGet = (deps: HttpDeps) => (app: ApiApp) =>
  app.get("/messages/:messageId", async ({ params, principal }) => ok(toMessage(await getMessage(deps.ctx, principal, params.messageId))), {
    ...apiOperation({
      operationId: "getMessage",
      scopes: REQUIRED_SCOPES.messagesRead,
      tag: "Messages",
      summary: "Get one message with its lifecycle timestamps",
      path: MessageIdParams,
      success: { status: 200, schema: Envelope(Message), description: "The message" },
      errors: [401, 403, 404, 429],
    }),
  })
