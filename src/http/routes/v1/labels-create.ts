import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Label } from "../../models/chats"
import { Envelope, ok } from "../../models/common"
import { CreateLabelBody } from "../../models/labels"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { parseJsonBody, type RawBody } from "../../validation"

/** POST /v1/labels */
export const labelsCreate = (deps: HttpDeps) => (app: ApiApp) =>
  app.post(
    "/labels",
    async ({ body, principal, set }) => {
      const label = await deps.labels.create(principal, parseJsonBody(CreateLabelBody, body as RawBody))
      set.status = 201
      return ok(label)
    },
    {
      ...apiOperation({
        operationId: "createLabel",
        scopes: REQUIRED_SCOPES.send,
        tag: "Chats",
        summary: "Create a WhatsApp Business label",
        description:
          "Live keys write the label to WhatsApp's app state, so the phone shows it; when WhatsApp does not take it, `502` and nothing is recorded. " +
          "A phone that is not a WhatsApp Business account is `409`; test keys' sandbox phone counts as one.",
        body: CreateLabelBody,
        success: { status: 201, schema: Envelope(Label), description: "The new label" },
        errors: [400, 401, 403, 404, 409, 413, 429, 502],
      }),
    },
  )
