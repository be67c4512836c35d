import { reactToMessage } from "../../../domain/message-actions"
import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { Reaction, ReactionBody } from "../../models/message-actions"
import { MessageIdParams } from "../../models/messages"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { parseJsonBody, type RawBody } from "../../validation"

/** POST /v1/messages/{messageId}/reaction */
export const messagesReact = (deps: HttpDeps) => (app: ApiApp) =>
  app.post(
    "/messages/:messageId/reaction",
    async ({ body, params, principal }) => {
      const { emoji } = parseJsonBody(ReactionBody, body as RawBody)
      return ok(await reactToMessage(deps.ctx, deps.messageActions, principal, params.messageId, emoji))
    },
    {
      ...apiOperation({
        operationId: "reactToMessage",
        scopes: REQUIRED_SCOPES.send,
        tag: "Messages",
        summary: "React to a message with one emoji, or remove the reaction",
        description:
          "Reacts to one of your messages (`msg_…`) or a received one (`inmsg_…`), as the phone that sent or received it; a new reaction replaces the previous one. " +
          "409 when the message is pending, failed or revoked. Emits `message.reaction`. " +
          "Live keys: the phone must be connected. Test keys: the sandbox message, or what the sandbox received (POST /v1/sandbox/inbound), is reacted to at once.",
        path: MessageIdParams,
        body: ReactionBody,
        success: { status: 200, schema: Envelope(Reaction), description: "The reaction now shown" },
        errors: [400, 401, 403, 404, 409, 413, 429, 502, 503],
      }),
    },
  )
