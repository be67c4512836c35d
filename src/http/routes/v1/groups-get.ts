import { REQUIRED_SCOPES } from "../../../domain/scopes"
import type { HttpDeps } from "../../deps"
import { Envelope, ok } from "../../models/common"
import { apiOperation } from "../../openapi/operation"
import type { ApiApp } from "../../plugins/api-auth"
import { GroupDetail, GroupIdParams, GroupPhoneQuery } from "../../models/groups"
import { parseQuery } from "../../validation"

/** GET /v1/groups/{groupId} */
export const groupsGet = (deps: HttpDeps) => (app: ApiApp) =>
  app.get(
    "/groups/:groupId",
    async ({ params, query, principal }) => ok(await deps.groups.detail(principal, parseQuery(GroupPhoneQuery, query).fromPhoneId, params.groupId)),
    {
      ...apiOperation({
        operationId: "getGroup",
        scopes: REQUIRED_SCOPES.groupDetailRead,
        tag: "Groups",
        summary: "A group's detail: participants, settings, invite state",
        description: "404 when the phone is not in the group. Live keys ask WhatsApp each time.",
        path: GroupIdParams,
        query: GroupPhoneQuery,
        success: { status: 200, schema: Envelope(GroupDetail), description: "The group" },
        errors: [400, 401, 403, 404, 409, 429, 502, 503],
      }),
    },
  )
