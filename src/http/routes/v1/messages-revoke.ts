import { revokeMessage } from "../../../domain/message-actions"
import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { Message, MessageIdParams, toMessage } from "../../models/messages"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"

/** DELETE /v1/messages/{messageId} */
export const messagesRevoke = (deps: HttpDeps) => (app: ApiApp) =>
  app.delete(
    "/messages/:messageId",
    async ({ params, principal }) => ok(toMessage(await revokeMessage(deps.ctx, deps.messageActions, principal, params.messageId))),
    {
      ...apiOperation({
        operationId: "revokeMessage",
        scopes: REQUIRED_SCOPES.send,
        tag: "Messages",
        summary: "Delete a sent message for everyone",
        description:
          "Within 2 days of `sentAt`; every WhatsApp message of it (each media and the text) is deleted for everyone in the chat and `revokedAt` is set. " +
          "The message stays in wagate, with its content. Revoking it again answers the same message. " +
          "409 after 2 days, or when the message is pending or failed. Live keys: the phone must be connected.",
        path: MessageIdParams,
        success: { status: 200, schema: Envelope(Message), description: "The message, revoked" },
        errors: [400, 401, 403, 404, 409, 429, 502, 503],
      }),
    },
  )
