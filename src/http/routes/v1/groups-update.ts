import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { GroupDetail, GroupIdParams, UpdateGroupBody } from "../../models/groups"
import { parseJsonBody, type RawBody } from "../../validation"

/** PATCH /v1/groups/{groupId} */
export const groupsUpdate = (deps: HttpDeps) => (app: ApiApp) =>
  app.patch(
    "/groups/:groupId",
    async ({ params, body, principal }) => {
      const { fromPhoneId, ...changes } = parseJsonBody(UpdateGroupBody, body as RawBody)
      return ok(await deps.groups.update(principal, fromPhoneId, params.groupId, changes))
    },
    {
      ...apiOperation({
        operationId: "updateGroup",
        scopes: REQUIRED_SCOPES.groupsWrite,
        tag: "Groups",
        summary: "Change a group's subject, description, settings or disappearing-messages timer",
        description:
          "Settings need admin rights, and so do the subject and description of a locked group: without them `403`. " +
          "`ephemeralSeconds` takes the timers WhatsApp offers: 0 (off), 86400, 604800, 7776000.",
        path: GroupIdParams,
        body: UpdateGroupBody,
        success: { status: 200, schema: Envelope(GroupDetail), description: "The group as it is now" },
        errors: [400, 401, 403, 404, 409, 413, 429, 502, 503],
      }),
    },
  )
