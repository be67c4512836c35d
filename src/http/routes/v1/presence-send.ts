import { sendPresence } from "../../../domain/presence"
import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { PresenceBody } from "../../models/presence"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { parseJsonBody, type RawBody } from "../../validation"

/** POST /v1/presence */
export const presenceSend = (deps: HttpDeps) => (app: ApiApp) =>
  app.post(
    "/presence",
    async ({ body, principal, set }) => {
      await sendPresence(deps.ctx, deps.presence, principal, parseJsonBody(PresenceBody, body as RawBody))
      set.status = 204
      return undefined
    },
    {
      ...apiOperation({
        operationId: "sendPresence",
        scopes: REQUIRED_SCOPES.send,
        tag: "Messages",
        summary: "Show typing or recording in a chat, or stop it",
        description:
          "Live keys: the phone must be connected; a number must be on WhatsApp (checked through the send cache). " +
          "WhatsApp shows the state for about 25 s unless it is renewed, or until `paused` or a message ends it. Test keys: accepted, nothing happens.",
        body: PresenceBody,
        success: { status: 204, description: "Shown, or stopped" },
        errors: [400, 401, 403, 404, 409, 413, 429, 502, 503],
      }),
    },
  )
