import { getMessage } from "../../../domain/messages"
import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { Message, MessageIdParams, toMessage } from "../../models/messages"
import { documented } from "../../openapi"
import type { ApiApp } from "../../plugins/api-auth"

/** GET /v1/messages/{messageId} */
export const messagesGet = (deps: HttpDeps) => (app: ApiApp) =>
  app.get("/messages/:messageId", ({ params, principal }) => ok(toMessage(getMessage(deps.ctx, principal, params.messageId))), {
    scopes: REQUIRED_SCOPES.messagesRead,
    ...documented({
      tag: "Messages",
      summary: "Get one message with its lifecycle timestamps",
      path: MessageIdParams,
      success: { status: 200, schema: Envelope(Message), description: "The message" },
      errors: [401, 403, 404, 429],
    }),
  })
