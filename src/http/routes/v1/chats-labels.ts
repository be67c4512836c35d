import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Chat, ChatIdParams } from "../../models/chats"
import { Envelope, ok } from "../../models/common"
import { ChatLabelsBody } from "../../models/labels"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { parseJsonBody, type RawBody } from "../../validation"

/** PUT /v1/chats/{chatId}/labels */
export const chatsLabels = (deps: HttpDeps) => (app: ApiApp) =>
  app.put(
    "/chats/:chatId/labels",
    async ({ params, body, principal }) => ok(await deps.labels.setChatLabels(principal, params.chatId, parseJsonBody(ChatLabelsBody, body as RawBody))),
    {
      ...apiOperation({
        operationId: "setChatLabels",
        scopes: REQUIRED_SCOPES.send,
        tag: "Chats",
        summary: "Set a chat's WhatsApp Business labels",
        description:
          "`labels` replaces the chat's labels as a whole. Live keys write each label put on or taken off to WhatsApp's app state, so the phone shows it; " +
          "when WhatsApp does not take it, `502`. A label id the phone does not have is `400`; a phone that is not a WhatsApp Business account is `409`. " +
          "`chat.updated` fires only when the labels changed.",
        path: ChatIdParams,
        body: ChatLabelsBody,
        success: { status: 200, schema: Envelope(Chat), description: "The chat as it is now" },
        errors: [400, 401, 403, 404, 409, 413, 429, 502],
      }),
    },
  )
