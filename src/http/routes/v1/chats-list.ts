import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { ChatList, flagOf, ListChatsQuery } from "../../models/chats"
import { Envelope, ok } from "../../models/common"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { parseQuery } from "../../validation"

/** GET /v1/chats */
export const chatsList = (deps: HttpDeps) => (app: ApiApp) =>
  app.get(
    "/chats",
    async ({ query, principal }) => {
      const q = parseQuery(ListChatsQuery, query)
      const listing = { archived: flagOf(q.archived), unread: flagOf(q.unread), unreadFirst: q.order === "unread", search: q.search }
      return ok(await deps.chats.list(principal, { fromPhoneId: q.fromPhoneId, ...listing, limit: q.limit ?? 50, cursor: q.cursor }))
    },
    {
      ...apiOperation({
        operationId: "listChats",
        scopes: REQUIRED_SCOPES.messagesRead,
        tag: "Chats",
        summary: "List a phone's chats, newest activity first (or unread first), searchable",
        description:
          "Every conversation the phone has: API sends, received messages, what the phone sent itself and history. " +
          "Test keys see the chats of what the sandbox recorded. Pages by `cursor`; a cursor this API did not give is `400`.",
        query: ListChatsQuery,
        success: { status: 200, schema: Envelope(ChatList), description: "A page of chats" },
        errors: [400, 401, 403, 404, 429],
      }),
    },
  )
