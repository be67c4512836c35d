import { chatMediaFile } from "../../../domain/chat-media"
import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { ChatMediaQuery, ChatMessageParams } from "../../models/chats"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { parseQuery } from "../../validation"
import { MEDIA_FILE_SUCCESS, serveMediaFile } from "./inbound-media"

/** GET /v1/chats/{chatId}/messages/{messageId}/media: served as the inbound media route serves (see there why). */
export const chatsMedia = (deps: HttpDeps) => (app: ApiApp) =>
  app.get(
    "/chats/:chatId/messages/:messageId/media",
    async ({ params, query, principal, request, set }) => {
      const q = parseQuery(ChatMediaQuery, query)
      const file = await chatMediaFile(deps.ctx, deps.inboundMedia, principal, { fromPhoneId: q.fromPhoneId, chatId: params.chatId, messageId: params.messageId })
      return serveMediaFile(file, request, set)
    },
    {
      ...apiOperation({
        operationId: "getChatMessageMedia",
        scopes: REQUIRED_SCOPES.messagesRead,
        tag: "Chats",
        summary: "Download a timeline message's media",
        description:
          "The bytes of a photo, video, audio or document in a chat's timeline: one the phone sent itself or history brought (`wamsg_…`), " +
          "or a received one (`inmsg_…`, as GET /v1/messages/inbound/{messageId}/media). Downloaded from WhatsApp on the first request, " +
          "then served from wagate's cache. The phone must be connected for the first download; media WhatsApp no longer has is `410`.",
        path: ChatMessageParams,
        query: ChatMediaQuery,
        success: MEDIA_FILE_SUCCESS,
        errors: [400, 401, 403, 404, 409, 410, 429, 502, 503],
      }),
    },
  )
