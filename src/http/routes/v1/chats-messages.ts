import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { ChatIdParams, Timeline, TimelineQuery } from "../../models/chats"
import { Envelope, ok } from "../../models/common"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { parseQuery } from "../../validation"

/** GET /v1/chats/{chatId}/messages */
export const chatsMessages = (deps: HttpDeps) => (app: ApiApp) =>
  app.get(
    "/chats/:chatId/messages",
    async ({ params, query, principal }) => {
      const q = parseQuery(TimelineQuery, query)
      return ok(await deps.chats.timeline(principal, params.chatId, { fromPhoneId: q.fromPhoneId, before: q.before, limit: q.limit ?? 50 }))
    },
    {
      ...apiOperation({
        operationId: "listChatMessages",
        scopes: REQUIRED_SCOPES.messagesRead,
        tag: "Chats",
        summary: "A chat's timeline, newest first",
        description:
          "Both directions and every origin merged: API sends (`msg_…`), received messages (`inmsg_…`), and what the phone sent itself or history brought (`wamsg_…`), " +
          "with reactions, edits and deletions. Pages by `before`; a chat the phone does not have is `404`.",
        path: ChatIdParams,
        query: TimelineQuery,
        success: { status: 200, schema: Envelope(Timeline), description: "A page of the timeline" },
        errors: [400, 401, 403, 404, 429],
      }),
    },
  )
