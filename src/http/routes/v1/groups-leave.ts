import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { GroupIdParams, GroupPhoneBody } from "../../models/groups"
import { parseJsonBody, type RawBody } from "../../validation"

/** POST /v1/groups/{groupId}/leave */
export const groupsLeave = (deps: HttpDeps) => (app: ApiApp) =>
  app.post(
    "/groups/:groupId/leave",
    async ({ params, body, principal, set }) => {
      await deps.groups.leave(principal, parseJsonBody(GroupPhoneBody, body as RawBody).fromPhoneId, params.groupId)
      set.status = 204
      return undefined
    },
    {
      ...apiOperation({
        operationId: "leaveGroup",
        scopes: REQUIRED_SCOPES.groupsWrite,
        tag: "Groups",
        summary: "Leave a group",
        description: "The phone leaves; `404` when it is not in the group.",
        path: GroupIdParams,
        body: GroupPhoneBody,
        success: { status: 204, description: "Left" },
        errors: [400, 401, 403, 404, 409, 413, 429, 502, 503],
      }),
    },
  )
