import { editMessage } from "../../../domain/message-actions"
import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { EditMessageBody } from "../../models/message-actions"
import { Message, MessageIdParams, toMessage } from "../../models/messages"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { parseJsonBody, type RawBody } from "../../validation"

/** PATCH /v1/messages/{messageId} */
export const messagesEdit = (deps: HttpDeps) => (app: ApiApp) =>
  app.patch(
    "/messages/:messageId",
    async ({ body, params, principal }) => {
      const { content } = parseJsonBody(EditMessageBody, body as RawBody)
      return ok(toMessage(await editMessage(deps.ctx, deps.messageActions, principal, params.messageId, content)))
    },
    {
      ...apiOperation({
        operationId: "editMessage",
        scopes: REQUIRED_SCOPES.send,
        tag: "Messages",
        summary: "Edit the text or caption of a sent message",
        description:
          "Within 15 minutes of `sentAt`, as WhatsApp allows; `content` replaces the text, or the caption of a media message, and `editedAt` is set. " +
          "409 after that, when the message is pending, failed or revoked, or has no text or caption. Live keys: the phone must be connected.",
        path: MessageIdParams,
        body: EditMessageBody,
        success: { status: 200, schema: Envelope(Message), description: "The message as edited" },
        errors: [400, 401, 403, 404, 409, 413, 429, 502, 503],
      }),
    },
  )
