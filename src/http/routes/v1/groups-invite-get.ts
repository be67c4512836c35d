import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { GroupIdParams, GroupInvite, GroupPhoneQuery } from "../../models/groups"
import { parseQuery } from "../../validation"

/** GET /v1/groups/{groupId}/invite */
export const groupsInviteGet = (deps: HttpDeps) => (app: ApiApp) =>
  app.get(
    "/groups/:groupId/invite",
    async ({ params, query, principal }) => ok(await deps.groups.invite(principal, parseQuery(GroupPhoneQuery, query).fromPhoneId, params.groupId)),
    {
      ...apiOperation({
        operationId: "getGroupInvite",
        scopes: REQUIRED_SCOPES.groupsWrite,
        tag: "Groups",
        summary: "The group's invite link",
        description: "Needs admin rights (`403` otherwise).",
        path: GroupIdParams,
        query: GroupPhoneQuery,
        success: { status: 200, schema: Envelope(GroupInvite), description: "The invite code and link" },
        errors: [400, 401, 403, 404, 409, 429, 502, 503],
      }),
    },
  )
