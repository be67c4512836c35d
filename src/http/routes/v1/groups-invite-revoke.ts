import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { GroupIdParams, GroupInvite, GroupPhoneBody } from "../../models/groups"
import { parseJsonBody, type RawBody } from "../../validation"

/** DELETE /v1/groups/{groupId}/invite */
export const groupsInviteRevoke = (deps: HttpDeps) => (app: ApiApp) =>
  app.delete(
    "/groups/:groupId/invite",
    async ({ params, body, principal }) => ok(await deps.groups.revokeInvite(principal, parseJsonBody(GroupPhoneBody, body as RawBody).fromPhoneId, params.groupId)),
    {
      ...apiOperation({
        operationId: "revokeGroupInvite",
        scopes: REQUIRED_SCOPES.groupsWrite,
        tag: "Groups",
        summary: "Revoke the group's invite link and get the new one",
        description: "The old link stops working at once. Needs admin rights (`403` otherwise).",
        path: GroupIdParams,
        body: GroupPhoneBody,
        success: { status: 200, schema: Envelope(GroupInvite), description: "The new invite code and link" },
        errors: [400, 401, 403, 404, 409, 413, 429, 502, 503],
      }),
    },
  )
