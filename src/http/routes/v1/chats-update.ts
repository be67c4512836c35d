import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Chat, ChatIdParams, UpdateChatBody } from "../../models/chats"
import { Envelope, ok } from "../../models/common"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { parseJsonBody, type RawBody } from "../../validation"

/** PATCH /v1/chats/{chatId} */
export const chatsUpdate = (deps: HttpDeps) => (app: ApiApp) =>
  app.patch("/chats/:chatId", async ({ params, body, principal }) => ok(await deps.chats.update(principal, params.chatId, parseJsonBody(UpdateChatBody, body as RawBody))), {
    ...apiOperation({
      operationId: "updateChat",
      scopes: REQUIRED_SCOPES.send,
      tag: "Chats",
      summary: "Archive, pin, mute or mark a chat read or unread",
      description:
        "Live keys write the change to WhatsApp's app state, so the phone shows it; when WhatsApp does not take it, `502` and nothing changes. " +
        "Test keys change the sandbox's chat. Either way `chat.updated` fires.",
      path: ChatIdParams,
      body: UpdateChatBody,
      success: { status: 200, schema: Envelope(Chat), description: "The chat as it is now" },
      errors: [400, 401, 403, 404, 409, 413, 429, 502],
    }),
  })
