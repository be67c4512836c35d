import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { LabelList, ListLabelsQuery } from "../../models/chats"
import { Envelope, ok } from "../../models/common"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { parseQuery } from "../../validation"

/** GET /v1/labels */
export const labelsList = (deps: HttpDeps) => (app: ApiApp) =>
  app.get(
    "/labels",
    async ({ query, principal }) => {
      const q = parseQuery(ListLabelsQuery, query)
      return ok(await deps.chats.labels(principal, q.fromPhoneId))
    },
    {
      ...apiOperation({
        operationId: "listLabels",
        scopes: REQUIRED_SCOPES.messagesRead,
        tag: "Chats",
        summary: "List a phone's WhatsApp Business labels",
        description:
          "The labels of a WhatsApp Business phone, in step with the phone: labels made, renamed or deleted on the phone arrive through its app state. " +
          "A chat's `labels` name their ids.",
        query: ListLabelsQuery,
        success: { status: 200, schema: Envelope(LabelList), description: "The phone's labels, by id" },
        errors: [400, 401, 403, 404, 429],
      }),
    },
  )
