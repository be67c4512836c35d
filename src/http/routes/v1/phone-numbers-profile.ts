import { updateOwnProfile } from "../../../domain/own-profile"
import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { OwnProfile, OwnProfileBody } from "../../models/own-profile"
import { PhoneIdParams } from "../../models/phones"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { parseJsonBody, type RawBody } from "../../validation"

/** PATCH /v1/phone-numbers/{id}/profile */
export const phoneNumbersProfile = (deps: HttpDeps) => (app: ApiApp) =>
  app.patch(
    "/phone-numbers/:id/profile",
    async ({ body, params, principal }) =>
      ok(await updateOwnProfile(deps.ctx, deps.ownProfile, principal, params.id, parseJsonBody(OwnProfileBody, body as RawBody))),
    {
      ...apiOperation({
        operationId: "updateOwnProfile",
        scopes: REQUIRED_SCOPES.phoneNumbersWrite,
        tag: "Phone numbers",
        summary: "Set the phone's push name and about text",
        description:
          "Live keys: the phone must be connected; the name is announced to WhatsApp (contacts see it on the next messages) and the about text set. " +
          "Test keys: kept for the sandbox only; nothing changes on WhatsApp.",
        path: PhoneIdParams,
        body: OwnProfileBody,
        success: { status: 200, schema: Envelope(OwnProfile), description: "The phone's profile" },
        errors: [400, 401, 403, 404, 409, 413, 429, 502, 503],
      }),
    },
  )
